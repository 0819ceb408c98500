import { apiHandler } from '../src/http/handler';
import { showEmployee } from '../src/services/employees';

export const handler = apiHandler({ route: 'get-employee' }, (req) =>
  showEmployee(req.auth.businessId, req.params.id ?? ''),
);

import { apiHandler } from '../src/http/handler';
import { queryValidator } from '../src/http/validation';
import { showEmployee } from '../src/services/employees';
import validateEmployeeShowQuery from '../src/schemas/generated/validate-employee-show-query';

const query = queryValidator<{ as_of?: string }>(validateEmployeeShowQuery);

export const handler = apiHandler({ route: 'get-employee', query }, (req) =>
  showEmployee(req.auth.businessId, req.params.id ?? '', req.query.as_of),
);

import { apiHandler } from '../src/http/handler';
import { showApplication } from '../src/services/applications';

export const handler = apiHandler({ route: 'get-application' }, (req) =>
  showApplication(req.auth.businessId, req.params.id ?? ''),
);

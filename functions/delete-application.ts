import { apiHandler } from '../src/http/handler';
import { deleteApplication } from '../src/services/applications';

export const handler = apiHandler({ route: 'delete-application' }, (req) =>
  deleteApplication(req.auth.businessId, req.params.id ?? ''),
);

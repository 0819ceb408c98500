import { apiHandler } from '../src/http/handler';
import { showEmployeeJob } from '../src/services/employee-jobs';

export const handler = apiHandler({ route: 'get-employee-job' }, (req) =>
  showEmployeeJob(req.auth.businessId, req.params.id ?? ''),
);

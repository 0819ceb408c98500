import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';

import { listEmployeeJobs } from '../src/services/employee-jobs';
import validateEmployeeJobQuery from '../src/schemas/generated/validate-employee-job-query';

const query = queryValidator<PageParams & { employee_id?: string }>(validateEmployeeJobQuery);

export const handler = apiHandler({ route: 'list-employee-jobs', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listEmployeeJobs(req.auth.businessId, page, req.query.employee_id, req.auth.along);
  return pageResult(req, page, entries, total);
});

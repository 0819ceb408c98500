import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';

import { listEmployees } from '../src/services/employees';
import validateEmployeeQuery from '../src/schemas/generated/validate-employee-query';

const query = queryValidator<PageParams & { as_of?: string }>(validateEmployeeQuery);

export const handler = apiHandler({ route: 'list-employees', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listEmployees(req.auth.businessId, page, req.auth.along, req.query.as_of);
  return pageResult(req, page, entries, total);
});

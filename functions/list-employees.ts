import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/schemas/validation';

import { listEmployees } from '../src/services/employees';
import validatePageQuery from '../src/schemas/generated/validate-page-query';

const query = queryValidator<PageParams>(validatePageQuery);

export const handler = apiHandler({ route: 'list-employees', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listEmployees(req.auth.businessId, page, req.auth.along);
  return pageResult(req, page, entries, total);
});

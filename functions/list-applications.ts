import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';
import { ApplicationQuery } from '../src/schemas/applications';
import { listApplications, listFiltersOf, type ApplicationListQuery } from '../src/services/applications';

const query = queryValidator<ApplicationListQuery>(ApplicationQuery);

export const handler = apiHandler({ route: 'list-applications', query }, async (req) => {
  const filters = listFiltersOf(req.query);
  const page = pageRequestOf(req.query);
  const { entries, total } = await listApplications(req.auth.businessId, filters, page);
  return pageResult(req, page, entries, total);
});

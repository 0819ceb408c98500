import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';

import { listFilterOf, type ApplicationListQuery } from '../src/http/application-query';
import { listApplications } from '../src/services/applications';
import validateApplicationQuery from '../src/schemas/generated/validate-application-query';

const query = queryValidator<ApplicationListQuery>(validateApplicationQuery);

export const handler = apiHandler({ route: 'list-applications', query }, async (req) => {
  const filter = listFilterOf(req.query);
  const page = pageRequestOf(req.query);
  const { entries, total } = await listApplications(req.auth.businessId, filter, page, req.auth.along);
  return pageResult(req, page, entries, total);
});

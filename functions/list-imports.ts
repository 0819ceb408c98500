import { apiHandler } from '../src/http/handler';
import { importReadable } from '../src/http/import-access';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';
import { listImports } from '../src/services/imports';
import validatePageQuery from '../src/schemas/generated/validate-page-query';

const query = queryValidator<PageParams>(validatePageQuery);

export const handler = apiHandler({ route: 'list-imports', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listImports(req.auth.businessId, page, await importReadable(req.auth));
  return pageResult(req, page, entries, total);
});

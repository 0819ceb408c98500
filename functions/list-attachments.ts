import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';
import { listAttachments } from '../src/services/attachments';
import validatePageQuery from '../src/schemas/generated/validate-page-query';

const query = queryValidator<PageParams>(validatePageQuery);

export const handler = apiHandler({ route: 'list-attachments', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listAttachments(req.auth.businessId, req.params.id ?? '', page);
  return pageResult(req, page, entries, total);
});

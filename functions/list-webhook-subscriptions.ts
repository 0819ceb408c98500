import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';
import { listSubscriptions } from '../src/services/webhook-subscriptions';
import validatePageQuery from '../src/schemas/generated/validate-page-query';

const query = queryValidator<PageParams>(validatePageQuery);

export const handler = apiHandler({ route: 'list-webhook-subscriptions', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listSubscriptions(req.auth.businessId, page);
  return pageResult(req, page, entries, total);
});

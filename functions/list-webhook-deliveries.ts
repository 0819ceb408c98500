import { apiHandler } from '../src/http/handler';
import { pageRequestOf, pageResult, type PageParams } from '../src/http/paging';
import { queryValidator } from '../src/http/validation';
import { listWebhookDeliveries } from '../src/services/webhook-subscriptions';
import validatePageQuery from '../src/schemas/generated/validate-page-query';

const query = queryValidator<PageParams>(validatePageQuery);

export const handler = apiHandler({ route: 'list-webhook-deliveries', query }, async (req) => {
  const page = pageRequestOf(req.query);
  const { entries, total } = await listWebhookDeliveries(req.auth.businessId, req.params.id ?? '', page);
  return pageResult(req, page, entries, total);
});

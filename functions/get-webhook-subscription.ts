import { apiHandler } from '../src/http/handler';
import { showSubscription } from '../src/services/webhook-subscriptions';

export const handler = apiHandler({ route: 'get-webhook-subscription' }, (req) =>
  showSubscription(req.auth.businessId, req.params.id ?? ''),
);

import { apiHandler } from '../src/http/handler';
import { removeSubscription } from '../src/services/webhook-subscriptions';

export const handler = apiHandler({ route: 'delete-webhook-subscription' }, (req) =>
  removeSubscription(req.auth.businessId, req.params.id ?? ''),
);

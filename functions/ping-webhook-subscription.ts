import { apiHandler } from '../src/http/handler';
import { idempotencyKeyOf } from '../src/http/idempotency-key';
import { pingWebhookSubscription } from '../src/services/webhook-subscriptions';

export const handler = apiHandler({ route: 'ping-webhook-subscription' }, (req) =>
  pingWebhookSubscription(req.auth.businessId, req.params.id ?? '', idempotencyKeyOf(req.headers), req),
);

import { apiHandler } from '../src/http/handler';
import { pingWebhookSubscription } from '../src/services/webhook-subscriptions';

export const handler = apiHandler({ route: 'ping-webhook-subscription' }, (req) =>
  pingWebhookSubscription(req.context, req.params.id ?? ''),
);

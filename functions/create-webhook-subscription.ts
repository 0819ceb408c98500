import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { createSubscription, type SubscriptionBody } from '../src/services/webhook-subscriptions';
import validateWebhookSubscriptionCreate from '../src/schemas/generated/validate-webhook-subscription-create';
import '../src/services/feed-wiring';

const body = bodyValidator<SubscriptionBody>(validateWebhookSubscriptionCreate, {
  ignore: ['id', 'status', 'secret', 'created_at', 'last_delivery_error'],
});

export const handler = apiHandler({ route: 'create-webhook-subscription', body }, (req) =>
  createSubscription(req.context, req.body, req.fieldErrors),
);

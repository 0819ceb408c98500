import { apiHandler } from '../src/http/handler';
import { idempotencyKeyOf } from '../src/http/idempotency-key';
import { bodyValidator } from '../src/schemas/validation';
import { resumeWebhookSubscription, type ResumeBody } from '../src/services/webhook-subscriptions';
import validateWebhookSubscriptionResume from '../src/schemas/generated/validate-webhook-subscription-resume';
import '../src/services/feed-wiring';

const body = bodyValidator<ResumeBody>(validateWebhookSubscriptionResume);

export const handler = apiHandler({ route: 'resume-webhook-subscription', body }, (req) =>
  resumeWebhookSubscription(
    req.auth.businessId,
    req.params.id ?? '',
    req.body,
    req.fieldErrors,
    idempotencyKeyOf(req.headers),
    req,
  ),
);

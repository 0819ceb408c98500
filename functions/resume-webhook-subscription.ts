import { apiHandler } from '../src/http/handler';
import { bodyValidator } from '../src/http/validation';
import { resumeWebhookSubscription, type ResumeBody } from '../src/services/webhook-subscriptions';
import validateWebhookSubscriptionResume from '../src/schemas/generated/validate-webhook-subscription-resume';
import '../src/services/feed-wiring';

const body = bodyValidator<ResumeBody>(validateWebhookSubscriptionResume);

export const handler = apiHandler({ route: 'resume-webhook-subscription', body }, (req) =>
  resumeWebhookSubscription(req.context, req.params.id ?? '', req.body, req.fieldErrors),
);

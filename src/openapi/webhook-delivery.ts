import { proseSections } from './prose';
import { schemaRef } from './responses';
import type { JsonObject, OpenApiDocument } from './types';

const webhookHeader = (name: string, description: string): JsonObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/**
 * The delivery a subscription's URL receives (contract §14), signed as the
 * Standard Webhooks specification defines: the `standardwebhooks` package's
 * `verify(body, headers)` checks it.
 */
export const WEBHOOKS: OpenApiDocument['webhooks'] = {
  change: {
    post: {
      operationId: 'receiveChange',
      summary: 'One change-feed entry, delivered to a webhook subscription',
      description: proseSections('operations')['receive-change'],
      tags: ['Webhooks'],
      security: [],
      parameters: [
        webhookHeader('webhook-id', 'The same on every retry of this entry to this subscription: deduplicate on it.'),
        webhookHeader('webhook-timestamp', 'Unix seconds when this attempt was signed.'),
        webhookHeader(
          'webhook-signature',
          '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` with the subscription’s secret.',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('ChangeEntry') } } },
      responses: {
        '2XX': { description: 'Received: the next entry follows.' },
        '4XX': { description: 'Refused (for example a signature that does not verify): retried on the schedule.' },
        '5XX': { description: 'Failed: retried on the schedule.' },
      },
    },
  },
  ping: {
    post: {
      operationId: 'receivePing',
      summary: 'A `webhook.ping` entry, sent when `POST /webhook_subscriptions/{id}/ping` asks for one',
      description: proseSections('operations')['receive-ping'],
      tags: ['Webhooks'],
      security: [],
      parameters: [
        webhookHeader('webhook-id', 'The `webhook_id` the ping request answered.'),
        webhookHeader('webhook-timestamp', 'Unix seconds when this attempt was signed.'),
        webhookHeader(
          'webhook-signature',
          '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` with the subscription’s secret.',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('WebhookPingEntry') } } },
      responses: { '2XX': { description: 'Received.' }, default: { description: 'Logged; not retried.' } },
    },
  },
};

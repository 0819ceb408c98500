import { CHANGE_TYPES } from '../domain/change-feed';
import { DELIVERY_LOG_DAYS } from '../domain/webhook-deliveries';
import { PING_TYPE } from '../domain/webhooks';
import { datetime } from './common';

export const WebhookSubscriptionCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
      description:
        'Where deliveries are POSTed: https only (the local server also allows http://127.0.0.1, http://localhost, http://[::1]). A host that is or resolves to a private, loopback, link-local, multicast or cloud-metadata address is refused (422 `is not allowed`), and checked again at every delivery.',
    },
    types: {
      type: ['array', 'null'],
      items: { type: 'string', enum: CHANGE_TYPES },
      uniqueItems: true,
      minItems: 1,
      description: 'Change types to receive; absent or null = all',
    },
  },
} as const;

const subscriptionProperties = {
  id: { type: 'string' },
  url: { type: 'string', format: 'uri' },
  types: { type: ['array', 'null'], items: { type: 'string', enum: CHANGE_TYPES }, description: 'null = all types' },
  status: {
    type: 'string',
    enum: ['active', 'disabled'],
    description: '`disabled` after the last retry of an entry failed; it then receives nothing more',
  },
  created_at: datetime,
} as const;

export const WebhookSubscription = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'types', 'status', 'last_delivery_error', 'created_at'],
  properties: {
    ...subscriptionProperties,
    last_delivery_error: {
      type: ['string', 'null'],
      description: 'Why the last failed attempt failed (`HTTP 500`, a timeout, `url is not allowed`), null if none',
    },
  },
} as const;

export const WebhookSubscriptionCreated = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'types', 'status', 'secret', 'created_at'],
  properties: {
    ...subscriptionProperties,
    secret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      description: 'Standard Webhooks signing secret; shown in this response only (and in an idempotent replay of it)',
    },
  },
} as const;

/** Contract §26: resume a subscription, optionally replaying from a feed cursor. */
export const WebhookSubscriptionResume = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from_cursor: {
      type: 'string',
      // Length and spelling are the cursor's (422 `is invalid`, decodeCursor): documented, not checked here.
      description:
        'A change-feed cursor (an entry’s `cursor`, a `next_cursor`) within retention: every entry after it is delivered again, in feed order, each with the `webhook-id` it had. Omitted: from the last entry the receiver acknowledged',
    },
  },
} as const;

/** Contract §26: one attempt in a subscription's delivery log. */
export const WebhookDelivery = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'webhook_id', 'cursor', 'type', 'attempt', 'attempted_at', 'result', 'duration_ms'],
  properties: {
    id: { type: 'string', description: 'The attempt’s id within its subscription' },
    webhook_id: { type: 'string', description: 'The `webhook-id` header it was sent with' },
    cursor: {
      type: ['string', 'null'],
      description: 'The delivered entry’s `cursor` (a ping: the subscription’s position; null before any change)',
    },
    type: { type: 'string', enum: [...CHANGE_TYPES, PING_TYPE] },
    attempt: { type: 'integer', minimum: 1, description: '1 for the first attempt of this entry, then each retry' },
    attempted_at: datetime,
    result: {
      type: 'string',
      description: '`HTTP <status>` for any answer (2xx: delivered), `timeout` or `connection failed`',
    },
    duration_ms: { type: 'integer', minimum: 0 },
  },
  description: `One delivery attempt of the last ${DELIVERY_LOG_DAYS} days (from 00:00 UTC of the day ${DELIVERY_LOG_DAYS} days ago); never a body or an answer’s body`,
} as const;

/** Contract §26: what a ping answers (202). */
export const WebhookPing = {
  type: 'object',
  additionalProperties: false,
  required: ['webhook_id'],
  properties: {
    webhook_id: {
      type: 'string',
      description: `The \`webhook-id\` the \`${PING_TYPE}\` entry is sent with: find its attempt in the delivery log by it`,
    },
  },
} as const;

/** Contract §26: the body a ping delivers (the change-feed entry's shape). */
export const WebhookPingEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['cursor', 'type', 'id', 'occurred_at', 'data'],
  properties: {
    cursor: {
      type: ['string', 'null'],
      description: 'The subscription’s position in the feed (null before its business’s first change)',
    },
    type: { const: PING_TYPE },
    id: { type: 'string', description: 'The ping’s id' },
    occurred_at: datetime,
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['subscription_id'],
      properties: { subscription_id: { type: 'string' } },
    },
  },
} as const;

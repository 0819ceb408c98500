import { CHANGE_TYPES } from '../domain/change-feed';
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

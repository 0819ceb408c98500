/**
 * Webhook subscriptions (src/data/webhook-store.ts): one table partition per
 * business (ids sort by creation), and the active ones also in one sparse
 * partition of the `list-keys` index sorted by their next attempt, which is how
 * the dispatcher finds the due ones without a Scan. The business's count item
 * (`n`) caps them. The item mapping of a subscription and of its delivery state.
 */
import type { DeliveryState } from '../../domain/webhooks';
import { keys, type Key } from '../dynamo/keys';
import { TABLE } from '../dynamo/table-definition';
import { attributesOf, keyNames, pattern, placeAt } from './entity';

export interface StoredSubscription extends DeliveryState {
  readonly businessId: string;
  readonly id: string;
  readonly url: string;
  readonly types: readonly string[] | null;
  readonly createdAt: string;
  readonly secretSealed: string;
  readonly version: number;
  readonly leaseUntil: number;
  /** The PK of the idempotency record its create stored, if it was sent with a key. */
  readonly idempotencyPk?: string;
  /** The hash of the token that created it: its deliveries act with that token's rights (contract §25). */
  readonly tokenHash?: string;
}

const ACTIVE_PARTITION = 'webhook-subscriptions#active';

const ofBusiness = pattern<{ readonly businessId: string }>('table', 'subscription id', ({ businessId }) =>
  keys.webhookSubscriptions(businessId),
);
const due = pattern<Record<string, never>>('list-keys', 'next_attempt_at (epoch ms)', () => ACTIVE_PARTITION);

const key = (businessId: string, id: string): Key => keys.webhookSubscription(businessId, id);
/** The attributes that keep an active subscription in `due` at its next attempt. */
const dueAt = (nextAttemptAt: number): Record<string, string | number> => placeAt(due, {}, nextAttemptAt);

/** The write counter every dispatcher write is conditioned on. */
const VERSION = 'version';
/** The attribute a delivery run holds while it delivers (epoch ms). */
const LEASE = 'lease_until';

/** The delivery state's attributes as stored. */
const deliveryAttributes = (state: DeliveryState): Record<string, unknown> => ({
  status: state.status,
  cursor: state.cursor,
  attempts: state.attempts,
  next_attempt_at: state.nextAttemptAt,
  last_delivery_error: state.lastDeliveryError,
});

export const webhookSubscription = {
  entity: 'webhook subscription',
  key,
  /** How many subscriptions the business has: the count item and its attribute. */
  countKey: (businessId: string): Key => keys.webhookSubscriptionCount(businessId),
  countAttribute: 'n',
  patterns: { ofBusiness, due },
  dueAt,
  /** The attributes to remove when it stops being active. */
  dueAttributes: attributesOf(due),
  /** Key condition of the due ones at `now`: partition and sort key at most `now`; only the table keys read. */
  dueQuery: (now: number) => {
    const { pk, sk } = keyNames(due.index);
    return {
      IndexName: due.index,
      KeyConditionExpression: '#pk = :p AND #sk <= :now',
      ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
      ExpressionAttributeValues: { ':p': due.partition({}), ':now': now },
      ProjectionExpression: `${TABLE.partitionKey}, ${TABLE.sortKey}`,
    };
  },
  /** The business id and subscription id of an item read by `dueQuery`: the key read backwards. */
  idOfKey: (item: Readonly<Record<string, unknown>>): { businessId: string; id: string } => {
    const [prefix, suffix] = keys.webhookSubscriptions('\u0000').split('\u0000') as [string, string];
    const pk = String(item[TABLE.partitionKey]);
    return { businessId: pk.slice(prefix.length, pk.length - suffix.length), id: String(item[TABLE.sortKey]) };
  },
  /** The string a sealed secret is bound to (its item's key). */
  sealingContext: (businessId: string, id: string): string => {
    const k = key(businessId, id);
    return `${k.PK}/${k.SK}`;
  },
  /** A new subscription's item: no attempt yet, due at once. */
  newItem: (sub: Omit<StoredSubscription, 'version' | 'leaseUntil'>): Record<string, unknown> => ({
    ...key(sub.businessId, sub.id),
    business_id: sub.businessId,
    id: sub.id,
    url: sub.url,
    types: sub.types,
    created_at: sub.createdAt,
    secret_sealed: sub.secretSealed,
    status: sub.status,
    cursor: sub.cursor,
    attempts: 0,
    next_attempt_at: 0,
    last_delivery_error: null,
    version: 1,
    ...(sub.idempotencyPk !== undefined ? { idempotency_pk: sub.idempotencyPk } : {}),
    ...(sub.tokenHash !== undefined ? { token_hash: sub.tokenHash } : {}),
    ...dueAt(0),
  }),
  /** The subscription an item holds; undefined for none. */
  fromItem: (item: Readonly<Record<string, unknown>> | undefined): StoredSubscription | undefined => {
    if (!item) return undefined;
    return {
      businessId: String(item.business_id),
      id: String(item.id),
      url: String(item.url),
      types: Array.isArray(item.types) ? (item.types as string[]) : null,
      createdAt: String(item.created_at),
      secretSealed: String(item.secret_sealed),
      status: item.status === 'disabled' ? 'disabled' : 'active',
      cursor: typeof item.cursor === 'string' ? item.cursor : null,
      attempts: Number(item.attempts ?? 0),
      nextAttemptAt: Number(item.next_attempt_at ?? 0),
      lastDeliveryError: typeof item.last_delivery_error === 'string' ? item.last_delivery_error : null,
      version: Number(item[VERSION] ?? 0),
      leaseUntil: Number(item[LEASE] ?? 0),
      ...(typeof item.idempotency_pk === 'string' ? { idempotencyPk: item.idempotency_pk } : {}),
      ...(typeof item.token_hash === 'string' ? { tokenHash: item.token_hash } : {}),
    };
  },
  versionAttribute: VERSION,
  /** Taking the delivery lease (optionally moving the cursor past entries it does not want). */
  leaseSet: (leaseUntil: number, cursor: string | null): Record<string, unknown> => ({ [LEASE]: leaseUntil, cursor }),
  /** Moving the cursor without a delivery. */
  cursorSet: (cursor: string): Record<string, unknown> => ({ cursor }),
  /** An attempt's result: the new delivery state set, the lease released, out of `due` unless still active. */
  attemptUpdate: (next: DeliveryState): { set: Record<string, unknown>; remove: string[] } => ({
    set: { ...deliveryAttributes(next), ...(next.status === 'active' ? dueAt(next.nextAttemptAt) : {}) },
    remove: next.status === 'active' ? [LEASE] : [LEASE, ...attributesOf(due)],
  }),
} as const;

/**
 * Webhook subscriptions (src/data/webhook-store.ts): one table partition per
 * business (ids sort by creation), and the active ones also in one sparse
 * partition of the `list-keys` index sorted by their next attempt, which is how
 * the dispatcher finds the due ones without a Scan. The business's count item
 * (`n`) caps them. The item mapping of a subscription and of its delivery state.
 */
import type { DeliveryState, PendingPing } from '../../domain/webhooks';
import { attemptId, dayMarkExpiry, DELIVERY_TTL_SECONDS, type DeliveryAttempt } from '../../domain/webhook-deliveries';
import { keys, type Key } from '../dynamo/keys';
import { TABLE } from '../dynamo/table-definition';
import { ifNotExists } from '../dynamo/update-expression';
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
  /** The number of its last delivery attempt (the delivery log's sequence), 0 before the first. */
  readonly logN: number;
  /** The day (`d<YYYYMMDD>`) of its last attempt: the first attempt of another day marks that day. */
  readonly logDay: string | null;
  /** A ping asked for and not yet attempted (contract §26). */
  readonly ping: PendingPing | null;
}

const ACTIVE_PARTITION = 'webhook-subscriptions#active';

const ofBusiness = pattern<{ readonly businessId: string }>('table', 'subscription id', ({ businessId }) =>
  keys.webhookSubscriptions(businessId),
);
const due = pattern<Record<string, never>>('list-keys', 'next_attempt_at (epoch ms)', () => ACTIVE_PARTITION);
const deliveries = pattern<{ readonly businessId: string; readonly id: string }>(
  'table',
  'attempt sequence (zero-padded), then day marks d<YYYYMMDD>',
  ({ businessId, id }) => keys.webhookDeliveries(businessId, id),
);

const key = (businessId: string, id: string): Key => keys.webhookSubscription(businessId, id);
/** The attributes that keep an active subscription in `due` at its next attempt. */
const dueAt = (nextAttemptAt: number): Record<string, string | number> => placeAt(due, {}, nextAttemptAt);

/** The write counter every dispatcher write is conditioned on. */
const VERSION = 'version';
/** The attribute a delivery run holds while it delivers (epoch ms). */
const LEASE = 'lease_until';
/** The delivery log's sequence and the day of the last attempt (see StoredSubscription). */
const LOG_N = 'log_n';
const LOG_DAY = 'log_day';
const PING = 'ping';
/** The id of the last ping attempted: `ping` is pending while its id is another. */
const PING_SENT = 'ping_sent';

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
  patterns: { ofBusiness, due, deliveries },
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
      ProjectionExpression: `${TABLE.partitionKey}, ${TABLE.sortKey}, ${sk}`,
    };
  },
  /** Where a due entry sorts (its next attempt, or when a resume or a ping put it there): read by `dueQuery`. */
  dueSortOf: (item: Readonly<Record<string, unknown>>): number => Number(item[keyNames(due.index).sk] ?? 0),
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
  newItem: (
    sub: Omit<StoredSubscription, 'version' | 'leaseUntil' | 'logN' | 'logDay' | 'ping'>,
  ): Record<string, unknown> => ({
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
      logN: Number(item[LOG_N] ?? 0),
      logDay: typeof item[LOG_DAY] === 'string' ? item[LOG_DAY] : null,
      ping: isPing(item[PING]) && item[PING].id !== item[PING_SENT] ? item[PING] : null,
      ...(typeof item.idempotency_pk === 'string' ? { idempotencyPk: item.idempotency_pk } : {}),
      ...(typeof item.token_hash === 'string' ? { tokenHash: item.token_hash } : {}),
    };
  },
  versionAttribute: VERSION,
  /**
   * Taking the delivery lease (optionally moving the cursor past entries it does not want) with the attempt's
   * number in the delivery log and its day.
   */
  leaseSet: (
    leaseUntil: number,
    cursor: string | null,
    attempt: { seq: number; day: string },
  ): Record<string, unknown> => ({
    [LEASE]: leaseUntil,
    cursor,
    [LOG_N]: attempt.seq,
    [LOG_DAY]: attempt.day,
  }),
  /**
   * Resume (contract §26): active, no failed attempt, due at once; from `cursor` when given. Placed in `due` at
   * `at` rather than 0, so a poller that remembers the subscription caught up at its old place reads it again.
   */
  resumeUpdate: (cursor: string | undefined, at: number): { set: Record<string, unknown> } => ({
    set: {
      status: 'active',
      attempts: 0,
      next_attempt_at: 0,
      ...(cursor !== undefined ? { cursor } : {}),
      ...dueAt(at),
    },
  }),
  /** A ping asked for: pending on the item, and in `due` at `at` (also a disabled one: the ping goes out anyway). */
  pingSet: (ping: PendingPing, at: number): Record<string, unknown> => ({ [PING]: ping, ...dueAt(at) }),
  /**
   * The ping `pingId` attempted: no longer pending (another asked for meanwhile still is), the lease released, back
   * at its place in `due` (out of it unless active).
   */
  pingDoneUpdate: (sub: DeliveryState, pingId: string): { set: Record<string, unknown>; remove: string[] } => ({
    set: { [PING_SENT]: pingId, ...(sub.status === 'active' ? dueAt(sub.nextAttemptAt) : {}) },
    remove: sub.status === 'active' ? [LEASE] : [LEASE, ...attributesOf(due)],
  }),
  /** An attempt's item in the delivery log (TTL: DELIVERY_TTL_SECONDS after the attempt). */
  deliveryItem: (
    businessId: string,
    id: string,
    seq: number,
    attempt: Omit<DeliveryAttempt, 'id'>,
  ): Record<string, unknown> => ({
    ...keys.webhookDelivery(businessId, id, seq),
    ...attempt,
    expires_at: Math.floor(Date.parse(attempt.attempted_at) / 1000) + DELIVERY_TTL_SECONDS,
  }),
  /** The attempt an item of the delivery log holds. */
  attemptOf: (item: Readonly<Record<string, unknown>>): DeliveryAttempt => ({
    id: attemptId(Number(item[TABLE.sortKey])),
    webhook_id: String(item.webhook_id),
    cursor: typeof item.cursor === 'string' ? item.cursor : null,
    type: String(item.type),
    attempt: Number(item.attempt),
    attempted_at: String(item.attempted_at),
    result: String(item.result),
    duration_ms: Number(item.duration_ms),
  }),
  /** The key of an attempt and of a day mark in the log. */
  deliveryKey: (businessId: string, id: string, seq: number): Key => keys.webhookDelivery(businessId, id, seq),
  dayMarkKey: (businessId: string, id: string, day: string): Key => keys.webhookDeliveryDay(businessId, id, day),
  /** A day mark: the first attempt number of its day (kept if already there), expiring with that day's attempts. */
  dayMarkSet: (seq: number, at: number) => ({ seq: ifNotExists(seq), expires_at: dayMarkExpiry(at) }),
  /** The first attempt number a day mark holds. */
  seqOfDayMark: (item: Readonly<Record<string, unknown>>): number => Number(item.seq),
  /** The attempt number of a log item's sort key (every digit key; day marks start with `d`). */
  seqPad: (seq: number): string => keys.webhookDelivery('', '', seq).SK,
  /** Moving the cursor without a delivery. */
  cursorSet: (cursor: string): Record<string, unknown> => ({ cursor }),
  /** An attempt's result: the new delivery state set, the lease released, out of `due` unless still active. */
  attemptUpdate: (next: DeliveryState): { set: Record<string, unknown>; remove: string[] } => ({
    set: { ...deliveryAttributes(next), ...(next.status === 'active' ? dueAt(next.nextAttemptAt) : {}) },
    remove: next.status === 'active' ? [LEASE] : [LEASE, ...attributesOf(due)],
  }),
} as const;

function isPing(value: unknown): value is PendingPing {
  const v = value as PendingPing | null | undefined;
  return typeof v?.id === 'string' && typeof v.at === 'string';
}

/**
 * Access patterns of webhook subscriptions.
 *
 * Item `B#<bid>#webhook-subscriptions` / `<id>` (ids sort by creation time, so
 * the partition is the business's list in contract order): public fields,
 * `secret_sealed` (src/data/secret-box.ts), the delivery state (`cursor`,
 * `attempts`, `next_attempt_at`, `last_delivery_error`), `version` (every
 * dispatcher write is conditioned on it) and `lease_until` (a dispatcher that
 * is delivering holds it, so two runs never deliver one subscription at once).
 * Active subscriptions also sit in the sparse `due` access pattern
 * (src/data/entities/webhook-subscription.ts), sorted by `next_attempt_at`:
 * how the dispatcher finds the subscriptions that are due without a Scan.
 * Subscriptions are not change-feed records: writing them adds no feed entry.
 *
 * Item `B#<bid>#webhook-count` / `N`: `n`, the business's subscriptions, moved
 * in the same transaction as every create (only below the cap) and delete.
 */
import { FieldError, MESSAGES, notFound } from '../domain/errors';
import { MAX_SUBSCRIPTIONS_PER_BUSINESS, type DeliveryState, type PendingPing } from '../domain/webhooks';
import type { DeliveryAttempt } from '../domain/webhook-deliveries';
import { idempotencyTombstoneWrite, IDEMPOTENCY_TTL_SECONDS } from './idempotency';
import type { Key } from './dynamo/keys';
import { IF_ABSENT, IF_PRESENT, partitionQuery } from './entities/entity';
import { webhookSubscription, type StoredSubscription } from './entities/webhook-subscription';
import { db } from './dynamo/client';
import { tableName } from './config';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from './dynamo/table-definition';
import { batchGet, batchPut, getItem, isStorableKey, query, queryAll, queryPartition } from './dynamo/table-io';
import { exists, transactWrite, type TxWrite } from './dynamo/transact-write';
import { updateOf } from './dynamo/update-expression';
import { withRetries } from './dynamo/with-retries';

export type { StoredSubscription } from './entities/webhook-subscription';

export const sealingContext = webhookSubscription.sealingContext;
const subscriptionOf = webhookSubscription.fromItem;

const COUNT = webhookSubscription.countAttribute;

/** 422 for the create beyond the cap (contract §14). */
export const tooManySubscriptions = (): FieldError =>
  new FieldError(422, { webhook_subscriptions: [MESSAGES.atMostTwenty] });

/**
 * The create: the new item, which must not exist yet, and the business's count
 * moved up by one while it is below the cap (a concurrent create that would
 * pass it fails this condition: never a 21st).
 */
export function subscriptionPut(
  sub: Omit<StoredSubscription, 'version' | 'leaseUntil' | 'logN' | 'logDay' | 'ping'>,
): TxWrite[] {
  const put: TxWrite = {
    confirms: exists,
    item: {
      Put: {
        Item: webhookSubscription.newItem(sub),
        ConditionExpression: IF_ABSENT,
      },
    },
  };
  const count: TxWrite = {
    item: {
      Update: {
        Key: webhookSubscription.countKey(sub.businessId),
        ...updateOf(
          { add: { [COUNT]: 1 } },
          {
            expression: `attribute_not_exists(${COUNT}) OR ${COUNT} < :cap`,
            values: { ':cap': MAX_SUBSCRIPTIONS_PER_BUSINESS },
          },
        ),
      },
    },
    onConditionFailed: () => tooManySubscriptions(),
  };
  return [put, count];
}

export async function readSubscription(businessId: string, id: string): Promise<StoredSubscription | undefined> {
  return subscriptionOf(await getItem(webhookSubscription.key(businessId, id)));
}

/** Some subscriptions of one business by id: one consistent BatchGetItem (a business has at most 20). */
export async function readSubscriptionsById(
  businessId: string,
  ids: readonly string[],
): Promise<(StoredSubscription | undefined)[]> {
  const items = await batchGet(ids.map((id) => webhookSubscription.key(businessId, id)));
  return items.map(subscriptionOf);
}

/** Every subscription of a business, in creation order (one partition, consistent). */
export async function readSubscriptions(businessId: string): Promise<StoredSubscription[]> {
  const items = await queryAll({
    ...partitionQuery(webhookSubscription.patterns.ofBusiness, { businessId }),
    ConsistentRead: true,
  });
  return items.map((i) => subscriptionOf(i) as StoredSubscription);
}

/** A tombstone is written while the create's idempotency record can still be replayed (a minute to spare). */
const stillReplayable = (sub: StoredSubscription, now: number): boolean =>
  Date.parse(sub.createdAt) + (IDEMPOTENCY_TTL_SECONDS - 60) * 1000 > now;

/**
 * Deletes a subscription (404 when it does not exist): one transaction that
 * removes it, counts it out and turns its create's idempotency record into a
 * tombstone, so a replay of that create answers 410 `subscription_deleted`
 * (src/data/idempotency.ts) instead of the stored answer with its secret.
 */
export async function deleteSubscription(businessId: string, id: string, now = Date.now()): Promise<void> {
  const key = webhookSubscription.key(businessId, id);
  const gone = notFound('webhook_subscription', id);
  if (!isStorableKey(key)) throw gone;
  await withRetries(async () => {
    const sub = await readSubscription(businessId, id);
    if (!sub) throw gone;
    const writes: TxWrite[] = [
      {
        item: { Delete: { Key: key, ConditionExpression: IF_PRESENT } },
        onConditionFailed: () => gone,
        confirms: (stored) => stored === undefined,
      },
      {
        item: {
          Update: {
            Key: webhookSubscription.countKey(businessId),
            ...updateOf({ add: { [COUNT]: -1 } }),
          },
        },
      },
    ];
    if (sub.idempotencyPk !== undefined && stillReplayable(sub, now))
      writes.push(idempotencyTombstoneWrite(sub.idempotencyPk, now, 'subscription_deleted'));
    await transactWrite(writes);
  });
}

/**
 * Every active subscription whose next attempt is due at `now` (all pages:
 * caught-up ones all sort at 0, so a cut-off page would starve the rest).
 * Only the table keys are read from the index, which any projection has; the
 * dispatcher re-reads each item consistently.
 */
export async function readDueSubscriptions(now: number): Promise<{ businessId: string; id: string; dueAt: number }[]> {
  const items = await queryAll(webhookSubscription.dueQuery(now));
  return items.map((item) => ({ ...webhookSubscription.idOfKey(item), dueAt: webhookSubscription.dueSortOf(item) }));
}

const isConditionFailure = (error: unknown): boolean => (error as Error).name === 'ConditionalCheckFailedException';

async function conditionalUpdate(
  key: Key,
  input: { set: Record<string, unknown>; remove?: string[]; expectedVersion: number },
): Promise<boolean> {
  return (await conditionalWrite(key, input, 'NONE')) !== undefined;
}

/** The conditional update; the item as it now is (ALL_NEW) or `{}`, undefined when the condition failed. */
async function conditionalWrite(
  key: Key,
  input: { set: Record<string, unknown>; remove?: string[]; expectedVersion: number },
  returnValues: 'NONE' | 'ALL_NEW',
): Promise<Record<string, unknown> | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...updateOf(
          {
            set: { ...input.set, [webhookSubscription.versionAttribute]: input.expectedVersion + 1 },
            remove: input.remove,
          },
          {
            expression: `${IF_PRESENT} AND #version = :expected`,
            names: { '#version': webhookSubscription.versionAttribute },
            values: { ':expected': input.expectedVersion },
          },
        ),
        ReturnValues: returnValues,
      }),
    );
    return out.Attributes ?? {};
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** What a write that ends an attempt tells the run: a ping asked for meanwhile, still to send. */
export interface AfterWrite {
  readonly ping: PendingPing | null;
}

const afterWrite = (item: Record<string, unknown> | undefined): AfterWrite | undefined =>
  item && { ping: webhookSubscription.fromItem(item)?.ping ?? null };

/**
 * Takes the delivery lease of a subscription as read (version unchanged since),
 * optionally moving its cursor past entries it does not want. False: another
 * dispatcher run moved it, or it was deleted — this run stops.
 */
export const claimLease = (
  sub: StoredSubscription,
  leaseUntil: number,
  cursor: string | null,
  attempt: { seq: number; day: string },
): Promise<boolean> =>
  conditionalUpdate(webhookSubscription.key(sub.businessId, sub.id), {
    set: webhookSubscription.leaseSet(leaseUntil, cursor, attempt),
    expectedVersion: sub.version,
  });

/** Moves the cursor past entries the subscription does not want, without a delivery. */
export const skipTo = (sub: StoredSubscription, cursor: string): Promise<boolean> =>
  conditionalUpdate(webhookSubscription.key(sub.businessId, sub.id), {
    set: webhookSubscription.cursorSet(cursor),
    expectedVersion: sub.version,
  });

/**
 * Records the result of an attempt and releases the lease; conditioned on the
 * version the lease was taken at, so no other run can have moved it meanwhile.
 */
export async function recordAttempt(
  sub: StoredSubscription,
  leasedVersion: number,
  next: DeliveryState,
): Promise<AfterWrite | undefined> {
  const item = await conditionalWrite(
    webhookSubscription.key(sub.businessId, sub.id),
    { ...webhookSubscription.attemptUpdate(next), expectedVersion: leasedVersion },
    'ALL_NEW',
  );
  return afterWrite(item);
}

/**
 * Records that the ping `pingId` was attempted and releases the lease (conditioned like recordAttempt). A ping asked
 * for while this one was out has another id and stays pending.
 */
export async function recordPing(
  sub: StoredSubscription,
  leasedVersion: number,
  pingId: string,
): Promise<AfterWrite | undefined> {
  const item = await conditionalWrite(
    webhookSubscription.key(sub.businessId, sub.id),
    { ...webhookSubscription.pingDoneUpdate(sub, pingId), expectedVersion: leasedVersion },
    'ALL_NEW',
  );
  return afterWrite(item);
}

/**
 * Resumes a subscription as read (contract §26): active, due at once, from
 * `cursor` when given. Conditioned on the version read and moving it, so a
 * delivery run in flight cannot write its older cursor over this one (its next
 * conditional write fails and it stops); a run that moved it first makes this
 * re-run from its read.
 */
export function resumeWrite(sub: StoredSubscription, cursor: string | undefined, now: number): TxWrite {
  return {
    item: {
      Update: {
        Key: webhookSubscription.key(sub.businessId, sub.id),
        ...updateOf(
          {
            set: {
              ...webhookSubscription.resumeUpdate(cursor, now).set,
              [webhookSubscription.versionAttribute]: sub.version + 1,
            },
          },
          {
            expression: `${IF_PRESENT} AND #version = :expected`,
            names: { '#version': webhookSubscription.versionAttribute },
            values: { ':expected': sub.version },
          },
        ),
      },
    },
    onConditionFailed: () => 'retry',
  };
}

/**
 * Asks for a ping (contract §26): pending on the item and due now. The version
 * is left alone, so a delivery in flight records its outcome as usual; the
 * next run (or the poll after it) finds the ping. 404 when it does not exist.
 */
export function pingWrite(businessId: string, id: string, ping: PendingPing, now: number): TxWrite {
  if (!isStorableKey(webhookSubscription.key(businessId, id))) throw notFound('webhook_subscription', id);
  return {
    item: {
      Update: {
        Key: webhookSubscription.key(businessId, id),
        ...updateOf({ set: webhookSubscription.pingSet(ping, now) }, { expression: IF_PRESENT }),
      },
    },
    onConditionFailed: () => notFound('webhook_subscription', id),
    confirms: (stored) => (stored?.ping as PendingPing | undefined)?.id === ping.id,
  };
}

/** Marks `seq` as the first attempt of `day` (kept when the day already has its mark). */
export async function markDeliveryDay(sub: StoredSubscription, day: string, seq: number, at: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: webhookSubscription.dayMarkKey(sub.businessId, sub.id, day),
      ...updateOf({ set: webhookSubscription.dayMarkSet(seq, at) }),
    }),
  );
}

/** An attempt's item in the delivery log, to write with writeDeliveryLog. */
export const deliveryLogItem = (
  sub: StoredSubscription,
  seq: number,
  attempt: Omit<DeliveryAttempt, 'id'>,
): Record<string, unknown> => webhookSubscription.deliveryItem(sub.businessId, sub.id, seq, attempt);

/** Writes attempts to the delivery log: 25 per BatchWriteItem (plain puts, each item its own). */
export const writeDeliveryLog = (items: readonly Record<string, unknown>[]): Promise<void> => batchPut(items);

/** The first attempt number of `day` or a later day (one Query, at most one item), null when there is none. */
export async function readFirstDeliveryFrom(businessId: string, id: string, day: string): Promise<number | null> {
  const items = await query({
    KeyConditionExpression: '#pk = :p AND #sk BETWEEN :a AND :b',
    ExpressionAttributeNames: { '#pk': TABLE.partitionKey, '#sk': TABLE.sortKey },
    ExpressionAttributeValues: {
      ':p': webhookSubscription.dayMarkKey(businessId, id, day).PK,
      ':a': day,
      ':b': 'd99999999',
    },
    ConsistentRead: true,
    Limit: 1,
  });
  return items[0] ? webhookSubscription.seqOfDayMark(items[0]) : null;
}

/** The attempts numbered `from` to `to`, newest first (one Query of that key range). */
export async function readDeliveries(
  businessId: string,
  id: string,
  range: { from: number; to: number },
): Promise<DeliveryAttempt[]> {
  const items = await queryPartition(webhookSubscription.deliveryKey(businessId, id, 0).PK, {
    from: webhookSubscription.seqPad(range.from),
    to: webhookSubscription.seqPad(range.to),
  });
  return items.reverse().map(webhookSubscription.attemptOf);
}

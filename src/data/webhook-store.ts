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
 */
import type { DeliveryState, SubscriptionStatus } from '../domain/webhooks';
import { keys, type Key } from './keys';
import { webhookSubscription } from './entities/webhook-subscription';
import { db } from './client';
import { tableName } from './config';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItem, isStorableKey, queryAll, type Item, type TxWrite } from './table-io';

export interface StoredSubscription extends DeliveryState {
  readonly businessId: string;
  readonly id: string;
  readonly url: string;
  readonly types: readonly string[] | null;
  readonly createdAt: string;
  readonly secretSealed: string;
  readonly version: number;
  readonly leaseUntil: number;
}

/** The string a sealed secret is bound to (its item's key). */
export const sealingContext = (businessId: string, id: string): string => {
  const key = keys.webhookSubscription(businessId, id);
  return `${key.PK}/${key.SK}`;
};

export function subscriptionOf(item: Item | undefined): StoredSubscription | undefined {
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
    version: Number(item.version ?? 0),
    leaseUntil: Number(item.lease_until ?? 0),
  };
}

/** The create: the new item, which must not exist yet. */
export function subscriptionPut(sub: Omit<StoredSubscription, 'version' | 'leaseUntil'>): TxWrite {
  return {
    item: {
      Put: {
        Item: {
          ...keys.webhookSubscription(sub.businessId, sub.id),
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
          ...webhookSubscription.dueAt(0),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  };
}

export async function readSubscription(businessId: string, id: string): Promise<StoredSubscription | undefined> {
  return subscriptionOf(await getItem(keys.webhookSubscription(businessId, id)));
}

/** Every subscription of a business, in creation order (one partition, consistent). */
export async function readSubscriptions(businessId: string): Promise<StoredSubscription[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.webhookSubscriptions(businessId) },
    ConsistentRead: true,
  });
  return items.map((i) => subscriptionOf(i) as StoredSubscription);
}

/** Deletes a subscription; false when it did not exist. */
export async function deleteSubscription(businessId: string, id: string): Promise<boolean> {
  const key = keys.webhookSubscription(businessId, id);
  if (!isStorableKey(key)) return false;
  const out = await db().send(
    new DeleteCommand({
      TableName: tableName(),
      Key: key,
      ReturnValues: 'ALL_OLD',
    }),
  );
  return out.Attributes !== undefined;
}

/** The business id and subscription id in a subscription's key: keys.webhookSubscription read backwards. */
function subscriptionOfKey(key: Key): { businessId: string; id: string } {
  const [prefix, suffix] = keys.webhookSubscriptions('\u0000').split('\u0000') as [string, string];
  return { businessId: key.PK.slice(prefix.length, key.PK.length - suffix.length), id: key.SK };
}

/**
 * Every active subscription whose next attempt is due at `now` (all pages:
 * caught-up ones all sort at 0, so a cut-off page would starve the rest).
 * Only the table keys are read from the index, which any projection has; the
 * dispatcher re-reads each item consistently.
 */
export async function readDueSubscriptions(now: number): Promise<{ businessId: string; id: string }[]> {
  const items = await queryAll({ ...webhookSubscription.dueQuery(now), ProjectionExpression: 'PK, SK' });
  return items.map((i) => subscriptionOfKey({ PK: String(i.PK), SK: String(i.SK) }));
}

const isConditionFailure = (error: unknown): boolean => (error as Error).name === 'ConditionalCheckFailedException';

async function conditionalUpdate(
  key: Key,
  input: { set: Record<string, unknown>; remove?: string[]; expectedVersion: number },
): Promise<boolean> {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':expected': input.expectedVersion, ':next': input.expectedVersion + 1 };
  const sets = ['#version = :next'];
  Object.entries(input.set).forEach(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:v${i}`] = value;
    sets.push(`#a${i} = :v${i}`);
  });
  const removes = (input.remove ?? []).map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_exists(PK) AND #version = :expected',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Takes the delivery lease of a subscription as read (version unchanged since),
 * optionally moving its cursor past entries it does not want. False: another
 * dispatcher run moved it, or it was deleted — this run stops.
 */
export const claimLease = (sub: StoredSubscription, leaseUntil: number, cursor: string | null): Promise<boolean> =>
  conditionalUpdate(keys.webhookSubscription(sub.businessId, sub.id), {
    set: { lease_until: leaseUntil, cursor },
    expectedVersion: sub.version,
  });

/** Moves the cursor past entries the subscription does not want, without a delivery. */
export const skipTo = (sub: StoredSubscription, cursor: string): Promise<boolean> =>
  conditionalUpdate(keys.webhookSubscription(sub.businessId, sub.id), {
    set: { cursor },
    expectedVersion: sub.version,
  });

/**
 * Records the result of an attempt and releases the lease; conditioned on the
 * version the lease was taken at, so no other run can have moved it meanwhile.
 */
export function recordAttempt(sub: StoredSubscription, leasedVersion: number, next: DeliveryState): Promise<boolean> {
  const status: SubscriptionStatus = next.status;
  return conditionalUpdate(keys.webhookSubscription(sub.businessId, sub.id), {
    set: {
      status,
      cursor: next.cursor,
      attempts: next.attempts,
      next_attempt_at: next.nextAttemptAt,
      last_delivery_error: next.lastDeliveryError,
      ...(status === 'active' ? webhookSubscription.dueAt(next.nextAttemptAt) : {}),
    },
    remove: status === 'active' ? ['lease_until'] : ['lease_until', ...webhookSubscription.dueAttributes],
    expectedVersion: leasedVersion,
  });
}

import {
  BatchGetCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db } from './client';
import { tableName } from './config';
import type { Key } from './keys';
import { serviceUnavailable } from '../domain/errors';

export type Item = Record<string, unknown>;

/**
 * DynamoDB rejects keys over its size limits with a validation error; such a
 * key can never have been stored, so a read of it is simply "not found".
 */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;
export const isStorableKey = (key: Key): boolean =>
  Buffer.byteLength(key.PK) <= MAX_PARTITION_KEY_BYTES && Buffer.byteLength(key.SK) <= MAX_SORT_KEY_BYTES;

/** Strongly consistent single read. */
export async function getItem(key: Key): Promise<Item | undefined> {
  if (!isStorableKey(key)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return out.Item;
}

const keyId = (k: { PK: unknown; SK: unknown }): string => `${String(k.PK)}\u0000${String(k.SK)}`;

/**
 * Independent reads in one round trip (BatchGetItem, consistent). Results come
 * back in the order of `keys`, undefined where missing. Unprocessed keys (rare,
 * under throttling) are retried; that is the only case with a second call.
 */
export async function batchGet(keys: readonly Key[]): Promise<(Item | undefined)[]> {
  const unique = [...new Map(keys.filter(isStorableKey).map((k) => [keyId(k), k])).values()];
  const found = new Map<string, Item>();
  let pending: Key[] = unique;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= 4) throw serviceUnavailable();
    if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    const chunk = pending.slice(0, 100);
    const rest = pending.slice(100);
    const out = await db().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: chunk, ConsistentRead: true } } }),
    );
    for (const item of out.Responses?.[tableName()] ?? []) found.set(keyId(item as Key), item);
    pending = [...((out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? []), ...rest];
  }
  return keys.map((k) => found.get(keyId(k)));
}

/** A partition value over the key limit holds nothing (see isStorableKey). */
const partitionFits = (input: Omit<QueryCommandInput, 'TableName'>): boolean =>
  Object.values(input.ExpressionAttributeValues ?? {}).every(
    (v) => typeof v !== 'string' || Buffer.byteLength(v) <= MAX_PARTITION_KEY_BYTES,
  );

/** One Query call (no pagination: callers bound the key range so one page of results suffices). */
export async function query(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
  if (!partitionFits(input)) return [];
  const out = await db().send(new QueryCommand({ TableName: tableName(), ...input }));
  return out.Items ?? [];
}

/** Follows LastEvaluatedKey; only for bounded fallbacks (see docs/pagination.md). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
  if (!partitionFits(input)) return [];
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ TableName: tableName(), ...input, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

type RawTransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/** A transaction item without TableName: the data layer adds the one table. */
export type TransactItem = { [K in keyof RawTransactItem]?: Omit<NonNullable<RawTransactItem[K]>, 'TableName'> };

/** A write of a transaction and what a failed condition on it means. */
export interface TxWrite {
  readonly item: TransactItem;
  /** Maps this item's failed condition (with the stored item, if any) to an error; 'retry' re-runs the whole operation. */
  readonly onConditionFailed?: (stored: Item | undefined) => Error | 'retry';
}

export class RetryOperation extends Error {
  constructor() {
    super('retry');
    this.name = 'RetryOperation';
  }
}

interface CancellationReason {
  Code?: string;
  Item?: Item;
}

/**
 * All-or-nothing write of every item (TransactWriteItems). A failed condition
 * is mapped by the item that owns it; conflicts with a concurrent transaction
 * are retried by `withRetries`.
 */
export async function transactWrite(writes: readonly TxWrite[]): Promise<void> {
  const TransactItems = writes.map((w) => withTable(w.item));
  try {
    await db().send(new TransactWriteCommand({ TransactItems }));
  } catch (error) {
    const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons;
    if ((error as Error).name !== 'TransactionCanceledException' || !reasons) throw error;
    reasons.forEach((reason, i) => {
      if (reason.Code !== 'ConditionalCheckFailed') return;
      // The document client does not translate errors: the old item arrives in wire format.
      const stored = reason.Item ? unmarshall(reason.Item as Record<string, AttributeValue>) : undefined;
      const mapped = writes[i]?.onConditionFailed?.(stored);
      if (mapped === 'retry' || mapped === undefined) throw new RetryOperation();
      throw mapped;
    });
    if (reasons.some((r) => r.Code === 'TransactionConflict')) throw new RetryOperation();
    if (reasons.some((r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded'))
      throw serviceUnavailable();
    throw error;
  }
}

function withTable(item: TransactItem): RawTransactItem {
  const TableName = tableName();
  const [kind, body] = Object.entries(item)[0] as [string, Record<string, unknown>];
  return { [kind]: { ...body, TableName, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } } as RawTransactItem;
}

/**
 * Optimistic operations (read, decide, conditional write) re-run from the read
 * when a concurrent writer got there first. Bounded, jittered; then 503.
 */
export async function withRetries<T>(operation: () => Promise<T>, attempts = 16): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof RetryOperation)) throw error;
      if (attempt + 1 >= attempts) throw serviceUnavailable();
      // Full jitter, capped: writers racing for one list counter spread out instead of colliding again.
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** Math.min(attempt, 6)));
    }
  }
}

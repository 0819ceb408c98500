import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { tableName } from '../config';
import { isBusinessConfigKey, type Key } from './keys';
import { serviceUnavailable } from '../../domain/errors';
import { sleepWithin } from '../deadline';
import { TABLE } from './table-definition';
import { currentOperation } from './operation-state';

/**
 * The table's primitives: reads and bulk puts of the one table, within the
 * request's deadline. Transactions are src/data/dynamo/transact-write.ts; the retry
 * of optimistic operations src/data/dynamo/with-retries.ts.
 */
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

/**
 * An item another layer needs read with this request's own reads (a read's token, src/http/auth.ts): whoever reads
 * on its behalf adds `key` to one of its BatchGetItems and hands the item found (or none) to `took`.
 */
export interface ReadAlong {
  readonly key: Key;
  took(item: Item | undefined): void;
}

/** One string per item key (reads shared within an operation; the local server's turns). */
export const keyId = (k: { PK: unknown; SK: unknown }): string => `${String(k.PK)}\u0000${String(k.SK)}`;

/**
 * Independent reads in one round trip (BatchGetItem, consistent). Results come
 * back in the order of `keys`, undefined where missing. Unprocessed keys (rare,
 * under throttling) are retried; that is the only case with a second call.
 */
export async function batchGet(keys: readonly Key[]): Promise<(Item | undefined)[]> {
  const state = currentOperation();
  if (!state) return readBatch(keys);
  const wanted = keys.filter((k) => !state.kept.has(keyId(k)));
  const read = await readBatch(wanted);
  const fresh = new Map(wanted.map((k, i) => [keyId(k), read[i]]));
  for (const [i, k] of wanted.entries()) {
    const item = read[i];
    if (item && isBusinessConfigKey(k)) state.kept.set(keyId(k), item);
  }
  return keys.map((k) => state.kept.get(keyId(k)) ?? fresh.get(keyId(k)));
}

/** `read` of `keys` and, in the same call, of `along`'s key, whose item goes to `along.took`. */
export async function readWithAlong(
  read: (keys: readonly Key[]) => Promise<(Item | undefined)[]>,
  keys: readonly Key[],
  along: ReadAlong | undefined,
): Promise<(Item | undefined)[]> {
  if (!along) return read(keys);
  const found = await read([...keys, along.key]);
  along.took(found.pop());
  return found;
}

/**
 * Items by key, eventually consistent (half the read units of batchGet): an
 * item written or deleted within about a second may come back as it was.
 * For reads whose callers accept that (list pages' records, docs/pagination.md).
 */
export const batchGetEventually = (keys: readonly Key[]): Promise<(Item | undefined)[]> => readBatch(keys, false);

async function readBatch(keys: readonly Key[], consistent = true): Promise<(Item | undefined)[]> {
  const unique = [...new Map(keys.filter(isStorableKey).map((k) => [keyId(k), k])).values()];
  const found = new Map<string, Item>();
  // At most 100 keys per BatchGetItem: the parts of a larger read (a bulk import's) go out at once.
  const parts: Key[][] = [];
  for (let i = 0; i < unique.length; i += 100) parts.push(unique.slice(i, i + 100));
  await Promise.all(parts.map((part) => readPart(part, consistent, found)));
  return keys.map((k) => found.get(keyId(k)));
}

/** One BatchGetItem of at most 100 keys into `found`; unprocessed keys (rare, under throttling) are read again. */
async function readPart(keys: readonly Key[], consistent: boolean, found: Map<string, Item>): Promise<void> {
  let pending: readonly Key[] = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= 4) throw serviceUnavailable();
    if (attempt > 0) await sleepWithin(50 * 2 ** attempt);
    const out = await db().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: [...pending], ConsistentRead: consistent } } }),
    );
    for (const item of out.Responses?.[tableName()] ?? []) found.set(keyId(item as Key), item);
    pending = (out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? [];
  }
}

/**
 * Plain puts, 25 per BatchWriteItem, unprocessed ones re-sent with backoff
 * until all are in (bulk loads only: not atomic, for the import and seeding).
 * Within a request's deadline, like every other retry loop.
 */
export const batchPut = (items: readonly Item[]): Promise<void> =>
  batchWrite(items.map((Item) => ({ PutRequest: { Item } })));

/** Plain deletes by key, as batchPut (not atomic: for emptying a sandbox, src/data/sandbox-store.ts). */
export const batchDelete = (keys: readonly Key[]): Promise<void> =>
  batchWrite(keys.map(({ PK, SK }) => ({ DeleteRequest: { Key: { PK, SK } } })));

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

async function batchWrite(requests: readonly WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleepWithin(50 * 2 ** Math.min(attempt, 6));
      const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
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

/**
 * One page of a Query from `start` (a LastEvaluatedKey) on: its items and the
 * key to continue from, undefined after the last page. For walks that keep
 * their place between calls (the export worker).
 */
export async function queryPage(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  start?: Key,
): Promise<{ items: Item[]; last: Key | undefined }> {
  if (!partitionFits(input)) return { items: [], last: undefined };
  const out = await db().send(new QueryCommand({ TableName: tableName(), ...input, ExclusiveStartKey: start }));
  return { items: out.Items ?? [], last: out.LastEvaluatedKey as Key | undefined };
}

/**
 * One consistent Query of a table partition, or of its sort keys from `from`
 * to `to` (both included): small partitions read whole (a list's summary, a
 * few of its position maps).
 */
export function queryPartition(pk: string, range?: { readonly from: string; readonly to: string }): Promise<Item[]> {
  return query({
    KeyConditionExpression: range ? '#pk = :p AND #sk BETWEEN :a AND :b' : '#pk = :p',
    ExpressionAttributeNames: range
      ? { '#pk': TABLE.partitionKey, '#sk': TABLE.sortKey }
      : { '#pk': TABLE.partitionKey },
    ExpressionAttributeValues: { ':p': pk, ...(range ? { ':a': range.from, ':b': range.to } : {}) },
    ConsistentRead: true,
  });
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

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
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
import { isBusinessConfigKey, type Key } from './keys';
import { serviceUnavailable } from '../domain/errors';
import { keepingInReserve, remainingMs, sleepWithin, untilHardDeadline } from './deadline';
import { countConditionFailed, itemKindOf, writeStats } from './write-stats';
import { retryPauseMs } from './retry-pause';
import { heldByOthers, releaseTurns, takeTurns, untilWanted } from './process-turns';

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

/** One string per item key (turns, shared reads). */
export const keyId = (k: { PK: unknown; SK: unknown }): string => `${String(k.PK)}\u0000${String(k.SK)}`;

/**
 * Independent reads in one round trip (BatchGetItem, consistent). Results come
 * back in the order of `keys`, undefined where missing. Unprocessed keys (rare,
 * under throttling) are retried; that is the only case with a second call.
 */
export async function batchGet(keys: readonly Key[]): Promise<(Item | undefined)[]> {
  const state = operationState.getStore();
  if (!state) return readBatch(keys);
  yieldToHolders(keys.map(keyId), state);
  const wanted = keys.filter((k) => !state.kept.has(keyId(k)));
  const read = await readBatch(wanted);
  const fresh = new Map(wanted.map((k, i) => [keyId(k), read[i]]));
  for (const [i, k] of wanted.entries()) {
    const item = read[i];
    if (item && isBusinessConfigKey(k)) state.kept.set(keyId(k), item);
  }
  return keys.map((k) => state.kept.get(keyId(k)) ?? fresh.get(keyId(k)));
}

/**
 * What the attempts of one optimistic operation (withRetries) share:
 * - `kept`: what they read once, the business config, which only an import
 *   changes, so a re-run after a refusal reads again only what concurrent
 *   writers move (counters, lanes, records). Under contention most re-runs are
 *   such refusals, and the config is the largest item most writes read.
 * - `owner` and `held`: the operation's turns on the items it was refused on
 *   (src/data/process-turns.ts).
 */
interface OperationState {
  readonly kept: Map<string, Item>;
  readonly owner: symbol;
  held: Set<string>;
}

const operationState = new AsyncLocalStorage<OperationState>();

/**
 * An attempt about to read or write an item another writer of this process
 * holds the turn on would race it through the store: it waits for its turn
 * instead (a re-run, nothing sent).
 */
function yieldToHolders(ids: readonly string[], state: OperationState): void {
  const held = heldByOthers(ids, state.owner);
  if (held.length > 0) throw new RetryOperation(held, false);
}

/**
 * Items by key, eventually consistent (half the read units of batchGet): an
 * item written or deleted within about a second may come back as it was.
 * For reads whose callers accept that (list pages' records, docs/pagination.md).
 */
export const batchGetEventually = (keys: readonly Key[]): Promise<(Item | undefined)[]> =>
  readBatch(keys, false);

async function readBatch(keys: readonly Key[], consistent = true): Promise<(Item | undefined)[]> {
  const unique = [...new Map(keys.filter(isStorableKey).map((k) => [keyId(k), k])).values()];
  const found = new Map<string, Item>();
  let pending: Key[] = unique;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= 4) throw serviceUnavailable();
    if (attempt > 0) await sleepWithin(50 * 2 ** attempt);
    const chunk = pending.slice(0, 100);
    const rest = pending.slice(100);
    const out = await db().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: chunk, ConsistentRead: consistent } } }),
    );
    for (const item of out.Responses?.[tableName()] ?? []) found.set(keyId(item as Key), item);
    pending = [...((out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? []), ...rest];
  }
  return keys.map((k) => found.get(keyId(k)));
}

/**
 * Plain puts, 25 per BatchWriteItem, unprocessed ones re-sent with backoff
 * until all are in (bulk loads only: not atomic, for the import and seeding).
 * Within a request's deadline, like every other retry loop.
 */
export async function batchPut(items: readonly Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
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
  /**
   * Maps this item's failed condition to an error; 'retry' re-runs the whole operation. `stored` is the
   * item as the refusal found it only if the item asks for it (`ReturnValuesOnConditionCheckFailure:
   * 'ALL_OLD'`): DynamoDB then serialises it into the refusal, which on a large item costs more than the
   * mapping of a counter's or record's refusal needs (they re-read).
   */
  readonly onConditionFailed?: (stored: Item | undefined) => Error | 'retry';
  /**
   * This item, read back consistently, tells whether the transaction was
   * applied: how an answer DynamoDB lost (500, timeout, reset) is resolved.
   */
  readonly confirms?: (stored: Item | undefined) => boolean;
}

/** Witness of a create: the new item (its key holds a fresh id) exists. */
export const exists = (stored: Item | undefined): boolean => stored !== undefined;

/** Witness of a versioned update: the item carries exactly the version and timestamp this write set. */
export const carries =
  (version: number, updatedAt: string) =>
  (stored: Item | undefined): boolean =>
    Number(stored?.version) === version && stored?.updated_at === updatedAt;

export class RetryOperation extends Error {
  /**
   * `contended`: the items (keyId) whose refusal or holder made the operation re-run; `refused`: whether
   * the store refused a transaction (or the attempt yielded before sending anything).
   */
  constructor(
    readonly contended: readonly string[] = [],
    readonly refused = true,
  ) {
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
 *
 * When DynamoDB may have applied it without saying so (500, timeout, reset,
 * deadline), the outcome is found out before anyone answers: the request
 * carries a ClientRequestToken, so DynamoDB applies a re-send of it at most
 * once (the SDK's own retries included), and the write marked `confirms` is
 * read back consistently. Once sent, it has until the request's hard deadline
 * (the function's timeout less margins, src/data/deadline.ts) for that, past
 * the 5 s answer budget: a late 201 rather than a 503 for a write that happened.
 */
export async function transactWrite(writes: readonly TxWrite[]): Promise<void> {
  const state = operationState.getStore();
  if (state)
    yieldToHolders(
      writes.map((w) => keyId(keyOf(w.item))),
      state,
    );
  const input: TransactWriteCommandInput = {
    TransactItems: writes.map((w) => withTable(w.item)),
    ClientRequestToken: randomUUID(),
  };
  // Started within the request's budget; once sent, answered and if need be confirmed within its hard deadline.
  if (remainingMs() <= 0) throw serviceUnavailable();
  writeStats.transactions += 1;
  try {
    await untilHardDeadline(() =>
      keepingInReserve(resolutionReserveMs(), () => db().send(new TransactWriteCommand(input))),
    );
  } catch (error) {
    if (!outcomeUnknown(error)) throw cancellationError(error, writes);
    writeStats.ambiguous += 1;
    await untilHardDeadline(() => resolveOutcome(input, writes));
  }
}

/** A third of what is left, at most 1.5 s: enough for a few reads and one re-send. */
const resolutionReserveMs = (): number => Math.min(1500, remainingMs() / 3);

const DEFINITE_REJECTIONS = new Set([
  'TransactionCanceledException',
  'ConditionalCheckFailedException',
  'ValidationException',
  'IdempotentParameterMismatchException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ResourceNotFoundException',
]);

/**
 * Whether the transaction may have been applied although this error came
 * back. A definite rejection is definite only if it was the first attempt:
 * an earlier SDK attempt may have been applied and its answer lost.
 */
function outcomeUnknown(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { attempts?: number } };
  if (e?.name && DEFINITE_REJECTIONS.has(e.name)) return (e.$metadata?.attempts ?? 1) > 1;
  return true;
}

async function resolveOutcome(input: TransactWriteCommandInput, writes: readonly TxWrite[]): Promise<void> {
  const witness = writes.find((w) => w.confirms);
  const applied = async (): Promise<boolean> => {
    if (!witness?.confirms) return false;
    try {
      return witness.confirms(await getItem(keyOf(witness.item)));
    } catch {
      return false;
    }
  };
  for (let round = 0; ; round++) {
    if (remainingMs() <= 0) throw serviceUnavailable();
    if (round > 0) await sleepWithin(25 * round);
    if (await applied()) return;
    try {
      // Same token: DynamoDB applies it now if it never was, or answers success if it was (10-minute window).
      await db().send(new TransactWriteCommand(input));
      return;
    } catch (error) {
      if (outcomeUnknown(error) && !isCancellation(error)) continue;
      // A definite refusal of the same request: nothing of it is in flight any more.
      if (await applied()) return;
      throw cancellationError(error, writes);
    }
  }
}

const isCancellation = (error: unknown): boolean => (error as Error)?.name === 'TransactionCanceledException';

/** What a refused transaction means for the caller (RetryOperation re-runs it from the read). */
function cancellationError(error: unknown, writes: readonly TxWrite[]): unknown {
  const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons;
  if (!isCancellation(error) || !reasons) return error;
  countRefusal(reasons, writes);
  for (const [i, reason] of reasons.entries()) {
    if (reason.Code !== 'ConditionalCheckFailed') continue;
    // The document client does not translate errors: the old item arrives in wire format.
    const stored = reason.Item ? unmarshall(reason.Item as Record<string, AttributeValue>) : undefined;
    const mapped = writes[i]?.onConditionFailed?.(stored);
    return mapped === 'retry' || mapped === undefined ? new RetryOperation(refusedKeys(reasons, writes)) : mapped;
  }
  if (reasons.some((r) => r.Code === 'TransactionConflict')) return new RetryOperation(refusedKeys(reasons, writes));
  if (reasons.some((r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded'))
    return serviceUnavailable();
  return error;
}

/** The items a refused transaction failed on (a condition, or another transaction holding them). */
function refusedKeys(reasons: readonly CancellationReason[], writes: readonly TxWrite[]): string[] {
  return reasons.flatMap((reason, i) => {
    const write = writes[i];
    return write && (reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict')
      ? [keyId(keyOf(write.item))]
      : [];
  });
}

function countRefusal(reasons: readonly CancellationReason[], writes: readonly TxWrite[]): void {
  reasons.forEach((reason, i) => {
    const write = writes[i];
    if (reason.Code === 'ConditionalCheckFailed' && write) countConditionFailed(itemKindOf(keyOf(write.item)));
  });
  if (reasons.some((r) => r.Code === 'TransactionConflict')) writeStats.transactionConflicts += 1;
}

function keyOf(item: TransactItem): Key {
  const body = (item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as Item;
  return { PK: String(body.PK), SK: String(body.SK) };
}

/**
 * The turn on the items a refusal named, with those the operation holds
 * already (all released and taken again in order, so no two writers wait for
 * each other). `'waited'`: another writer of this process had it, and has
 * finished with it; the re-run can start at once.
 */
async function takeTurnOn(contended: readonly string[], state: OperationState): Promise<'free' | 'waited' | 'held'> {
  if (contended.every((key) => state.held.has(key))) return 'held';
  const wanted = new Set([...state.held, ...contended]);
  releaseTurns(state.held, state.owner);
  state.held = new Set();
  const turn = await takeTurns(wanted, state.owner, remainingMs());
  if (turn === 'timeout') {
    writeStats.exhausted += 1;
    throw serviceUnavailable();
  }
  state.held = wanted;
  if (turn === 'waited') writeStats.turnWaits += 1;
  return turn;
}

function withTable(item: TransactItem): RawTransactItem {
  const TableName = tableName();
  const [kind, body] = Object.entries(item)[0] as [string, Record<string, unknown>];
  return { [kind]: { ...body, TableName } } as RawTransactItem;
}

/**
 * Optimistic operations (read, decide, conditional write) re-run from the read
 * (all of it but the business config: OperationState) when a concurrent writer
 * got there first. A writer refused on items that other writers of this
 * process were refused on too waits for its turn on them and re-runs when it
 * comes (src/data/process-turns.ts); otherwise it pauses for a time scaled to
 * the refused attempt that shrinks as refusals add up (retryPauseMs). Bounded
 * in attempts and by the request's deadline; then 503.
 */
export async function withRetries<T>(operation: () => Promise<T>, attempts = 40): Promise<T> {
  const outer = operationState.getStore();
  if (outer) return retrying(operation, attempts, outer);
  const state: OperationState = { kept: new Map(), owner: Symbol('writer'), held: new Set() };
  try {
    return await operationState.run(state, () => retrying(operation, attempts, state));
  } finally {
    releaseTurns(state.held, state.owner);
  }
}

async function retrying<T>(operation: () => Promise<T>, attempts: number, state: OperationState): Promise<T> {
  const began = performance.now();
  let attempt = 0;
  let refusals = 0;
  try {
    for (; ; attempt++) {
      const started = performance.now();
      try {
        return await operation();
      } catch (error) {
        if (!(error instanceof RetryOperation)) throw error;
        if (error.refused) refusals += 1;
        if (attempt + 1 >= attempts) {
          writeStats.exhausted += 1;
          throw serviceUnavailable();
        }
        writeStats.retries += 1;
        // Within the request's deadline: 503 + Retry-After rather than a function timeout. The re-run reads
        // again: re-running from the refused items' current values (ALL_OLD) was measured worse
        // (docs/pagination.md, consistency notes).
        const pauseStarted = performance.now();
        // Pausing spaces a refused writer from its rivals; one that waited for its turn, or was not refused
        // (it yielded to a holder that has since finished), has none left in this process.
        if ((await takeTurnOn(error.contended, state)) === 'waited' || !error.refused) {
          writeStats.pauseMs += performance.now() - pauseStarted;
          continue;
        }
        const pause = sleepWithin(retryPauseMs(pauseStarted - started, attempt + 1, Math.random(), remainingMs()));
        const wanted = untilWanted(state.owner);
        try {
          await Promise.race([pause, wanted.wanted]);
        } catch (e) {
          writeStats.exhausted += 1;
          throw e;
        } finally {
          wanted.stop();
          pause.catch(() => undefined);
        }
        writeStats.pauseMs += performance.now() - pauseStarted;
      }
    }
  } finally {
    writeStats.attempts[attempt + 1] = (writeStats.attempts[attempt + 1] ?? 0) + 1;
    writeStats.refusals[refusals] = (writeStats.refusals[refusals] ?? 0) + 1;
    writeStats.operationMs += performance.now() - began;
  }
}

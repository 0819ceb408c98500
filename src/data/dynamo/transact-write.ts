import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, startBesideRequest } from './client';
import { tableName } from '../config';
import { itemKindOf, type Key } from './keys';
import { tableKeyOf } from '../entities/entity';
import { serviceUnavailable } from '../../domain/errors';
import { keepingInReserve, remainingMs, sleepWithin, untilHardDeadline } from '../deadline';
import { countConditionFailed, writeStats } from './write-stats';
import { RetryOperation } from './operation-state';
import { getItem, type Item } from './table-io';

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
  /** Upkeep to start, once, beside the request when the transaction is committed (never waited for). */
  readonly afterCommit?: AfterCommit;
}

/** Upkeep a committed write hands on: one `run` per `id` and transaction. */
export interface AfterCommit {
  readonly id: string;
  readonly run: () => Promise<void>;
}

/** Starts the upkeep of a committed transaction's writes beside the request (startBesideRequest). */
function startAfterCommit(writes: readonly TxWrite[]): void {
  const runs = new Map(writes.flatMap((w) => (w.afterCommit ? [[w.afterCommit.id, w.afterCommit.run] as const] : [])));
  for (const run of runs.values()) startBesideRequest(run);
}

/**
 * How a bulk import (src/services/import-rows.ts) runs the write of one row
 * through the path of its single request: everything up to the transaction
 * is the request's; the import adds items to it (its claims and the row's
 * result) or, validating, sends none.
 */
export interface WriteHooks {
  /** Check only: the transaction is built and not sent. */
  readonly dryRun?: boolean;
  /** More items for the record's transaction, given the record's id. */
  readonly extraWrites?: (recordId: string) => TxWrite[];
  /** Set once the write is committed (or would be, dry): an update that changes nothing leaves it unset. */
  wrote?: boolean;
}

/** The transaction of a single-record write, with what `hooks` add; dry: not sent. */
export async function commitWrite(
  writes: readonly TxWrite[],
  recordId: string,
  hooks: WriteHooks | undefined,
): Promise<void> {
  if (!hooks) return transactWrite(writes);
  if (!hooks.dryRun) await transactWrite([...writes, ...(hooks.extraWrites?.(recordId) ?? [])]);
  hooks.wrote = true;
}

/** DynamoDB's most items in one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;

/** Witness of a create: the new item (its key holds a fresh id) exists. */
export const exists = (stored: Item | undefined): boolean => stored !== undefined;

/** Witness of a versioned update: the item carries exactly the version and timestamp this write set. */
export const carries =
  (version: number, updatedAt: string) =>
  (stored: Item | undefined): boolean =>
    Number(stored?.version) === version && stored?.updated_at === updatedAt;

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
  startAfterCommit(writes);
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
  // A client middleware that saw the refusal may already have waited for what refused it (the local server's).
  const retry = (): RetryOperation => new RetryOperation((error as { retryAfterMs?: number }).retryAfterMs);
  for (const [i, reason] of reasons.entries()) {
    if (reason.Code !== 'ConditionalCheckFailed') continue;
    // The document client does not translate errors: the old item arrives in wire format.
    const stored = reason.Item ? unmarshall(reason.Item as Record<string, AttributeValue>) : undefined;
    const mapped = writes[i]?.onConditionFailed?.(stored);
    return mapped === 'retry' || mapped === undefined ? retry() : mapped;
  }
  if (reasons.some((r) => r.Code === 'TransactionConflict')) return retry();
  if (reasons.some((r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded'))
    return serviceUnavailable();
  return error;
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
  return tableKeyOf(body);
}

function withTable(item: TransactItem): RawTransactItem {
  const TableName = tableName();
  const [kind, body] = Object.entries(item)[0] as [string, Record<string, unknown>];
  return { [kind]: { ...body, TableName } } as RawTransactItem;
}

/**
 * Per-process counters of optimistic write contention: how often a write
 * transaction was refused, on which kind of item, and how the operation went
 * on. `npm run load` prints them per request; tests assert on them. A few
 * additions per transaction in production.
 */
export const writeStats = {
  /** TransactWriteItems sent by transactWrite (each attempt of an operation counts). */
  transactions: 0,
  /** Refused because a condition failed, by the kind of item whose condition failed (itemKindOf of src/data/dynamo/keys.ts). */
  conditionFailed: {} as Record<string, number>,
  /** Refused because another transaction held an item (TransactionConflict). */
  transactionConflicts: 0,
  /** Operations re-run after a refusal (withRetries). */
  retries: 0,
  /** Operations that ran out of attempts or time while retrying (answered 503). */
  exhausted: 0,
  /** Transactions whose answer was lost or late (error, timeout, deadline): their outcome was looked up. */
  ambiguous: 0,
  /** Optimistic operations (withRetries) by the number of attempts they made, however they ended. */
  attempts: {} as Record<number, number>,
  /** The same operations by the number of their transactions the store refused. */
  refusals: {} as Record<number, number>,
  /** Time of those operations, and how much of it went into pauses between attempts (ms). */
  operationMs: 0,
  pauseMs: 0,
  reset(): void {
    this.attempts = {};
    this.refusals = {};
    this.operationMs = 0;
    this.pauseMs = 0;
    this.transactions = 0;
    this.conditionFailed = {};
    this.transactionConflicts = 0;
    this.retries = 0;
    this.exhausted = 0;
    this.ambiguous = 0;
  },
};

export function countConditionFailed(kind: string): void {
  writeStats.conditionFailed[kind] = (writeStats.conditionFailed[kind] ?? 0) + 1;
}

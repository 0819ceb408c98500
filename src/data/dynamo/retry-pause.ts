/**
 * How long an optimistic operation pauses after a refusal before it reads
 * again (src/data/dynamo/with-retries.ts; docs/pagination.md, consistency
 * notes), unless the refusal says how long (RetryOperation.retryAfterMs). Pure.
 *
 * - In units of the refused attempt itself (read + transaction as the store
 *   serves it right now): writers racing for one counter commit about one per
 *   such critical section, so that is the spacing that avoids colliding again,
 *   on DynamoDB (tens of ms) and on a loaded DynamoDB Local (hundreds) alike.
 * - Shorter the more often the operation was refused: a writer that has lost
 *   several rounds reads again sooner than one that lost its first, so it
 *   usually wins the next round.
 * - Never so long that another attempt as long as the refused one no longer
 *   fits in the `leftMs` of the request's deadline: then it pauses less.
 * Rules measured and not kept: docs/decisions/003-write-contention.md.
 */
export function retryPauseMs(attemptMs: number, refusals: number, random: number, leftMs = Infinity): number {
  const attempt = Math.max(0, attemptMs);
  return Math.min((random * 2 * attempt) / Math.max(1, refusals), Math.max(0, leftMs - attempt));
}

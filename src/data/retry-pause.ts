/**
 * How long an optimistic operation pauses after a refusal before it reads
 * again (src/data/with-retries.ts; docs/pagination.md, consistency
 * notes), unless it waited for its turn behind a writer of its own process
 * (src/data/process-turns.ts): then it reads at once. Pure.
 *
 * - In units of the refused attempt itself (read + transaction as the store
 *   serves it right now): writers racing for one counter commit about one per
 *   such critical section, so that is the spacing that avoids colliding again,
 *   on DynamoDB (tens of ms) and on a loaded DynamoDB Local (hundreds) alike. A
 *   fixed base (10 ms × 2^attempt) was far below it there: the first retries
 *   collided again, and 0.8 re-runs per request in `npm run load` cost as much
 *   DynamoDB Local time as the useful work.
 * - Shorter the more often the operation was refused: a writer that has lost
 *   several rounds reads again sooner than one that lost its first, so it
 *   usually wins the next round. Growing pauses did the opposite (a writer that
 *   had lost six times slept up to 640 ms while newcomers went straight in),
 *   which made the slowest creates lose 10 or more rounds in a row.
 * - Never so long that another attempt as long as the refused one no longer
 *   fits in the `leftMs` of the request's deadline: then it pauses less (a
 *   long pause on a slow store used to turn into a 503 with time to spare).
 */
export function retryPauseMs(attemptMs: number, refusals: number, random: number, leftMs = Infinity): number {
  const attempt = Math.max(0, attemptMs);
  return Math.min((random * 2 * attempt) / Math.max(1, refusals), Math.max(0, leftMs - attempt));
}

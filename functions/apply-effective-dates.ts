/**
 * The effective-date job Lambda (contract §26; not an API route): every 15
 * minutes, a minute after each quarter hour (EventBridge rule,
 * lib/api-stack.ts), so every business whose local midnight has passed since
 * the last run gets its day's effective-date writes within minutes
 * (src/services/effective-dates.ts). A business whose day was already done
 * costs nothing beyond its registry entry.
 *
 * It stops starting new groups STOP_BEFORE_MS before its timeout; the next
 * run does the rest (a day counts as done only once all of it is written).
 * A failure fails the invocation (Errors alarm) and Lambda retries it; runs
 * are safe to repeat and to overlap.
 */
import type { Context } from 'aws-lambda';
import { runWithDeadline } from '../src/services/job-runtime';
import { logger } from '../src/http/logger';
import {
  asEffectiveJob,
  EffectiveRunFailed,
  runEffectiveDates,
  type EffectiveResult,
} from '../src/services/effective-dates';

/** No new group starts in the last 30 s: one group is a read and a transaction, well under that. */
const STOP_BEFORE_MS = 30_000;
/** The hard bound of every DynamoDB call: a few seconds before the timeout, for the log line. */
const HARD_STOP_BEFORE_MS = 5_000;
/**
 * The run's clock lags this far behind the wall clock: a job created in the last moments before midnight is in
 * the day index (a GSI, eventually consistent) before the run that reads that day's entries.
 */
const INDEX_SETTLE_MS = 30_000;

export async function handler(_event: unknown, context: Context): Promise<EffectiveResult> {
  const remaining = context.getRemainingTimeInMillis();
  let result: EffectiveResult;
  try {
    result = await runWithDeadline(remaining - HARD_STOP_BEFORE_MS, () =>
      asEffectiveJob(() =>
        runEffectiveDates({ nowMs: Date.now() - INDEX_SETTLE_MS, deadline: Date.now() + remaining - STOP_BEFORE_MS }),
      ),
    );
  } catch (error) {
    logger.error('effective-date run', {
      updated: error instanceof EffectiveRunFailed ? error.updated : 0,
      error: error as Error,
    });
    throw error;
  }
  logger.info('effective-date run', { updated: result.updated, complete: result.complete });
  return result;
}

/**
 * The retention job Lambda (contract §17; not an API route): once a day
 * (EventBridge rule, lib/api-stack.ts) it erases every application whose
 * updated_at is older than its business's application_retention_days,
 * through the same erasure as DELETE (src/services/retention.ts).
 *
 * It stops starting erasures STOP_BEFORE_MS before its timeout; the next run
 * resumes where it stopped (the walk starts at the oldest live application,
 * and erased ones are gone), so a backlog larger than one run is worked off
 * over several days. Every DynamoDB call is bounded by the function's own
 * deadline, so an erasure in flight never outlives the invocation. A failure
 * fails the invocation (Errors alarm).
 */
import type { Context } from 'aws-lambda';
import { runWithDeadline } from '../src/services/job-runtime';
import { logger } from '../src/http/logger';
import { asRetentionJob, RetentionFailed, runRetention, type RetentionResult } from '../src/services/retention';

/** No new erasure starts in the last 30 s: one erasure is a read and a transaction, well under that. */
const STOP_BEFORE_MS = 30_000;
/** The hard bound of every DynamoDB call: a few seconds before the timeout, for the log line. */
const HARD_STOP_BEFORE_MS = 5_000;

export async function handler(_event: unknown, context: Context): Promise<RetentionResult> {
  const remaining = context.getRemainingTimeInMillis();
  let result: RetentionResult;
  try {
    result = await runWithDeadline(remaining - HARD_STOP_BEFORE_MS, () =>
      asRetentionJob(() => runRetention({ nowMs: Date.now(), deadline: Date.now() + remaining - STOP_BEFORE_MS })),
    );
  } catch (error) {
    // The runbook's `retention run` ERROR line, with what the run erased before it failed; the invocation fails.
    logger.error('retention run', {
      erased: error instanceof RetentionFailed ? error.erased : 0,
      error: error as Error,
    });
    throw error;
  }
  logger.info('retention run', { erased: result.erased, complete: result.complete });
  return result;
}

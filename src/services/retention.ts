/**
 * Retention of applications (contract §17): every application of a business
 * with `application_retention_days` whose updated_at is older than that is
 * erased through the same path as DELETE (eraseApplication: counters, maps,
 * feed entry and redaction, idempotency tombstone), by the daily scheduled job
 * (functions/apply-retention.ts) and `npm run admin -- retention run`.
 *
 * Finding the due ones: the order of writes (`updatedlist-keys`) holds a business's
 * applications by updated_at, oldest at the lowest positions, so the walk reads
 * it from the start in batches of BATCH_SIZE keys (one Query each: no request
 * reads more than a batch) and ends at the first application that is not due
 * and still where the walk saw it (endsWalk). Each application is re-read and
 * decided on inside its own erasure attempt, so a PUT that makes it recent wins.
 *
 * Safe to run twice or concurrently: an application another run (or a DELETE)
 * erased first is `gone`, not counted, never an error. Resumable: a run that
 * reaches its deadline stops between erasures; the next run starts over at the
 * oldest live position, which is where this one stopped (erased ones left the
 * index). Businesses are found in the registry partition written by import
 * (readRegistry), never by a Scan.
 */
import { readWriteOrderFrom } from '../data/application-store';
import { inCallScope } from '../data/dynamo/call-scope';
import { readRegistry, type RegisteredBusiness } from '../data/business-store';
import { endsWalk, isDue, retentionCutoff, runOrder } from '../domain/retention';
import { eraseApplication } from './applications';
import { runWithOrigin } from '../data/write-origin';
import { RETENTION_ORIGIN } from '../domain/audit';

/** The scheduled job's function: its DynamoDB calls are checked against WORKER_GRANTS of src/http/grants.ts. */
export const RETENTION_JOB_NAME = 'apply-retention';

/** Runs `run` with its DynamoDB calls attributed to the retention job (Lambda, tests). */
export const asRetentionJob = <T>(run: () => Promise<T>): Promise<T> => inCallScope(RETENTION_JOB_NAME, run);

/** Keys read per Query of the walk. */
export const BATCH_SIZE = 25;

export interface RetentionProgress {
  readonly businessId: string;
  /** Businesses done before this one, and how many the run has. */
  readonly businessIndex: number;
  readonly businesses: number;
  /** Erased so far in this run (all businesses). */
  readonly erased: number;
  /** Applications looked at in this business so far. */
  readonly examined: number;
}

export interface RetentionRun {
  /** What time it is (admin `--now`): due = updated_at older than now - retention days. */
  readonly nowMs: number;
  /** Only this business (admin `--business`). */
  readonly businessId?: string;
  /** Epoch ms after which no new erasure starts (Lambda: its remaining time less a margin). */
  readonly deadline?: number;
  readonly batchSize?: number;
  readonly onProgress?: (progress: RetentionProgress) => void;
}

export interface RetentionResult {
  readonly erased: number;
  /** False when the deadline stopped the run before every business was walked to its end. */
  readonly complete: boolean;
}

/** Its erasures' feed entries name the retention job as who made them (contract §20), whoever started the run. */
export const runRetention = (run: RetentionRun): Promise<RetentionResult> =>
  runWithOrigin(RETENTION_ORIGIN, () => retain(run));

/**
 * A run that stopped on an error (a DynamoDB fault its retries did not absorb) after erasing `erased`: the job's log
 * and the admin tool still report those, else the next run's count is all an operator sees and the sum falls short.
 * The next run resumes as after a deadline.
 */
export class RetentionFailed extends Error {
  constructor(
    readonly erased: number,
    cause: unknown,
  ) {
    super(`retention run failed after erasing ${erased}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'RetentionFailed';
  }
}

async function retain(run: RetentionRun): Promise<RetentionResult> {
  const registered = await readRegistry(run.businessId);
  const withRetention = registered.filter(
    (b): b is RegisteredBusiness & { retentionDays: number } => b.retentionDays !== undefined,
  );
  const order = runOrder(withRetention, run.nowMs);
  // Counted as each erasure lands, so a run that fails part-way can say how many it erased (RetentionFailed).
  const tally = { erased: 0 };
  try {
    for (const [index, business] of order.entries()) {
      const cutoff = retentionCutoff(run.nowMs, business.retentionDays);
      const complete = await walkBusiness(business.businessId, cutoff, run, tally, (examined) =>
        run.onProgress?.({
          businessId: business.businessId,
          businessIndex: index,
          businesses: order.length,
          erased: tally.erased,
          examined,
        }),
      );
      if (!complete) return { erased: tally.erased, complete: false };
    }
  } catch (error) {
    throw new RetentionFailed(tally.erased, error);
  }
  return { erased: tally.erased, complete: true };
}

/** Walks one business; false when the deadline stopped it before its end. */
async function walkBusiness(
  businessId: string,
  cutoffMs: number,
  run: RetentionRun,
  tally: { erased: number },
  progress: (examined: number) => void,
): Promise<boolean> {
  const outOfTime = (): boolean => run.deadline !== undefined && Date.now() >= run.deadline;
  let examined = 0;
  let from = 1;
  for (;;) {
    if (outOfTime()) return false;
    const batch = await readWriteOrderFrom(businessId, from, run.batchSize ?? BATCH_SIZE);
    if (batch.length === 0) {
      // The batch before already reported these figures; a business with nothing to walk reports once.
      if (examined === 0) progress(examined);
      return true;
    }
    for (const { id, updatePosition } of batch) {
      if (outOfTime()) return false;
      const outcome = await eraseApplication(businessId, id, (app) => !isDue(app.updated_at, cutoffMs));
      examined += 1;
      if (outcome.kind === 'erased') tally.erased += 1;
      if (endsWalk(outcome, updatePosition)) {
        progress(examined);
        return true;
      }
    }
    progress(examined);
    from = batch[batch.length - 1]!.updatePosition + 1;
  }
}

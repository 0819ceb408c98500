/**
 * One run of an import (functions/run-import.ts): applies the uploaded file
 * from its checkpoint through the row applier (src/services/import-rows.ts)
 * as far as its time allows. Apart from the API's side (src/services/imports.ts),
 * so the import routes' bundles carry neither the applier nor every record's
 * validators.
 *
 * The run: the declared size first; then the whole file is read once
 * without writing (not UTF-8, not JSON Lines or CSV, too many rows: the
 * import fails and nothing is written); then the rows go through the row
 * applier (src/services/import-rows.ts), which stores each row's result in
 * the transaction of the row's records. The run stores its checkpoint (last
 * row counted, counts) at least every PROGRESS_INTERVAL_MS and before its
 * time is up; a run that stops anywhere (timeout, crash, throttling) is
 * resumed by the next from that checkpoint, and rows after it whose results
 * are stored are counted, not applied again. At the end: the results file
 * (from the stored results, in row order), the final state with its
 * `import.completed` / `import.failed` feed entry in one transaction, and the
 * upload deleted. An upload that lands after its import ended is deleted.
 *
 * No import stays `running` for nobody: the run function tries a failing
 * run again and then ends the import (`run_failed`, failImport), and the
 * watchdog (watchImports) ends one whose progress has not moved for longer
 * than a run may take.
 */
import { randomUUID } from 'node:crypto';
import {
  PROGRESS_INTERVAL_MS,
  addCounts,
  effectiveStatus,
  isStalled,
  zeroCounts,
  type FailureReason,
  type ImportCounts,
  type ImportJob,
} from '../domain/imports';
import { ImportFileError, readImportRows, type CellKind } from '../domain/import-rows';
import { type FieldMessages } from '../domain/errors';
import type { WriteOrigin } from '../domain/audit';
import {
  ImportStateChanged,
  endImportWrites,
  importEndedEntry,
  importLaneOwner,
  leaseImport,
  readImport,
  readImportsInProgress,
  readRowResults,
  releaseImportLease,
  saveImportProgress,
} from '../data/import-store';
import { deleteUpload, uploadBytes, uploadSize, writeResultsFile } from '../data/s3/import-objects';
import { readBusinessConfig } from '../data/business-store';
import { feedAppendWrites, feedCounterKey, feedLaneStateOf } from '../data/feed-store';
import { batchGet } from '../data/dynamo/table-io';
import { transactWrite } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';
import { runWithOrigin } from '../data/write-origin';
import { applyImportRows, importCellKinds } from './import-rows';
import { deniedBodyFields, rightsOfToken } from './token-view';
import { inTurns, turnTaker } from './import-turns';

/** The run's function: its DynamoDB calls are checked against WORKER_GRANTS['run-import'] (src/http/routes.ts). */
export const IMPORT_WORKER_NAME = 'run-import';

/** A run holds the import this long past its last checkpoint; a run that died is taken over after it. */
const LEASE_MS = 60_000;
/** What a run keeps free before its time is up: the last checkpoint and the hand-over. */
const RESERVE_MS = 10_000;

export interface RunOptions {
  /** Milliseconds this run may still take (a Lambda's getRemainingTimeInMillis); Infinity: to the end. */
  readonly timeLeftMs?: () => number;
  /** Row messages in the import's language (the http layer's catalogues). */
  readonly translate?: (fields: FieldMessages, language: string) => FieldMessages;
  /** How long a read of the upload waits for bytes before it fails (default UPLOAD_READ_IDLE_MS). */
  readonly readIdleMs?: number;
  /**
   * The share of its process's time the run takes at most, 0 to 1 (default 1: all it can, between turns for
   * other I/O); the local server serves requests beside it (src/services/import-turns.ts).
   */
  readonly share?: number;
}

/** What a run did: finished the import, stopped to be resumed, or found nothing to do (no upload, ended, leased). */
export type RunOutcome =
  | { readonly outcome: 'finished'; readonly status: 'completed' | 'failed' }
  | { readonly outcome: 'paused' }
  | { readonly outcome: 'idle' };
const IDLE: RunOutcome = { outcome: 'idle' };

/** The writes of an import are made by it, on behalf of the token and request that created it. */
const originOf = (job: ImportJob): WriteOrigin => ({
  actor: { type: 'import', import_id: job.id, token_id: job.tokenId, token_name: job.tokenName },
  request_id: job.requestId,
});

/** One run of an import: from its checkpoint as far as its time allows. */
export async function runImport(businessId: string, id: string, options: RunOptions = {}): Promise<RunOutcome> {
  const timeLeft = options.timeLeftMs ?? (() => Infinity);
  const current = await readImport(businessId, id);
  if (!current || !['awaiting_upload', 'running'].includes(current.status)) {
    // An upload that came after its import ended (the form is valid 15 minutes): nothing reads it, it goes.
    await deleteUpload(businessId, id);
    return IDLE;
  }
  const size = await uploadSize(businessId, id);
  if (size === undefined) {
    // Nothing uploaded: an expired upload ends the import, else the upload's own event starts the run.
    if (effectiveStatus(current, Date.now()).failureReason === 'upload_expired')
      return fail(current, 'upload_expired', { status: current.status });
    return IDLE;
  }
  const lease = randomUUID();
  const job = await leaseImport(businessId, id, lease, LEASE_MS);
  if (!job) return IDLE;
  try {
    if (current.status === 'awaiting_upload' && effectiveStatus(current, Date.now()).status === 'failed')
      return await fail(job, 'upload_expired', { lease });
    if (size !== job.size) return await fail(job, 'size_mismatch', { lease });
    const config = await readBusinessConfig(businessId);
    const kinds = importCellKinds(job.type, config);
    // Other requests of this process go between the run's slices (src/services/import-turns.ts).
    const take = turnTaker(options.share);
    if (!job.checked) {
      const failed = await checkWholeFile(job, lease, kinds, options.readIdleMs, take);
      if (failed) return failed;
    }

    let counts: ImportCounts = job.counts;
    let checkpoint = job.checkpoint;
    let savedAt = Date.now();
    // The run acts with its creating token's rights: checked at its start, at each checkpoint and at its end.
    // (Only a run created without a token, as the import bench does, has no token to check.)
    const rights = job.tokenHash === undefined ? undefined : await rightsOfToken(job.tokenHash);
    if (rights === 'revoked') return await fail(job, 'token_revoked', { lease });
    const tokenGone = async (): Promise<boolean> =>
      job.tokenHash !== undefined && (await rightsOfToken(job.tokenHash)) === 'revoked';
    const bytes = inTurns(uploadBytes(businessId, id, options.readIdleMs), take);
    const lines = applyImportRows(readImportRows(bytes, job.format, kinds), {
      businessId,
      type: job.type,
      mode: job.mode,
      origin: originOf(job),
      importId: job.id,
      resumeAfter: job.checkpoint,
      ...(rights?.grants?.[job.type] !== undefined
        ? { denied: (body, create) => deniedBodyFields(rights, job.type, body, create) }
        : {}),
      ...(options.translate ? { translate: (fields) => options.translate!(fields, job.language) } : {}),
    });
    for await (const line of lines) {
      await take();
      counts = addCounts(counts, [line]);
      checkpoint = line.row;
      if (timeLeft() < RESERVE_MS) {
        await saveImportProgress(job, lease, LEASE_MS, { checkpoint, counts });
        await releaseImportLease(job, lease);
        return { outcome: 'paused' };
      }
      if (Date.now() - savedAt >= PROGRESS_INTERVAL_MS) {
        await saveImportProgress(job, lease, LEASE_MS, { checkpoint, counts });
        savedAt = Date.now();
        if (await tokenGone()) return await fail(job, 'token_revoked', { lease });
      }
    }
    if (await tokenGone()) return await fail(job, 'token_revoked', { lease });
    await writeResultsFile(businessId, id, resultLines(businessId, id));
    await finish(job, { lease }, { status: 'completed', counts });
    await deleteUpload(businessId, id);
    return { outcome: 'finished', status: 'completed' };
  } catch (error) {
    if (error instanceof ImportStateChanged) return IDLE;
    // Give the lease back so the next run need not wait for it to expire; the error is the caller's.
    await releaseImportLease(job, lease).catch(() => undefined);
    throw error;
  }
}

/**
 * Reads the whole upload once without writing: a file that is not UTF-8, JSON Lines or CSV, or has too many rows
 * fails the import (nothing written); one that passes is marked checked, so a resumed run does not read it again.
 */
async function checkWholeFile(
  job: ImportJob,
  lease: string,
  kinds: (field: string) => CellKind,
  readIdleMs: number | undefined,
  take: () => Promise<void>,
): Promise<RunOutcome | undefined> {
  try {
    const bytes = inTurns(uploadBytes(job.businessId, job.id, readIdleMs), take);
    for await (const row of readImportRows(bytes, job.format, kinds)) void row;
  } catch (error) {
    if (error instanceof ImportFileError) return await fail(job, error.reason, { lease }, error.failureRow);
    throw error;
  }
  await saveImportProgress(job, lease, LEASE_MS, { checkpoint: 0, counts: zeroCounts(), checked: true });
  return undefined;
}

/** Every stored result as its line of the results file, in row order. */
async function* resultLines(businessId: string, id: string): AsyncGenerator<string> {
  let start: Awaited<ReturnType<typeof readRowResults>>['next'];
  do {
    const page = await readRowResults(businessId, id, 0, start);
    for (const line of page.lines) yield JSON.stringify(line);
    start = page.next;
  } while (start);
}

/**
 * Ends the import as failed, under the lease of the run that fails it or in
 * the state it was read in. A whole-file failure wrote nothing (zero counts);
 * `run_failed` and `token_revoked` keep the counts of the rows applied before.
 */
async function fail(
  job: ImportJob,
  reason: FailureReason,
  condition: EndCondition,
  failureRow?: number,
): Promise<RunOutcome> {
  const counts = reason === 'run_failed' || reason === 'token_revoked' ? await appliedCounts(job) : zeroCounts();
  await finish(job, condition, { status: 'failed', counts, failureReason: reason, failureRow });
  await deleteUpload(job.businessId, job.id).catch(() => undefined);
  return { outcome: 'finished', status: 'failed' };
}

/** The counts of every row with a stored result: the checkpoint's, and those stored after it. */
async function appliedCounts(job: ImportJob): Promise<ImportCounts> {
  let counts = job.counts;
  let start: Awaited<ReturnType<typeof readRowResults>>['next'];
  do {
    const page = await readRowResults(job.businessId, job.id, job.checkpoint, start);
    counts = addCounts(counts, page.lines);
    start = page.next;
  } while (start);
  return counts;
}

/**
 * Ends a running import whose runs kept failing (`run_failed`): the run
 * function's last try. False when the import is no longer running, or a run
 * moved it since it was read (then that run is its owner).
 */
export async function failImport(businessId: string, id: string): Promise<boolean> {
  const job = await readImport(businessId, id);
  if (!job || job.status !== 'running') return false;
  try {
    await fail(job, 'run_failed', { status: 'running', progressAt: job.progressAt, unleasedAt: Date.now() });
    return true;
  } catch (error) {
    if (error instanceof ImportStateChanged) return false;
    throw error;
  }
}

/**
 * The watchdog: every import in progress, of every business, whose progress
 * has not moved for IMPORT_STALL_MS (src/domain/imports.ts) ends as
 * `run_failed`; one whose upload never came ends as `upload_expired`. The
 * imports it ended.
 */
export async function watchImports(
  now = Date.now(),
): Promise<{ businessId: string; id: string; reason: FailureReason }[]> {
  const ended: { businessId: string; id: string; reason: FailureReason }[] = [];
  let start: Awaited<ReturnType<typeof readImportsInProgress>>['next'];
  do {
    const page = await readImportsInProgress(start);
    for (const ref of page.refs) {
      const job = await readImport(ref.businessId, ref.id);
      if (!job) continue;
      const reason: FailureReason | undefined = isStalled(job, now)
        ? 'run_failed'
        : effectiveStatus(job, now).failureReason === 'upload_expired'
          ? 'upload_expired'
          : undefined;
      if (!reason) continue;
      try {
        await fail(job, reason, { status: job.status, progressAt: job.progressAt, unleasedAt: now });
        ended.push({ ...ref, reason });
      } catch (error) {
        if (!(error instanceof ImportStateChanged)) throw error;
      }
    }
    start = page.next;
  } while (start);
  return ended;
}

/** What the end of an import requires: the lease of the run ending it, or the state it was read in. */
type EndCondition = { lease: string } | { status: string; progressAt?: string; unleasedAt?: number };

/** The final state and its feed entry (data: the import as GET shows it), in one transaction. */
async function finish(
  job: ImportJob,
  condition: EndCondition,
  end: { status: 'completed' | 'failed'; counts: ImportCounts; failureReason?: FailureReason; failureRow?: number },
): Promise<void> {
  const lane = importLaneOwner(job.type);
  await runWithOrigin(originOf(job), () =>
    withRetries(async () => {
      const [counter] = await batchGet([feedCounterKey(job.businessId, lane, job.id)]);
      const updatedAt = new Date().toISOString();
      const ended: ImportJob = {
        ...job,
        status: end.status,
        counts: end.counts,
        failureReason: end.failureReason ?? null,
        failureRow: end.failureRow ?? null,
        updatedAt,
      };
      await transactWrite([
        ...endImportWrites(
          job,
          {
            status: end.status,
            counts: end.counts,
            updated_at: updatedAt,
            ...(end.failureReason ? { failure_reason: end.failureReason } : {}),
            ...(end.failureRow !== undefined ? { failure_row: end.failureRow } : {}),
          },
          condition,
        ),
        ...feedAppendWrites(job.businessId, feedLaneStateOf(lane, job.id, counter), [importEndedEntry(ended)]),
      ]);
    }),
  );
}

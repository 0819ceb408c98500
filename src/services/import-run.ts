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
 * upload deleted.
 */
import { randomUUID } from 'node:crypto';
import {
  PROGRESS_INTERVAL_MS,
  addCounts,
  effectiveStatus,
  zeroCounts,
  type FailureReason,
  type ImportCounts,
  type ImportJob,
} from '../domain/imports';
import { ImportFileError, readImportRows } from '../domain/import-rows';
import { type FieldMessages } from '../domain/errors';
import type { WriteOrigin } from '../domain/audit';
import {
  ImportStateChanged,
  endImportWrites,
  importEndedEntry,
  importLaneOwner,
  leaseImport,
  readImport,
  readRowResults,
  releaseImportLease,
  saveImportProgress,
} from '../data/import-store';
import { deleteUpload, uploadBytes, uploadSize, writeResultsFile } from '../data/import-objects';
import { readBusinessConfig } from '../data/business-store';
import { feedAppendWrites, feedCounterKey, feedLaneStateOf } from '../data/feed-store';
import { batchGet } from '../data/table-io';
import { transactWrite } from '../data/transact-write';
import { withRetries } from '../data/with-retries';
import { runWithOrigin } from '../data/write-origin';
import { applyImportRows, importCellKinds } from './import-rows';
import { deniedBodyFields, rightsOfToken } from './token-view';

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
  if (!current || !['awaiting_upload', 'running'].includes(current.status)) return IDLE;
  const size = await uploadSize(businessId, id);
  if (size === undefined) {
    // Nothing uploaded: an expired upload ends the import, else the upload's own event starts the run.
    if (effectiveStatus(current, Date.now()).failureReason === 'upload_expired') return fail(current, 'upload_expired');
    return IDLE;
  }
  const lease = randomUUID();
  const job = await leaseImport(businessId, id, lease, LEASE_MS);
  if (!job) return IDLE;
  try {
    if (current.status === 'awaiting_upload' && effectiveStatus(current, Date.now()).status === 'failed')
      return await fail(job, 'upload_expired', lease);
    if (size !== job.size) return await fail(job, 'size_mismatch', lease);
    const config = await readBusinessConfig(businessId);
    const kinds = importCellKinds(job.type, config);
    if (!job.checked) {
      try {
        for await (const row of readImportRows(uploadBytes(businessId, id), job.format, kinds)) void row;
      } catch (error) {
        if (error instanceof ImportFileError) return await fail(job, error.reason, lease);
        throw error;
      }
      await saveImportProgress(job, lease, LEASE_MS, { checkpoint: 0, counts: zeroCounts(), checked: true });
    }

    let counts: ImportCounts = job.counts;
    let checkpoint = job.checkpoint;
    let savedAt = Date.now();
    // The run acts with its creating token's rights: checked at its start, at each checkpoint and at its end.
    // (An import stored without its token's hash has every right.)
    const rights = job.tokenHash === undefined ? undefined : await rightsOfToken(job.tokenHash);
    if (rights === 'revoked') return await fail(job, 'token_revoked', lease, counts);
    const tokenGone = async (): Promise<boolean> =>
      job.tokenHash !== undefined && (await rightsOfToken(job.tokenHash)) === 'revoked';
    const lines = applyImportRows(readImportRows(uploadBytes(businessId, id), job.format, kinds), {
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
        if (await tokenGone()) return await fail(job, 'token_revoked', lease, counts);
      }
    }
    if (await tokenGone()) return await fail(job, 'token_revoked', lease, counts);
    await writeResultsFile(businessId, id, resultLines(businessId, id));
    await finish(job, lease, { status: 'completed', counts });
    await deleteUpload(businessId, id);
    return { outcome: 'finished', status: 'completed' };
  } catch (error) {
    if (error instanceof ImportStateChanged) return IDLE;
    // Give the lease back so the next run need not wait for it to expire; the error is the caller's.
    await releaseImportLease(job, lease).catch(() => undefined);
    throw error;
  }
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

/** Ends the import failed; `counts` of the rows applied before (token_revoked), else none. */
async function fail(
  job: ImportJob,
  reason: FailureReason,
  lease?: string,
  counts: ImportCounts = zeroCounts(),
): Promise<RunOutcome> {
  await finish(job, lease, { status: 'failed', counts, failureReason: reason });
  await deleteUpload(job.businessId, job.id).catch(() => undefined);
  return { outcome: 'finished', status: 'failed' };
}

/** The final state and its feed entry (data: the import as GET shows it), in one transaction. */
async function finish(
  job: ImportJob,
  lease: string | undefined,
  end: { status: 'completed' | 'failed'; counts: ImportCounts; failureReason?: FailureReason },
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
          },
          lease ? { lease } : { status: job.status },
        ),
        ...feedAppendWrites(job.businessId, feedLaneStateOf(lane, job.id, counter), [importEndedEntry(ended)]),
      ]);
    }),
  );
}

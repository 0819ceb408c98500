/**
 * Bulk imports (contract §22): POST /imports hands out a presigned upload,
 * GET /imports[/{id}] shows them, DELETE cancels one still awaiting its
 * upload, and the run (runImport) applies the uploaded file once it lands.
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
import { randomBytes, randomUUID } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import {
  PROGRESS_INTERVAL_MS,
  RECORD_OF,
  addCounts,
  effectiveStatus,
  importView,
  isInProgress,
  zeroCounts,
  type FailureReason,
  type ImportCounts,
  type ImportFormat,
  type ImportJob,
  type ImportMode,
  type ImportType,
} from '../domain/imports';
import { ImportFileError, readImportRows } from '../domain/import-rows';
import { importFinished, importInProgress, notFound, type FieldMessages } from '../domain/errors';
import { created, etagOf, noContent, ok, type ApiResult } from '../domain/result';
import type { WriteOrigin } from '../domain/audit';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { importJob } from '../data/entities/import-job';
import { idempotentCreate, type Idempotency } from '../data/idempotency';
import {
  ImportStateChanged,
  createImportWrites,
  endImportWrites,
  leaseImport,
  readForCreate,
  readImport,
  readImportPage,
  readRowResults,
  releaseImportLease,
  saveImportProgress,
} from '../data/import-store';
import {
  deleteUpload,
  presignImportUpload,
  resultsUrl,
  uploadBytes,
  uploadSize,
  writeResultsFile,
} from '../data/import-objects';
import { readBusinessConfig } from '../data/business-store';
import { feedAppendWrites, feedCounterKey, feedLaneStateOf } from '../data/feed-store';
import { batchGet } from '../data/table-io';
import { transactWrite } from '../data/transact-write';
import { withRetries } from '../data/with-retries';
import { RetryOperation } from '../data/operation-state';
import { runWithOrigin } from '../data/write-origin';
import { applyImportRows, importCellKinds } from './import-rows';

export const importLocation = (id: string): string => `${API_PREFIX}/imports/${encodeURIComponent(id)}`;

/** Who creates an import: its records' feed entries name this token and request; row messages are in `language`. */
export interface ImportCreator {
  readonly tokenId: string;
  readonly tokenName: string;
  readonly requestId: string | null;
  readonly language: string;
}

export interface ImportRequest {
  readonly type: ImportType;
  readonly format: ImportFormat;
  readonly mode: ImportMode;
  readonly size: number;
}

/**
 * POST /imports: the count, the import in progress and the idempotency record
 * (one BatchGetItem; the import in progress a GetItem more), the presigned
 * upload, one transaction (count and active import, the new item). Another
 * import in progress: 409 naming it; one whose upload expired is replaced.
 */
export async function createImport(
  businessId: string,
  request: ImportRequest,
  idem: Idempotency | undefined,
  creator: ImportCreator,
): Promise<ApiResult> {
  return idempotentCreate(
    idem,
    async (key) => {
      const state = await readForCreate(businessId, key);
      // A retry of the first POST replays its answer, whatever is in progress now.
      if (state.idempotency && Number(state.idempotency.expires_at ?? 0) * 1000 >= Date.now())
        return { ...state, id: '', upload: undefined };
      if (state.active && isInProgress(state.active, Date.now()))
        throw importInProgress(state.active.id, state.active.status);
      const id = importJob.idAt(state.n + 1, randomBytes(8).toString('hex'));
      return { ...state, id, upload: await presignImportUpload(businessId, id, request.format) };
    },
    (state) => {
      const now = new Date().toISOString();
      const job: ImportJob = {
        id: state.id,
        businessId,
        ...request,
        status: 'awaiting_upload',
        language: creator.language,
        createdAt: now,
        updatedAt: now,
        counts: zeroCounts(),
        failureReason: null,
        tokenId: creator.tokenId,
        tokenName: creator.tokenName,
        requestId: creator.requestId,
        checkpoint: 0,
        checked: false,
      };
      const expiresAt = new Date(Date.now() + 15 * 60 * 1000).toISOString();
      const body = {
        id: job.id,
        type: job.type,
        format: job.format,
        mode: job.mode,
        status: job.status,
        created_at: job.createdAt,
        upload: { method: 'POST', url: state.upload?.url, fields: state.upload?.fields, expires_at: expiresAt },
      };
      const writes = createImportWrites(job, state);
      // An import whose upload never came (24 hours) ends as failed when the next one takes its place.
      if (state.active)
        writes.push(...endImportWrites(state.active, expiredSet(), { status: 'awaiting_upload' }).slice(0, 1));
      return { result: created(body, importLocation(job.id), { ETag: etagOf(job.id, 1) }), writes };
    },
  );
}

const expiredSet = (): Record<string, unknown> => ({
  status: 'failed',
  failure_reason: 'upload_expired' satisfies FailureReason,
  updated_at: new Date().toISOString(),
});

/** GET /imports/{id}: the import (404 also for a type the token may not see), results_url once completed. */
export async function showImport(
  businessId: string,
  id: string,
  mayRead: (type: ImportType) => void,
): Promise<ApiResult> {
  const job = await readImport(businessId, id);
  if (!job) throw notFound('import', id);
  mayRead(job.type);
  return ok(await viewOf(job), {});
}

async function viewOf(job: ImportJob): Promise<Record<string, unknown>> {
  const now = Date.now();
  const completed = effectiveStatus(job, now).status === 'completed';
  return importView(job, now, completed ? await resultsUrl(job.businessId, job.id) : undefined);
}

/** GET /imports?page=n: newest first; a page is one key range of the imports partition. */
export async function listImports(businessId: string, page: PageRequest) {
  // Positions counted from the newest: page 1 holds the highest ones. The count is read with the page, so the
  // range is computed from an upper bound first and clipped by the count.
  const { total } = await readImportPage(businessId, null);
  const range = pagePositions(page, total);
  const first = range ? Math.max(1, total - range.last + 1) : 0;
  const last = range ? total - range.first + 1 : 0;
  const { jobs } = range ? await readImportPage(businessId, { first, last }) : { jobs: [] };
  return { entries: await Promise.all(jobs.map(viewOf)), total };
}

/**
 * DELETE /imports/{id}: an import awaiting its upload is cancelled (204; its
 * upload form becomes useless: a file that lands anyway is never applied);
 * a running one answers 409, an ended one too.
 */
export async function cancelImport(
  businessId: string,
  id: string,
  mayWrite: (type: ImportType) => void,
): Promise<ApiResult> {
  return withRetries(async () => {
    const job = await readImport(businessId, id);
    if (!job) throw notFound('import', id);
    mayWrite(job.type);
    const { status } = effectiveStatus(job, Date.now());
    if (status === 'running') throw importInProgress(job.id, status);
    if (status !== 'awaiting_upload') throw importFinished(job.id, status);
    try {
      await transactWrite(
        endImportWrites(
          job,
          { status: 'cancelled', updated_at: new Date().toISOString() },
          { status: 'awaiting_upload' },
        ),
      );
    } catch (error) {
      // It started meanwhile: answer from its state now.
      if (error instanceof ImportStateChanged) throw new RetryOperation();
      throw error;
    }
    await deleteUpload(businessId, id).catch(() => undefined);
    return noContent();
  });
}

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

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
    const lines = applyImportRows(readImportRows(uploadBytes(businessId, id), job.format, kinds), {
      businessId,
      type: job.type,
      mode: job.mode,
      origin: originOf(job),
      importId: job.id,
      resumeAfter: job.checkpoint,
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
      }
    }
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

async function fail(job: ImportJob, reason: FailureReason, lease?: string): Promise<RunOutcome> {
  await finish(job, lease, { status: 'failed', counts: zeroCounts(), failureReason: reason });
  await deleteUpload(job.businessId, job.id).catch(() => undefined);
  return { outcome: 'finished', status: 'failed' };
}

/** The final state and its feed entry (data: the import as GET shows it), in one transaction. */
async function finish(
  job: ImportJob,
  lease: string | undefined,
  end: { status: 'completed' | 'failed'; counts: ImportCounts; failureReason?: FailureReason },
): Promise<void> {
  const lane = RECORD_OF[job.type] === 'application' ? 'application' : 'employee';
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
        ...feedAppendWrites(job.businessId, feedLaneStateOf(lane, job.id, counter), [
          {
            type: end.status === 'completed' ? 'import.completed' : 'import.failed',
            id: job.id,
            occurred_at: updatedAt,
            data: importView(ended, Date.now()),
          },
        ]),
      ]);
    }),
  );
}

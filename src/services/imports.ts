/**
 * Bulk imports (contract §22): POST /imports hands out a presigned upload,
 * GET /imports[/{id}] shows them, DELETE cancels one still awaiting its
 * upload, and the run (runImport, src/services/import-run.ts) applies the
 * uploaded file once it lands.
 */
import { randomBytes } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import {
  effectiveStatus,
  importView,
  isInProgress,
  zeroCounts,
  type FailureReason,
  type ImportFormat,
  type ImportJob,
  type ImportMode,
  type ImportType,
} from '../domain/imports';
import { importFinished, importInProgress, notFound } from '../domain/errors';
import { created, etagOf, noContent, ok, type ApiResult } from '../domain/result';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { importJob } from '../data/entities/import-job';
import { idempotentCreate } from '../data/idempotency';
import type { RequestContext } from './request-context';
import {
  ImportStateChanged,
  createImportWrites,
  endImportItemWrites,
  endImportWrites,
  importEndedEntry,
  readForCreate,
  readImport,
  readImportPage,
} from '../data/import-store';
import { deleteUpload, presignImportUpload, resultsUrl } from '../data/s3/import-objects';
import { feedAppendWrites } from '../data/feed-store';
import { transactWrite } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';
import { RetryOperation } from '../data/dynamo/operation-state';

export const importLocation = (id: string): string => `${API_PREFIX}/imports/${encodeURIComponent(id)}`;

/** Who creates an import: its records' feed entries name this token and request; row messages are in `language`. */
/** Who creates an import: the request's token, as its origin names it, and the language of its report. */
export function importCreatorOf(context: RequestContext, language: string): ImportCreator {
  const { actor, request_id } = context.origin();
  return {
    tokenId: actor.type === 'token' ? actor.token_id : '',
    tokenName: actor.type === 'token' ? actor.token_name : '',
    ...(context.auth.tokenHash !== undefined ? { tokenHash: context.auth.tokenHash } : {}),
    requestId: request_id,
    language,
  };
}

export interface ImportCreator {
  readonly tokenId: string;
  readonly tokenName: string;
  /** The creating token's hash: the run acts with its rights (contract §25). */
  readonly tokenHash?: string;
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
  context: RequestContext,
  body: ImportRequest,
  creator: ImportCreator,
): Promise<ApiResult> {
  const { businessId } = context;
  const idem = context.idempotency(body);
  const request: ImportRequest = { ...body, mode: body.mode ?? 'apply' };
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
        failureRow: null,
        progressAt: now,
        tokenId: creator.tokenId,
        tokenName: creator.tokenName,
        ...(creator.tokenHash !== undefined ? { tokenHash: creator.tokenHash } : {}),
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
      // An import whose upload never came (24 hours) ends as failed when the next one takes its place, with its
      // import.failed entry (the count item's update is the new import's own).
      if (state.active && state.activeLane) {
        const set = expiredSet();
        const ended: ImportJob = {
          ...state.active,
          status: 'failed',
          failureReason: 'upload_expired',
          updatedAt: String(set.updated_at),
        };
        writes.push(
          ...endImportItemWrites(state.active, set, { status: 'awaiting_upload' }),
          ...feedAppendWrites(businessId, state.activeLane, [importEndedEntry(ended)]),
        );
      }
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

/**
 * GET /imports?page=n: newest first; a page is one key range of the imports
 * partition. Every import of the business is listed (totals stay one count),
 * but an import of a type the token may not read (`mayRead`) comes without
 * its `results_url`: its results name records the token may not see.
 */
export async function listImports(businessId: string, page: PageRequest, mayRead: (type: ImportType) => boolean) {
  // Positions counted from the newest: page 1 holds the highest ones. The count is read with the page, so the
  // range is computed from an upper bound first and clipped by the count.
  const { total } = await readImportPage(businessId, null);
  const range = pagePositions(page, total);
  const first = range ? Math.max(1, total - range.last + 1) : 0;
  const last = range ? total - range.first + 1 : 0;
  const { jobs } = range ? await readImportPage(businessId, { first, last }) : { jobs: [] };
  return {
    entries: await Promise.all(
      jobs.map((job) => (mayRead(job.type) ? viewOf(job) : importView(job, Date.now(), undefined))),
    ),
    total,
  };
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

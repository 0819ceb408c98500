/**
 * Exports (contract §20): POST /exports starts one, GET /exports/{id} shows
 * it, and the worker (runExport) writes the file. Consistency rules:
 * src/domain/exports.ts.
 *
 * The worker pages through each type's record partition in id order (a
 * strongly consistent Query page at a time: ~1 item read per record), renders
 * each record as its GET does, and streams the lines into one S3 multipart
 * upload, a part per PART_BYTES: it holds at most one part and one Query page
 * in memory. After each part it stores a checkpoint (type, last id, counts,
 * parts) under its lease, so a run that stops (its time limit, a crash) is
 * resumed by the next one from the last part uploaded; the lines of an
 * unfinished part are read again. Deployed, a queue message starts each run and a run that reaches its
 * time limit queues the next (functions/run-export.ts); locally the same code
 * runs in-process.
 */
import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  EXPORT_TTL_MS,
  PART_BYTES,
  SCOPE_OF,
  START,
  exportLine,
  exportView,
  isStale,
  orderedTypes,
  type ExportCheckpoint,
  type ExportJob,
  type ExportType,
} from '../domain/exports';
import { encodeCursor } from '../domain/change-feed';
import type { BusinessConfig } from '../domain/business';
import { todayIn } from '../domain/job-dates';
import { renderApplication } from '../domain/application-record';
import { fieldsWithheld, insufficientScope, notFound, serviceUnavailable } from '../domain/errors';
import { seesAllOf, type FieldGrants, type TokenView } from '../domain/token-view';
import { projectExportRecord } from './token-view';
import type { ApiResult } from '../domain/result';
import { ok } from '../domain/result';
import { API_PREFIX } from '../domain/api-paths';
import { readLaneCounters } from '../data/feed-store';
import { inCallScope } from '../data/dynamo/call-scope';
import { runInBackground } from '../data/dynamo/client';
import { storedOf } from '../data/application-store';
import { batchGet, type Item } from '../data/dynamo/table-io';
import { idempotentCreate } from '../data/idempotency';
import type { RequestContext } from './request-context';
import {
  abortUpload,
  completeUpload,
  deleteExportFile,
  downloadUrl,
  rewriteExportFile,
  startUpload,
  uploadPart,
} from '../data/s3/export-objects';
import {
  LeaseLost,
  completeExportJob,
  failExportJob,
  noteErasure,
  readExportJobs,
  renewExportJob,
  reopenExportJob,
  leaseExportJob,
  exportJobWrite,
  newExportId,
  readExportConfig,
  readExportJob,
  readRecordBatch,
  releaseExportJob,
  saveCheckpoint,
  saveUploadId,
} from '../data/export-store';
import { employeeView } from './employees';
import { employeeJobView } from './employee-jobs';

/** Starts a worker run of an export (deployed: a queue message; locally: in-process). */
export type ExportLauncher = (businessId: string, id: string) => Promise<void>;

export const exportLocation = (id: string): string => `${API_PREFIX}/exports/${encodeURIComponent(id)}`;

/**
 * Runs exports in this process until done, outside the request that started
 * them (bound to the context of whoever calls this, e.g. the local server at
 * its start: no request's deadline, token check or origin applies). A run
 * that fails is tried again a few times, then the export is marked failed.
 */
export function inProcessLauncher(options: RunOptions = {}): ExportLauncher {
  const detached = AsyncResource.bind((task: () => Promise<void>) => void task());
  return (businessId, id) => {
    detached(() => runInBackground(() => runToEnd(businessId, id, options)));
    return Promise.resolve();
  };
}

/** The worker's function: its DynamoDB calls are checked against WORKER_GRANTS of src/http/grants.ts. */
export const EXPORT_WORKER_NAME = 'run-export';

/** Runs `run` with its DynamoDB calls attributed to the export worker (Lambda, in-process runs, tests). */
export const asExportWorker = <T>(run: () => Promise<T>): Promise<T> => inCallScope(EXPORT_WORKER_NAME, run);

const runToEnd = (businessId: string, id: string, options: RunOptions): Promise<void> =>
  asExportWorker(() => retrying(businessId, id, options));

async function retrying(businessId: string, id: string, options: RunOptions): Promise<void> {
  for (let failures = 0; ;) {
    try {
      const outcome = await runExport(businessId, id, options);
      if (outcome !== 'paused') return;
    } catch (error) {
      if (++failures >= 3) {
        console.error(`export ${id} failed`, error);
        await failExport(businessId, id).catch(() => undefined);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500 * failures));
    }
  }
}

/**
 * None until one is plugged in: the deployed functions plug in the queue
 * (src/services/export-wiring.ts), the local server and the tests an
 * in-process launcher bound at their start. No default, so the API functions'
 * bundles do not carry the worker (its S3 upload and record rendering).
 */
let launcher: ExportLauncher | undefined;

export const useExportLauncher = (next: ExportLauncher): void => {
  launcher = next;
};

function launch(businessId: string, id: string): Promise<void> {
  if (!launcher) throw new Error('exports: no launcher (EXPORT_QUEUE_URL is not set)');
  return launcher(businessId, id);
}

/**
 * POST /exports: the feed's cursor first (every lane's counter: before any
 * record is read) with the idempotency record, then `authorize` (the scopes
 * the types need, checked once the token is verified, before any replay),
 * the job in one transaction, then a worker run. 202.
 */
export async function startExport(
  context: RequestContext,
  body: { readonly types: readonly ExportType[] },
  authorize: () => Promise<void>,
): Promise<ApiResult> {
  const { businessId } = context;
  const { grants } = context.auth;
  const { types } = body;
  const idem = context.idempotency(body);
  const result = await idempotentCreate(
    idem,
    async (idemKey) => {
      const [counters, [idempotency]] = await Promise.all([
        readLaneCounters(businessId),
        idemKey ? batchGet([idemKey]) : Promise.resolve([undefined]),
      ]);
      await authorize();
      return { counters, ...(idempotency ? { idempotency } : {}) };
    },
    ({ counters }) => {
      const now = Date.now();
      const job: ExportJob = {
        id: newExportId(),
        businessId,
        types: orderedTypes(types),
        status: 'running',
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + EXPORT_TTL_MS).toISOString(),
        feedCursor: encodeCursor(
          businessId,
          counters.map((c) => c.n),
        ),
        checkpoint: START,
        ...(grants ? { grants } : {}),
      };
      const result: ApiResult = {
        status: 202,
        body: { id: job.id, status: job.status, created_at: job.createdAt },
        headers: { Location: exportLocation(job.id) },
      };
      return { result, writes: [exportJobWrite(job)] };
    },
  );
  // A replay starts a run too: one that finds the export done or held by another run ends at once.
  await launch(businessId, String((result.body as { id: string }).id));
  return result;
}

/**
 * GET /exports/{id}: the job (one read); a download URL once completed; a job whose worker died is resumed.
 * 403 for a token lacking the read scope of a type the export holds, or whose field grant of such a type
 * withholds a field the export's lines hold (contract §25), once `view` settles.
 */
export async function showExport(
  businessId: string,
  id: string,
  view: Promise<TokenView> | TokenView,
): Promise<ApiResult> {
  const job = await readExportJob(businessId, id);
  if (!job) throw notFound('export', id);
  const reader = await view;
  const missing = job.types.map((t) => SCOPE_OF[t]).find((s) => !reader.scopes.includes(s));
  if (missing) throw insufficientScope(missing);
  // Written with its creator's grants: a token whose grant withholds more may not download it.
  const narrower = job.types.find((t) => !seesAllOf(reader, job.grants, t));
  if (narrower) throw fieldsWithheld(narrower);
  if (isStale(job, Date.now())) await launch(businessId, id);
  const url = job.status === 'completed' ? await downloadUrl(businessId, id) : undefined;
  return ok(exportView(job, url));
}

async function failExport(businessId: string, id: string): Promise<void> {
  const lease = randomUUID();
  const job = await leaseExportJob(businessId, id, lease, 10_000);
  if (!job) return;
  await failExportJob(job, lease);
  if (job.uploadId) await abortUpload(businessId, id, job.uploadId);
}

export interface RunOptions {
  /** Asked before each batch: true stops the run there (a Lambda near its time limit); the next run resumes. */
  readonly outOfTime?: () => boolean;
  /** Bytes per uploaded part (at least S3's 5 MiB deployed; tests use less against the local S3). */
  readonly partBytes?: number;
  /** Records per Query (default PAGE_RECORDS; DynamoDB ends a page at 1 MB anyway). */
  readonly batchSize?: number;
}

/** Whether a file line is an application in `erased`. */
const erasedLine = (line: string, erased: ReadonlySet<string>): boolean => {
  const { type, data } = JSON.parse(line) as { type: string; data: { id?: unknown } };
  return type === 'application' && erased.has(String(data.id));
};

/**
 * Erasure wins over exports (contract §20), for every erasure (DELETE,
 * retention) before it answers: each of the business's live exports of
 * applications learns the id. A running one leaves the applicant out of its
 * file (the worker completes only once it has seen every id noted); a
 * completed one may hold the applicant: its file is deleted and it is set
 * running again from the start (the same feed cursor, still valid: the new
 * file only reflects later writes). One Query of the business's export partition,
 * plus one write per live export.
 */
export async function eraseFromExports(businessId: string, applicationId: string): Promise<void> {
  const nowMs = Date.now();
  for (const job of await readExportJobs(businessId)) {
    if (!job.types.includes('applications') || job.status === 'failed' || Date.parse(job.expiresAt) <= nowMs) continue;
    // Each round notes the id on the running job, or deletes the completed job's file and reopens it, so that the
    // next round notes the id on it (its rerun may read the applicant before this erasure commits). Racing erasures
    // reopen it for each other and a worker may complete it again in between, so a round can settle nothing; the
    // erasure never goes on unnoted: after ERASURE_NOTE_ROUNDS it answers 503 before anything is erased.
    let noted = false;
    for (let round = 0; round < ERASURE_NOTE_ROUNDS && !noted; round++) {
      noted = await noteErasure(businessId, job.id, applicationId);
      if (noted) break;
      await deleteExportFile(businessId, job.id);
      // No worker is started here: the next GET /exports/{id} finds the job unheld and starts one.
      await reopenExportJob(businessId, job.id);
    }
    if (!noted) throw serviceUnavailable();
  }
}

/** Rounds of note-or-reopen an erasure tries per export before it answers 503 (see eraseFromExports). */
const ERASURE_NOTE_ROUNDS = 8;

/** How long a run's lease lasts without a checkpoint renewing it. */
const LEASE_MS = 60_000;
/**
 * Records per Query page: ~700 KB of applications. Without a Limit, DynamoDB
 * Local took 0.6 s per 1 MB page of a 25,000-application partition and timed
 * out at 100,000; with 1,000 a page took 0.09 s at 100,000 (flat in N).
 */
const PAGE_RECORDS = 1000;

/** Each record as its GET answers it to the export's token (the projection step, contract §25). */
function renderer(
  config: BusinessConfig,
  grants: FieldGrants | undefined,
): (type: ExportType, item: Item) => { data: unknown; restricted_fields?: string[] } {
  const today = todayIn(config.timezone);
  // Scopes were checked when the export was made (POST /exports); the grants decide the fields.
  const view: TokenView = { scopes: [], ...(grants ? { grants } : {}) };
  const record = (type: ExportType, item: Item): Record<string, unknown> =>
    type === 'applications'
      ? (renderApplication(config, storedOf(item)) as unknown as Record<string, unknown>)
      : type === 'employees'
        ? (employeeView(item, config, today) as Record<string, unknown>)
        : (employeeJobView(item, config) as Record<string, unknown>);
  return (type, item) => projectExportRecord(view, type, record(type, item));
}

/**
 * One worker run: takes the lease ('busy' when another run holds it, or the
 * export is no longer running), resumes at the checkpoint, and ends
 * 'completed', or 'paused' at the deadline (the next run resumes).
 */
export async function runExport(
  businessId: string,
  id: string,
  options: RunOptions = {},
): Promise<'completed' | 'paused' | 'busy'> {
  const lease = randomUUID();
  const job = await leaseExportJob(businessId, id, lease, LEASE_MS);
  if (!job) return 'busy';
  try {
    const render = renderer(await readExportConfig(businessId), job.grants);
    let uploadId = job.uploadId;
    if (uploadId === undefined) {
      uploadId = await startUpload(businessId, id);
      await saveUploadId(job, lease, LEASE_MS, uploadId);
    }
    const types = job.types;
    const partBytes = options.partBytes ?? PART_BYTES;
    let saved: ExportCheckpoint = job.checkpoint;
    const counts: Partial<Record<ExportType, number>> = { ...saved.counts };
    let at = { typeIndex: saved.typeIndex, after: saved.after };
    let lines: Buffer[] = [];
    let bytes = 0;
    // Applications erased meanwhile (contract §20): left out when read; those noted only after the worker
    // reached the applications may be in the file already, and are taken out of it before it completes.
    let erased = new Set(job.erased ?? []);
    const applicationsAt = types.indexOf('applications');
    let knownBeforeApplications = new Set(at.typeIndex <= applicationsAt && at.after === null ? erased : []);

    const flush = async (): Promise<void> => {
      const part = await uploadPart(businessId, id, uploadId, saved.parts.length + 1, Buffer.concat(lines, bytes));
      lines = [];
      bytes = 0;
      saved = { ...at, counts: { ...counts }, parts: [...saved.parts, part] };
      erased = new Set((await saveCheckpoint(job, lease, LEASE_MS, saved)).erased);
    };

    while (at.typeIndex < types.length) {
      if (options.outOfTime?.()) {
        // What is not in an uploaded part yet is read again by the next run.
        await releaseExportJob(job, lease);
        return 'paused';
      }
      const type = types[at.typeIndex] as ExportType;
      if (at.typeIndex === applicationsAt && at.after === null) knownBeforeApplications = new Set(erased);
      const batch = await readRecordBatch(businessId, type, at.after, options.batchSize ?? PAGE_RECORDS);
      for (const item of batch.items) {
        if (type === 'applications' && erased.has(String(item.id))) continue;
        const line = Buffer.from(exportLine(type, render(type, item)));
        lines.push(line);
        bytes += line.length;
        counts[type] = (counts[type] ?? 0) + 1;
      }
      at =
        batch.next === undefined
          ? { typeIndex: at.typeIndex + 1, after: null }
          : { typeIndex: at.typeIndex, after: batch.next };
      if (bytes >= partBytes) await flush();
    }
    // The last part may be small (or empty, for an export of nothing).
    if (bytes > 0 || saved.parts.length === 0) await flush();
    await completeUpload(businessId, id, uploadId, saved.parts);
    await completeWithoutErased(job, lease, partBytes, { saved, erased, known: knownBeforeApplications });
    return 'completed';
  } catch (error) {
    if (error instanceof LeaseLost) return 'busy';
    throw error;
  }
}

/**
 * Completes a run's export once every erasure noted so far is out of its file (one noted later finds it
 * completed): applications erased after the worker wrote them (`erased` but not `known` before it reached the
 * applications) are taken out of the uploaded file first, and out of its counts.
 */
async function completeWithoutErased(
  job: ExportJob,
  lease: string,
  partBytes: number,
  start: { saved: ExportCheckpoint; erased: ReadonlySet<string>; known: ReadonlySet<string> },
): Promise<void> {
  let { saved, erased, known } = start;
  for (;;) {
    const unseen = [...erased].filter((a) => !known.has(a));
    if (unseen.length > 0) {
      const gone = new Set(unseen);
      const dropped = await rewriteExportFile(job.businessId, job.id, (line) => erasedLine(line, gone), partBytes);
      saved = { ...saved, counts: { ...saved.counts, applications: (saved.counts.applications ?? 0) - dropped } };
      known = erased;
    }
    if (await completeExportJob(job, lease, saved, erased.size)) return;
    erased = new Set((await renewExportJob(job, lease, LEASE_MS)).erased);
  }
}

/**
 * Exports (contract §20): a JSON Lines file of every record of the types
 * asked for, and the change-feed cursor a client follows from to stay exact.
 * Pure rules: the types and their scopes, the file's lines, the job's public
 * view, where a worker resumes.
 *
 * Consistency: the feed cursor is taken before the first record is read, so
 * every change committed while the export pages through the records is in the
 * feed after it. Records are read in id order by strongly consistent reads,
 * and a record's id (its place in that order) never changes: a record that
 * exists throughout is in the file once, as its GET answered at some moment
 * after the cursor; one created or erased meanwhile may be missing or present,
 * and its feed entries settle it. Replaying the feed from the cursor (each
 * entry's `data` is the whole record after that change, a delete removes it)
 * ends at each record's last change: file + feed = what the API serves. Replay
 * is idempotent (upserts of whole records, deletes of absent ones are no-ops).
 */
import type { FieldGrants } from './token-view';
import type { Scope } from './scopes';

export const EXPORT_TYPES = ['employees', 'employee_jobs', 'applications'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** The `type` of a line of the file: the record's type as the feed names it. */
export const RECORD_TYPE: Readonly<Record<ExportType, string>> = {
  employees: 'employee',
  employee_jobs: 'employee_job',
  applications: 'application',
};

/** Contract §20: the read scope of every type named, and changes:read. */
export const SCOPE_OF: Readonly<Record<ExportType, Scope>> = {
  employees: 'employees:read',
  employee_jobs: 'employees:read',
  applications: 'applications:read',
};

/** The scopes an export of `types` needs, in a fixed order; the route itself needs changes:read. */
export const scopesFor = (types: readonly ExportType[]): Scope[] => [
  ...new Set<Scope>([...types.map((t) => SCOPE_OF[t]), 'changes:read']),
];

/** Types in file order (the order of EXPORT_TYPES), each once. */
export const orderedTypes = (types: readonly ExportType[]): ExportType[] =>
  EXPORT_TYPES.filter((t) => types.includes(t));

/** Files (and the job) are kept this long. */
export const EXPORT_TTL_MS = 24 * 60 * 60 * 1000;
/** A download URL is valid this long (contract: at most 5 minutes). */
export const DOWNLOAD_URL_SECONDS = 300;

/**
 * A part of the file's multipart upload: S3 takes parts of at least 5 MiB
 * (the last one excepted), at most 10,000 of them. 8 MiB parts hold ~8,000
 * applications; the worker keeps at most one part (plus one batch) in memory.
 */
export const PART_BYTES = 8 * 1024 * 1024;

export type ExportStatus = 'running' | 'completed' | 'failed';

/** Where a worker resumes: every record before it is in the parts uploaded. */
export interface ExportCheckpoint {
  /** Index into the job's ordered types. */
  readonly typeIndex: number;
  /** The id of that type's last record in the uploaded parts (records are read in id order); null: none yet. */
  readonly after: string | null;
  /** Records of each type in the uploaded parts. */
  readonly counts: Readonly<Partial<Record<ExportType, number>>>;
  /** Uploaded parts, in order. */
  readonly parts: readonly { readonly PartNumber: number; readonly ETag: string }[];
}

export const START: ExportCheckpoint = { typeIndex: 0, after: null, counts: {}, parts: [] };

export interface ExportJob {
  readonly id: string;
  readonly businessId: string;
  readonly types: readonly ExportType[];
  readonly status: ExportStatus;
  readonly createdAt: string;
  readonly completedAt?: string;
  readonly expiresAt: string;
  /** The change feed's cursor taken before the first record was read. */
  readonly feedCursor: string;
  /** The field grants of the token that created it (contract §25): its lines hold what that token may see. */
  readonly grants?: FieldGrants;
  readonly uploadId?: string;
  readonly checkpoint: ExportCheckpoint;
  /** Until when a worker run holds the job (ms; 0: nobody). */
  readonly leaseUntilMs?: number;
  /**
   * Applications erased while the job runs (contract §20: erasure wins): the
   * worker leaves them out of the file and completes only once it has seen
   * every id noted here.
   */
  readonly erased?: readonly string[];
}

/** A running job nobody has held for this long lost its worker (a crash): whoever reads it starts another run. */
export const STALE_AFTER_MS = 60_000;

export const isStale = (job: ExportJob, nowMs: number): boolean =>
  job.status === 'running' &&
  (job.leaseUntilMs ?? 0) + STALE_AFTER_MS < nowMs &&
  Date.parse(job.createdAt) + STALE_AFTER_MS < nowMs;

/**
 * One line of the file: the record as its GET answers it to the export's token (projected by
 * src/services/token-view.ts), with `restricted_fields` beside `data` when its grant withholds any.
 */
export const exportLine = (type: ExportType, shown: { data: unknown; restricted_fields?: string[] }): string =>
  `${JSON.stringify({ type: RECORD_TYPE[type], ...shown })}\n`;

/** What GET /exports/{id} answers (contract §20); `downloadUrl` only once completed. */
export function exportView(job: ExportJob, downloadUrl?: string): Record<string, unknown> {
  const counts = Object.fromEntries(job.types.map((t) => [t, job.checkpoint.counts[t] ?? 0]));
  return {
    id: job.id,
    status: job.status,
    types: job.types,
    counts,
    feed_cursor: job.feedCursor,
    created_at: job.createdAt,
    ...(job.completedAt ? { completed_at: job.completedAt } : {}),
    ...(job.status === 'completed' && downloadUrl ? { download_url: downloadUrl } : {}),
    expires_at: job.expiresAt,
  };
}

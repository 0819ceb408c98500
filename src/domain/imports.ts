/**
 * Bulk imports (contract §22): the import's types, statuses and public view,
 * the external_id rule, the results file's lines and the counts. Pure.
 */
import type { FieldMessages } from './errors';
import type { Scope } from './scopes';

export const IMPORT_TYPES = ['employees', 'employee_jobs', 'applications'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];
export const IMPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_MODES = ['apply', 'validate'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];
export type ImportStatus = 'awaiting_upload' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * Why an import failed: the whole file refused (nothing written), or
 * `run_failed`: its run kept failing, or made no progress for longer than a
 * run may take (IMPORT_STALL_MS); the rows applied before stay, counted.
 */
export const FAILURE_REASONS = [
  'size_mismatch',
  'not_utf8',
  'malformed_file',
  'too_many_rows',
  'upload_expired',
  'run_failed',
  // The token that created it was revoked or expired before the run ended (contract §25): rows before stay.
  'token_revoked',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Contract §22 bounds. */
export const MAX_IMPORT_BYTES = 104_857_600;
export const MAX_IMPORT_ROWS = 200_000;
/** An upload not made within this long ends the import as failed (upload_expired). */
export const UPLOAD_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The presigned POST of the upload is valid this long (§19: at most 15 minutes). */
export const UPLOAD_FORM_SECONDS = 15 * 60;
/** Results files (and the import's row results) are kept this long. */
export const RESULTS_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A results_url is valid this long (at most 5 minutes). */
export const RESULTS_URL_SECONDS = 300;
/** While running, counts are stored at least this often. */
export const PROGRESS_INTERVAL_MS = 5_000;
/** The longest one run of an import may take (the run function's timeout, lib/api-stack.ts). */
export const IMPORT_RUN_TIMEOUT_MS = 15 * 60 * 1000;
/**
 * A running import whose progress (counts, or the file check) has not moved
 * for this long has no run that will move it: a run's timeout plus a margin
 * for the retry of a run that died. The watchdog ends it (`run_failed`).
 */
export const IMPORT_STALL_MS = IMPORT_RUN_TIMEOUT_MS + 5 * 60 * 1000;

/** Whether a running import's progress, last moved at `progressAt` (ISO), stopped for longer than IMPORT_STALL_MS. */
export const isStalled = (job: ImportJob, now: number): boolean =>
  job.status === 'running' && now - Date.parse(job.progressAt) > IMPORT_STALL_MS;

/**
 * Where an import's objects live in the bucket: the upload (the presigned POST
 * admits this key only; the bucket's object-created event on this prefix
 * starts the run) and the results file. The IAM grants name these prefixes.
 */
export const IMPORT_UPLOAD_PREFIX = 'imports/uploads/';
export const IMPORT_RESULTS_PREFIX = 'imports/results/';
export const uploadKeyOf = (businessId: string, id: string): string =>
  `${IMPORT_UPLOAD_PREFIX}${encodeURIComponent(businessId)}/${id}`;
export const resultsKeyOf = (businessId: string, id: string): string =>
  `${IMPORT_RESULTS_PREFIX}${encodeURIComponent(businessId)}/${id}.jsonl`;
/** The import an uploaded object's key names, or undefined for any other key. */
export function importOfUploadKey(key: string): { businessId: string; id: string } | undefined {
  if (!key.startsWith(IMPORT_UPLOAD_PREFIX)) return undefined;
  const [business, id, ...rest] = key.slice(IMPORT_UPLOAD_PREFIX.length).split('/');
  if (!business || !id || rest.length) return undefined;
  try {
    return { businessId: decodeURIComponent(business), id };
  } catch {
    return undefined;
  }
}
/** The Content-Type the upload form fixes per format. */
export const CONTENT_TYPE_OF: Readonly<Record<ImportFormat, string>> = {
  csv: 'text/csv',
  jsonl: 'application/x-ndjson',
};

/** `external_id`: 1..100 characters of A-Z a-z 0-9 . _ : - */
export const EXTERNAL_ID_PATTERN = '^[A-Za-z0-9._:-]{1,100}$';
const EXTERNAL_ID = new RegExp(EXTERNAL_ID_PATTERN);
export const isExternalId = (value: unknown): value is string => typeof value === 'string' && EXTERNAL_ID.test(value);

/** The record type of a row of each import type, as the change feed names it. */
export const RECORD_OF: Readonly<Record<ImportType, 'employee' | 'employee_job' | 'application'>> = {
  employees: 'employee',
  employee_jobs: 'employee_job',
  applications: 'application',
};

/** Creating an import writes records of its type: the write scope (contract §22). */
export const WRITE_SCOPE_OF: Readonly<Record<ImportType, Scope>> = {
  employees: 'employees:write',
  employee_jobs: 'employees:write',
  applications: 'applications:write',
};
/** Reading an import: the read or the write scope of its type. */
export const READ_SCOPES_OF: Readonly<Record<ImportType, readonly Scope[]>> = {
  employees: ['employees:read', 'employees:write'],
  employee_jobs: ['employees:read', 'employees:write'],
  applications: ['applications:read', 'applications:write'],
};

export const ROW_RESULTS = ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const;
export type RowResult = (typeof ROW_RESULTS)[number];

/** One line of the results file: ids, results and messages, never a field value. */
export interface ResultLine {
  readonly row: number;
  readonly external_id: string | null;
  readonly result: RowResult;
  readonly id: string | null;
  readonly errors: FieldMessages | null;
}

/** The longest field name a result line's errors keep: a longer one is cut there and ends with `…`. */
export const RESULT_FIELD_CHARS = 100;
/**
 * The most a result line's errors take as JSON (a row's field map in a long
 * language is some hundreds): a window of lines in one result item stays far
 * under DynamoDB's 400 KB item, whatever names a row's fields have.
 */
export const RESULT_ERRORS_CHARS = 2000;

/**
 * A row's errors as its result line keeps them: field names cut at
 * RESULT_FIELD_CHARS, and the fields after the one that would pass
 * RESULT_ERRORS_CHARS left out (the first always kept). Messages only: the
 * catalogues' texts, never a value.
 */
export function boundedErrors(fields: FieldMessages): FieldMessages {
  const out: FieldMessages = {};
  let used = 2;
  for (const [field, messages] of Object.entries(fields)) {
    const name = field.length > RESULT_FIELD_CHARS ? `${field.slice(0, RESULT_FIELD_CHARS)}…` : field;
    const size = JSON.stringify(name).length + JSON.stringify(messages).length + 2;
    if (used + size > RESULT_ERRORS_CHARS && Object.keys(out).length > 0) break;
    out[name] = [...(out[name] ?? []), ...messages];
    used += size;
  }
  return out;
}

export type ImportCounts = { rows: number } & Record<RowResult, number>;

export const zeroCounts = (): ImportCounts => ({
  rows: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  skipped: 0,
  failed: 0,
});

/** The counts after `lines` more rows. */
export function addCounts(counts: ImportCounts, lines: readonly Pick<ResultLine, 'result'>[]): ImportCounts {
  const next = { ...counts };
  for (const line of lines) {
    next.rows += 1;
    next[line.result] += 1;
  }
  return next;
}

/** A stored import, as the data layer hands it over. */
export interface ImportJob {
  readonly id: string;
  readonly businessId: string;
  readonly type: ImportType;
  readonly format: ImportFormat;
  readonly mode: ImportMode;
  readonly size: number;
  readonly status: ImportStatus;
  /** The language of the POST that created it: row messages are in it. */
  readonly language: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly counts: ImportCounts;
  readonly failureReason: FailureReason | null;
  /** malformed_file: the row where reading broke (0: the CSV header line); else null. */
  readonly failureRow: number | null;
  /** When it last moved (created, started running, checked its file, counted rows). */
  readonly progressAt: string;
  /** Who created it: its records' change-feed entries name this token and request. */
  readonly tokenId: string;
  readonly tokenName: string;
  /** The hash of that token: the run acts with its rights as they are (contract §25). */
  readonly tokenHash?: string;
  readonly requestId: string | null;
  /** Rows 1..checkpoint have their results stored (the counts are theirs). */
  readonly checkpoint: number;
  /** The whole file was read once and found readable (only then is anything written). */
  readonly checked: boolean;
}

/** What a client reads of an import at `now`: an upload not made within 24 hours reads as failed. */
export function effectiveStatus(
  job: ImportJob,
  now: number,
): { status: ImportStatus; failureReason: FailureReason | null } {
  if (job.status === 'awaiting_upload' && now - Date.parse(job.createdAt) > UPLOAD_WINDOW_MS)
    return { status: 'failed', failureReason: 'upload_expired' };
  return { status: job.status, failureReason: job.failureReason };
}

/** An import that blocks another POST of its business. */
export const isInProgress = (job: ImportJob, now: number): boolean => {
  const { status } = effectiveStatus(job, now);
  return status === 'awaiting_upload' || status === 'running';
};

/** The public view (contract §22); results_url only when completed. */
export function importView(job: ImportJob, now: number, resultsUrl?: string): Record<string, unknown> {
  const { status, failureReason } = effectiveStatus(job, now);
  return {
    id: job.id,
    type: job.type,
    format: job.format,
    mode: job.mode,
    status,
    ...(status === 'failed' ? { failure_reason: failureReason } : {}),
    ...(status === 'failed' && job.failureRow !== null ? { failure_row: job.failureRow } : {}),
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    counts: { ...job.counts },
    results_url: status === 'completed' ? (resultsUrl ?? null) : null,
  };
}

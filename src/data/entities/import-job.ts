/**
 * Imports (contract §22, src/data/import-store.ts): one item per import in the
 * business's imports partition, whose ids start with the import's zero-padded
 * position (so the partition read backwards is newest first, and page n is a
 * key range); the count item (`n`, the `active` import); the rows' result items (one per
 * row or run of rows) in the import's own partition. Read and written by key or key range
 * only. The item mapping of each.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  RESULTS_TTL_MS,
  zeroCounts,
  type FailureReason,
  type ImportCounts,
  type ImportJob,
  type ImportStatus,
  type ResultLine,
} from '../../domain/imports';
import { IMPORTS_IN_PROGRESS, keys, type Key } from '../dynamo/keys';
import { pattern } from './entity';

/** The worker run holding the import (a random id) and until when (epoch ms). */
const LEASE = { holder: 'lease', until: 'lease_until' } as const;
/** Digits of an import's position at the start of its id. */
export const IMPORT_POSITION_DIGITS = 10;

export const importJob = {
  entity: 'import job',
  key: (businessId: string, id: string): Key => keys.importJob(businessId, id),
  metaKey: (businessId: string): Key => keys.importMeta(businessId),
  rowKey: (businessId: string, importId: string, row: number): Key => keys.importRow(businessId, importId, row),
  /** The import's entry among the imports in progress of every business (the watchdog's list). */
  inProgressKey: (businessId: string, id: string): Key => keys.importInProgress(businessId, id),
  inProgressItem: (job: Pick<ImportJob, 'businessId' | 'id'>): Record<string, unknown> => ({
    ...keys.importInProgress(job.businessId, job.id),
    business_id: job.businessId,
    import_id: job.id,
  }),
  refOfInProgress: (item: Readonly<Record<string, unknown>>): { businessId: string; id: string } => ({
    businessId: String(item.business_id),
    id: String(item.import_id),
  }),
  patterns: {
    byPosition: pattern(
      'table',
      'import id (its position first); N: the count',
      (p: { businessId: string }) => keys.importMeta(p.businessId).PK,
    ),
    rows: pattern(
      'table',
      'row number',
      (p: { businessId: string; importId: string }) => keys.importRow(p.businessId, p.importId, 0).PK,
    ),
    inProgress: pattern('table', 'import id, business id', () => IMPORTS_IN_PROGRESS),
  },
  leaseAttributes: LEASE,
  /** The id of the import at `position`: the position first (sortable), then randomness. */
  idAt: (position: number, random: string): string =>
    `${String(position).padStart(IMPORT_POSITION_DIGITS, '0')}-${random}`,
  positionOf: (id: string): number | undefined => {
    const match = /^([0-9]{10})-[0-9a-f]{16}$/.exec(id);
    return match ? Number(match[1]) : undefined;
  },
  /** The sort-key bounds of positions first..last. */
  positionRange: (first: number, last: number): { from: string; to: string } => ({
    from: String(first).padStart(IMPORT_POSITION_DIGITS, '0'),
    to: `${String(last).padStart(IMPORT_POSITION_DIGITS, '0')}-~`,
  }),
  newItem: (job: ImportJob): Record<string, unknown> => ({
    ...keys.importJob(job.businessId, job.id),
    business_id: job.businessId,
    type: job.type,
    format: job.format,
    mode: job.mode,
    size: job.size,
    status: job.status,
    language: job.language,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    counts: job.counts,
    token_id: job.tokenId,
    token_name: job.tokenName,
    ...(job.tokenHash !== undefined ? { token_hash: job.tokenHash } : {}),
    request_id: job.requestId,
    checkpoint: job.checkpoint,
    progress_at: job.progressAt,
  }),
  fromItem: (item: Readonly<Record<string, unknown>>): ImportJob => ({
    id: String(item.SK),
    businessId: String(item.business_id),
    type: item.type as ImportJob['type'],
    format: item.format as ImportJob['format'],
    mode: item.mode as ImportJob['mode'],
    size: Number(item.size),
    status: item.status as ImportStatus,
    language: String(item.language ?? 'en'),
    createdAt: String(item.created_at),
    updatedAt: String(item.updated_at ?? item.created_at),
    counts: { ...zeroCounts(), ...((item.counts as ImportCounts | undefined) ?? {}) },
    failureReason: (item.failure_reason as FailureReason | undefined) ?? null,
    failureRow: typeof item.failure_row === 'number' ? item.failure_row : null,
    // Its latest move: created, its run started (started_at), progress stored (progress_at).
    progressAt: [item.progress_at, item.started_at, item.created_at]
      .filter((t): t is string => typeof t === 'string')
      .reduce((a, b) => (b > a ? b : a), ''),
    tokenId: String(item.token_id ?? ''),
    tokenName: String(item.token_name ?? ''),
    ...(typeof item.token_hash === 'string' ? { tokenHash: item.token_hash } : {}),
    requestId: typeof item.request_id === 'string' ? item.request_id : null,
    checkpoint: Number(item.checkpoint ?? 0),
    checked: item.checked === true,
  }),
  /**
   * The results of a run of consecutive rows (one row, or a chunk's rows), keyed by the run's last row: a
   * resumed run that reads the items after its checkpoint row finds every stored row after it. The lines'
   * JSON deflated (as feed entries' data): a chunk's 24 lines are 2.9 KB as text (3 write units, twice in
   * its transaction), under 1 KB deflated.
   */
  rowItem: (
    businessId: string,
    importId: string,
    lines: readonly ResultLine[],
    now: number,
  ): Record<string, unknown> => ({
    ...keys.importRow(businessId, importId, lines[lines.length - 1]?.row ?? 0),
    lines: deflateRawSync(JSON.stringify(lines)),
    expires_at: Math.ceil((now + RESULTS_TTL_MS) / 1000),
  }),
  linesOf: (item: Readonly<Record<string, unknown>>): ResultLine[] =>
    JSON.parse(inflateRawSync(item.lines as Uint8Array).toString('utf8')) as ResultLine[],
} as const;

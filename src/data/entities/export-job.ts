/**
 * Export jobs (contract §20, src/data/export-store.ts): one item per export in
 * the business's export partition, by id; read and written by key only. Status,
 * types, feed cursor, the S3 multipart upload and the checkpoint (where the
 * next worker run resumes), `lease`/`lease_until` (one worker at a time),
 * `expires_at` (TTL). The item mapping of a job.
 */
import type { FieldGrants } from '../../domain/token-view';
import {
  EXPORT_TTL_MS,
  START,
  type ExportCheckpoint,
  type ExportJob,
  type ExportStatus,
  type ExportType,
} from '../../domain/exports';
import { keys, type Key } from '../dynamo/keys';
import { TABLE } from '../dynamo/table-definition';
import { pattern } from './entity';

/** The worker run holding the job (a random id) and until when (epoch ms). */
const LEASE = { holder: 'lease', until: 'lease_until' } as const;

export const exportJob = {
  entity: 'export job',
  key: (businessId: string, id: string): Key => keys.exportJob(businessId, id),
  // By key, and (an erasure, contract §20) the business's jobs: a few, each expires after a day.
  patterns: {
    ofBusiness: pattern<{ readonly businessId: string }>('table', 'export id', ({ businessId }) =>
      keys.exportJobs(businessId),
    ),
  },
  erasedAttribute: 'erased',
  leaseAttributes: LEASE,
  statusAttribute: 'status',
  /** A new job's item (no lease, no upload yet). */
  newItem: (job: ExportJob): Record<string, unknown> => ({
    ...keys.exportJob(job.businessId, job.id),
    business_id: job.businessId,
    types: job.types,
    status: job.status,
    created_at: job.createdAt,
    expires_at: Math.ceil(Date.parse(job.expiresAt) / 1000),
    feed_cursor: job.feedCursor,
    checkpoint: job.checkpoint,
    ...(job.grants ? { grants: job.grants } : {}),
  }),
  fromItem: (item: Readonly<Record<string, unknown>>): ExportJob => ({
    id: String(item[TABLE.sortKey]),
    businessId: String(item.business_id),
    types: item.types as ExportType[],
    status: item.status as ExportStatus,
    createdAt: String(item.created_at),
    ...(typeof item.completed_at === 'string' ? { completedAt: item.completed_at } : {}),
    // The TTL attribute is whole seconds; the answer says exactly what the job was created with.
    expiresAt: new Date(Date.parse(String(item.created_at)) + EXPORT_TTL_MS).toISOString(),
    feedCursor: String(item.feed_cursor),
    ...(item.grants !== null && typeof item.grants === 'object' ? { grants: item.grants as FieldGrants } : {}),
    ...(typeof item.upload_id === 'string' ? { uploadId: item.upload_id } : {}),
    checkpoint: item.checkpoint as ExportCheckpoint,
    leaseUntilMs: Number(item[LEASE.until] ?? 0),
    erased: item.erased instanceof Set ? [...(item.erased as Set<string>)].sort() : [],
  }),
  /** The attributes a worker sets as it goes. */
  uploadSet: (uploadId: string): Record<string, unknown> => ({ upload_id: uploadId }),
  checkpointSet: (checkpoint: ExportCheckpoint): Record<string, unknown> => ({ checkpoint }),
  /** A completed job run again from the start (its file deleted by an erasure): no upload, lease or erased ids. */
  reopen: {
    set: { status: 'running', checkpoint: START },
    remove: ['upload_id', 'completed_at', 'erased', LEASE.holder, LEASE.until],
  },
  finishSet: (
    outcome: { status: 'completed'; checkpoint: ExportCheckpoint } | { status: 'failed' },
    completedAt: string,
  ): Record<string, unknown> => ({
    status: outcome.status,
    completed_at: completedAt,
    ...(outcome.status === 'completed' ? { checkpoint: outcome.checkpoint } : {}),
  }),
} as const;

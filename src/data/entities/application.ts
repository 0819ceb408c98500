/**
 * The application entity: its item key, its lists and the access patterns
 * that read them (docs/pagination.md). An application sits in four index
 * partitions at once: the business list and its job opening's list by
 * position (dense, fixed at creation), its status's list by business
 * position, and the order of writes by the position of its last write.
 */
import { keys, lists, type Key } from '../keys';
import type { ApplicationListFilter } from '../../schemas/applications';
import { partitionOf, pattern, placeAt, sortOf, type MappedList, type Partition } from './entity';
import { LIST } from './list-names';

type OfBusiness = { readonly businessId: string };
type OfJob = OfBusiness & { readonly jobId: string | null };
type OfStatus = OfBusiness & { readonly statusId: string };

const byPosition = pattern<OfBusiness>('list-keys', 'position 1..n', ({ businessId }) =>
  lists.all(businessId, 'application'),
);
const byJob = pattern<OfJob>('sublist-keys', 'position in the job opening list 1..n', ({ businessId, jobId }) =>
  lists.applicationsOfJob(businessId, jobId),
);
const byStatus = pattern<OfStatus>('statuslist-keys', 'position in the business list', ({ businessId, statusId }) =>
  lists.applicationsWithStatus(businessId, statusId),
);
/** created_at_since: the business (or job) list from the first position created at/after `since`, found in its position map. */
const sinceCreated = pattern<OfBusiness>(
  'list-keys',
  'position >= first created at/after since (position map)',
  byPosition.partition,
);
const updatedSince = pattern<OfBusiness>('updatedlist-keys', 'position of its last write 1..m', ({ businessId }) =>
  lists.applicationsByUpdate(businessId),
);

/** Where an application sits in its lists: fixed at creation but for the order of writes. */
export interface ApplicationPositions {
  /** Position in the business list (1..n). */
  readonly position: number;
  /** Position in its job opening's (or the speculative) list. */
  readonly jobPosition: number;
  /** Position in the order of writes (moves to the end on every write). */
  readonly updatePosition: number;
  /** Key of the idempotency record its create stored (erased with it), if any. */
  readonly idempotencyPk?: string;
}

/**
 * updated_at_since with job_id or created_at_since: no list orders by both,
 * so the order of writes is read from the superblock straddling `since` on,
 * the other filters applied by DynamoDB (O(writes since the cut)).
 */
export interface FilteredWriteOrder {
  readonly kind: 'filtered';
  readonly list: string;
  readonly entries: Partition;
  readonly since: string;
  readonly filter: ApplicationListFilter;
}

/**
 * The list a page of GET /applications reads for its filters: each filter
 * combination names its list (counter and maps), the partition of its
 * entries and how a status is applied.
 */
function listOf(businessId: string, filter: ApplicationListFilter): MappedList | FilteredWriteOrder {
  const { application_status_id: statusId, created_at_since: createdSince, updated_at_since: updated } = filter;
  const jobId = filter.job_id === undefined ? undefined : filter.job_id === 'null' ? null : filter.job_id;
  if (updated !== undefined) {
    const entries = partitionOf(updatedSince, { businessId });
    if (jobId !== undefined || createdSince !== undefined)
      return { kind: 'filtered', list: LIST.applicationsUpdated, entries, since: updated, filter };
    // The order of writes holds every status: a status page is its range filtered by status.
    return {
      kind: 'mapped',
      list: LIST.applicationsUpdated,
      entries,
      statusId,
      wholeRange: statusId !== undefined,
      since: updated,
    };
  }
  if (jobId !== undefined) {
    const entries = partitionOf(byJob, { businessId, jobId });
    // The job list holds every status (its index projects it): a status page is its range filtered by status.
    return {
      kind: 'mapped',
      list: LIST.applicationsOfJob(jobId),
      entries,
      statusId,
      wholeRange: statusId !== undefined,
      since: createdSince,
    };
  }
  const entries =
    statusId !== undefined
      ? partitionOf(byStatus, { businessId, statusId })
      : partitionOf(createdSince === undefined ? byPosition : sinceCreated, { businessId });
  return { kind: 'mapped', list: LIST.applications, entries, statusId, wholeRange: false, since: createdSince };
}

export const application = {
  entity: 'application',
  key: (businessId: string, id: string): Key => keys.record(businessId, 'application', id),
  patterns: { byPosition, byJob, byStatus, createdSince: sinceCreated, updatedSince },
  listOf,
  /** The dense lists an application is counted in: their names (counters and position maps). */
  lists: {
    business: LIST.applications,
    job: LIST.applicationsOfJob,
    updated: LIST.applicationsUpdated,
  },
  counters: {
    business: (businessId: string): Key => keys.counter(businessId, LIST.applications),
    job: (businessId: string, jobId: string | null): Key => keys.counter(businessId, LIST.applicationsOfJob(jobId)),
    updated: (businessId: string): Key => keys.counter(businessId, LIST.applicationsUpdated),
  },
  /** The index attributes of an application at `at` (business, job, status and write-order lists). */
  indexKeys: (
    businessId: string,
    app: { readonly job_id: string | null; readonly application_status_id: string },
    at: ApplicationPositions,
  ): Record<string, string | number> => ({
    ...placeAt(byPosition, { businessId }, at.position),
    ...placeAt(byJob, { businessId, jobId: app.job_id }, at.jobPosition),
    ...placeAt(byStatus, { businessId, statusId: app.application_status_id }, at.position),
    ...placeAt(updatedSince, { businessId }, at.updatePosition),
  }),
  positionsOf: (item: Record<string, unknown>): ApplicationPositions => ({
    position: Number(sortOf(byPosition, item)),
    jobPosition: Number(sortOf(byJob, item)),
    updatePosition: Number(sortOf(updatedSince, item) ?? 0),
    ...(typeof item.idempotency_pk === 'string' ? { idempotencyPk: item.idempotency_pk } : {}),
  }),
} as const;

export type ApplicationPattern = keyof typeof application.patterns;

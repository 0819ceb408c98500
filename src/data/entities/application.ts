/**
 * The application entity: its item key, its lists and the access patterns
 * that read them (docs/pagination.md). An application sits in four index
 * partitions at once: the business list, its job opening's list and its
 * status's list by its business position (reserved at creation, fixed), and
 * the order of writes by the position of its last write.
 */
import { businessPartition, keys, lists, type Key } from '../dynamo/keys';
import type { ApplicationRecord } from '../../domain/application-record';
import { feedRefsOf, type FeedRef } from '../../domain/feed-refs';
import { APPLICATION_FILTERS, type ApplicationListFilter } from '../../schemas/application-filters';
import {
  partitionOf,
  pattern,
  placeAt,
  readAttributes,
  recordBase,
  sortOf,
  type AttributeKind,
  type AttributesOf,
  type CutList,
  type MappedList,
} from './entity';

/** The stored attributes of an application: its response fields, custom values under `cf`. */
const attributes = {
  id: 'string',
  job_id: 'string?',
  application_status_id: 'string',
  accept_terms_and_conditions: 'boolean',
  accept_archivation: 'boolean',
  language: 'string',
  campaign_id: 'string?',
  first_name: 'string',
  last_name: 'string',
  gender: 'string?',
  email: 'string',
  phone: 'string?',
  birthday: 'string?',
  cf: 'map',
  created_at: 'string',
  updated_at: 'string',
  version: 'version',
} as const satisfies Record<keyof ApplicationRecord, AttributeKind>;

/** An application as stored (the domain's ApplicationRecord, field for field). */
export type StoredApplication = AttributesOf<typeof attributes>;

/**
 * The lists of applications (docs/pagination.md): each name names a summary
 * item (`keys.counter`) and its position maps.
 */
const LISTS = {
  business: 'applications',
  /** The applications of one job opening (speculative = no job). */
  ofJob: (jobId: string | null): string =>
    jobId === null ? 'applications-speculative' : `applications-of-job:${jobId}`,
  /** The order of writes: updated_at ascending, a write moves the application to the end. */
  writeOrder: 'applications-updated',
} as const;

type OfBusiness = { readonly businessId: string };
type OfJob = OfBusiness & { readonly jobId: string | null };
type OfStatus = OfBusiness & { readonly statusId: string };

const byPosition = pattern<OfBusiness>('list-keys', 'position 1..n', ({ businessId }) =>
  lists.all(businessId, 'application'),
);
/** Every application of the business, by id, in its record partition (exports: strongly consistent pages). */
const byId = pattern<OfBusiness>('table', 'application id', ({ businessId }) =>
  keys.records(businessId, 'application'),
);
const byJob = pattern<OfJob>(
  'sublist-keys',
  'business position (the job list has holes where other jobs are)',
  ({ businessId, jobId }) => businessPartition(businessId, `job-opening#${jobId ?? '\u0000speculative'}#applications`),
);
const byStatus = pattern<OfStatus>('statuslist-keys', 'position in the business list', ({ businessId, statusId }) =>
  businessPartition(businessId, `application-status#${statusId}#applications`),
);
/** created_at_since: the business (or job) list from the first position created at/after `since`, found in its position map. */
const sinceCreated = pattern<OfBusiness>(
  'list-keys',
  'position >= first created at/after since (position map)',
  byPosition.partition,
);
const updatedSince = pattern<OfBusiness>('updatedlist-keys', 'position of its last write 1..m', ({ businessId }) =>
  businessPartition(businessId, 'applications#by-update'),
);

/** Where an application sits in its lists: fixed at creation but for the order of writes. */
export interface ApplicationPositions {
  /** Position in the business list (1..n, reserved in created_at order). */
  readonly position: number;
  /** Position in its job opening's (or the speculative) list: its business position. */
  readonly jobPosition: number;
  /** Position in the order of writes (moves to the end on every write). */
  readonly updatePosition: number;
  /** Key of the idempotency record its create stored (erased with it), if any. */
  readonly idempotencyPk?: string;
  /** Where its change-feed entries are (redacted on erasure). */
  readonly feedRefs?: readonly FeedRef[];
}

/** The positions an application takes at its creation and keeps for its life. */
export type CreatedPosition = 'position' | 'jobPosition';

/**
 * The lists an application is created into, each with the field of
 * ApplicationPositions that holds its place there. A create counts it in each
 * (summary, map) at its reserved position, a status change moves its counts
 * in each, an erasure leaves a hole in each.
 */
const createdIn = (fields: { readonly job_id?: unknown }): readonly { list: string; at: CreatedPosition }[] => [
  { list: LISTS.business, at: 'position' },
  { list: LISTS.ofJob(typeof fields.job_id === 'string' ? fields.job_id : null), at: 'jobPosition' },
];

/** Every list an application has a position in: those it is created into, and the order of writes. */
const positionLists = (fields: {
  readonly job_id?: unknown;
}): readonly { list: string; at: CreatedPosition | 'updatePosition' }[] => [
  ...createdIn(fields),
  { list: LISTS.writeOrder, at: 'updatePosition' },
];

/**
 * updated_at_since with job_id or created_at_since: no list orders by both,
 * so the order of writes is read from its since-cut on, the other filters
 * applied by DynamoDB (O(writes since the cut), docs/pagination.md).
 */
export interface FilteredWriteOrder extends CutList {
  readonly filter: ApplicationListFilter;
}

/** Compiles only when `rest` is empty: a filter `listOf` does not read fails the build instead of being dropped. */
const everyFilterRead = (rest: Readonly<Record<string, never>>): void => void rest;

/**
 * The list a page of GET /applications reads for its filters: each filter
 * combination names its list (counter and maps), the partition of its
 * entries and how a status is applied.
 */
function listOf(businessId: string, filter: ApplicationListFilter): MappedList | FilteredWriteOrder {
  const {
    application_status_id: statusId,
    job_id: job,
    created_at_since: createdSince,
    updated_at_since: updated,
    ...unread
  } = filter;
  everyFilterRead(unread);
  const jobId = job === undefined ? undefined : job === APPLICATION_FILTERS.job_id.absentAs ? null : job;
  if (updated !== undefined) {
    const entries = partitionOf(updatedSince, { businessId });
    if (jobId !== undefined || createdSince !== undefined)
      return { kind: 'filtered', list: LISTS.writeOrder, entries, since: updated, filter };
    // The order of writes holds every status: a status page is its range filtered by status.
    return {
      kind: 'mapped',
      list: LISTS.writeOrder,
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
      list: LISTS.ofJob(jobId),
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
  return { kind: 'mapped', list: LISTS.business, entries, statusId, wholeRange: false, since: createdSince };
}

export const application = {
  entity: 'application',
  key: (businessId: string, id: string): Key => keys.record(businessId, 'application', id),
  patterns: { byPosition, byJob, byStatus, createdSince: sinceCreated, updatedSince, byId },
  listOf,
  createdIn,
  positionLists,
  /** The order of writes: every write moves the application to its end (updated_at_since, retention). */
  lists: LISTS,
  /** The filters, for where DynamoDB applies them (a status on a key range, the filtered order of writes). */
  filters: APPLICATION_FILTERS,
  writeOrder: LISTS.writeOrder,
  /** The business's reservation item of list positions and write times (src/data/lists/sequence.ts). */
  sequence: 'applications-sequence',
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
    feedRefs: feedRefsOf(item.feed_refs),
  }),
  /** The full item of an application at `at`: its attributes, its key and every list key. */
  item: (businessId: string, app: StoredApplication, at: ApplicationPositions): Record<string, unknown> => ({
    ...recordBase(businessId, 'application', app.id),
    ...app,
    ...application.indexKeys(businessId, app, at),
    ...(at.idempotencyPk ? { idempotency_pk: at.idempotencyPk } : {}),
    ...(at.feedRefs?.length ? { feed_refs: at.feedRefs } : {}),
  }),
  /** The stored attributes of an item (keys and bookkeeping dropped). */
  fromItem: (item: Readonly<Record<string, unknown>>): StoredApplication => readAttributes(attributes, item),
} as const;

export type ApplicationPattern = keyof typeof application.patterns;

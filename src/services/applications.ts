/**
 * Applications (contract §6, §7, §9, §11): create, show, partial update and
 * the filtered list whose every page costs the same (docs/pagination.md).
 *
 * Round trips, authentication included: show 2; create and update 3 (auth,
 * one BatchGetItem, one TransactWriteItems that also appends the change-feed
 * entry, docs/change-feed.md); a list page at most 4
 * sequential steps (auth, one parallel read of config/counters/blocks/lookup,
 * at most one dependent count, the page itself).
 */
import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import {
  businessCounterKey,
  businessListPartition,
  countStatusInBlockSince,
  createWrites,
  firstPositionSince,
  jobCounterKey,
  jobListPartition,
  positionsOf,
  readApplication,
  readForUpdate,
  readConfigAndApplications,
  readConfigAndCounters,
  readCreateState,
  readPartitionFiltered,
  readPositionRange,
  readStatusBlocks,
  readStatusFrom,
  readUpdatedSince,
  statusPartition,
  storedOf,
  updateWrites,
} from '../data/application-store';
import { requireConfig } from '../data/business-store';
import { feedAppendWrites } from '../data/feed-store';
import { idempotencyOf, idempotentCreate, type RequestTarget } from '../data/idempotency';
import { transactWrite, withRetries, type Item } from '../data/table-io';
import {
  countsOfStatus,
  matchingRows,
  nextCreatedAt,
  nextUpdatedAt,
  sinceOf,
  statusPagePlan,
  statusSequence,
  straddlingBlock,
  type ApplicationFilters,
} from '../domain/application-pages';
import {
  fieldsForCreate,
  fieldsForUpdate,
  renderApplication,
  type ApplicationRecord,
  type InputContext,
} from '../domain/application-record';
import type { BusinessConfig } from '../domain/business';
import { todayIn } from '../domain/job-dates';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { FieldErrorCollector, MESSAGES, notFound, preconditionFailed } from '../domain/errors';
import { created, etagOf, ifMatchAllows, ok, type ApiResult } from '../domain/result';

export type Body = Record<string, unknown>;

/**
 * Creates of one business serialize on its list counter: each conflict round
 * lets one writer through, so a burst of k parallel creates needs up to k
 * rounds for the last one. Jittered backoff in withRetries spreads them.
 */
const CREATE_ATTEMPTS = 40;
const UPDATE_ATTEMPTS = 16;

export const applicationLocation = (id: string): string => `${API_PREFIX}/applications/${encodeURIComponent(id)}`;

const inputContext = (config: BusinessConfig, fieldErrors: FieldErrorCollector): InputContext => ({
  config,
  today: todayIn(config.timezone),
  report: (field, message) => fieldErrors.add(field, message),
  failed: (field) => fieldErrors.has(field),
});

const view = (config: BusinessConfig, item: Item): Record<string, unknown> => renderApplication(config, storedOf(item));

// ---------------------------------------------------------------------------
// create / show / update
// ---------------------------------------------------------------------------

/** POST /applications: BatchGetItem (config, both counters, idempotency record), checks, one transaction. */
export async function createApplication(
  businessId: string,
  body: Body,
  fieldErrors: FieldErrorCollector,
  idempotencyKey: string | undefined,
  target: RequestTarget,
): Promise<ApiResult> {
  const idem = idempotencyOf(businessId, idempotencyKey, body, target);
  const jobId = typeof body.job_id === 'string' ? body.job_id : null;
  // Chosen before the read: the id decides the change-feed lane whose counter is read.
  const id = randomUUID();
  return idempotentCreate(
    idem,
    (recordKey) => readCreateState(businessId, jobId, id, recordKey),
    (state) => {
      const config = requireConfig(state.config, businessId);
      const fields = fieldsForCreate(body, inputContext(config, fieldErrors));
      fieldErrors.throwIfAny();

      const createdAt = nextCreatedAt(Date.now(), state.lastCreatedAt);
      const app: ApplicationRecord = {
        id,
        ...fields,
        created_at: createdAt,
        updated_at: createdAt,
        version: 1,
      };
      const result = created(renderApplication(config, app), applicationLocation(app.id), {
        ETag: etagOf(app.id, app.version),
      });
      const writes = [
        ...createWrites(businessId, app, state),
        ...feedAppendWrites(businessId, state.feed, [
          { type: 'application.created', id: app.id, occurred_at: app.created_at, data: result.body },
        ]),
      ];
      return { result, writes };
    },
    CREATE_ATTEMPTS,
  );
}

/** GET /applications/{id}: one BatchGetItem (record + config). */
export async function showApplication(businessId: string, id: string): Promise<ApiResult> {
  const { config, item } = await readApplication(businessId, id);
  if (!item) throw notFound('application', id);
  const app = storedOf(item);
  return ok(renderApplication(requireConfig(config, businessId), app), { ETag: etagOf(app.id, app.version) });
}

/** Stored values compared as JSON. */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * PUT /applications/{id}: read (record + config), If-Match, checks, one
 * transaction replacing the record if its version is still the one read
 * (and moving the status block counts when the status changes). A
 * concurrent writer makes it re-run from the read, so changes to different
 * fields all survive; with If-Match the re-run answers 412.
 */
export async function updateApplication(
  businessId: string,
  id: string,
  body: Body,
  fieldErrors: FieldErrorCollector,
  ifMatch: string | undefined,
): Promise<ApiResult> {
  return withRetries(async () => {
    const { config: maybeConfig, item, feed } = await readForUpdate(businessId, id);
    if (!item) throw notFound('application', id);
    const before = storedOf(item);
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etagOf(before.id, before.version))) throw preconditionFailed();

    const config = requireConfig(maybeConfig, businessId);
    const fields = fieldsForUpdate(body, before, inputContext(config, fieldErrors));
    fieldErrors.throwIfAny();
    // Like employees: a PUT that changes nothing writes nothing and keeps updated_at and the ETag.
    if (Object.entries(fields).every(([k, v]) => same(v, (before as unknown as Record<string, unknown>)[k])))
      return ok(renderApplication(config, before), { ETag: etagOf(before.id, before.version) });

    const after: ApplicationRecord = {
      ...before,
      ...fields,
      updated_at: nextUpdatedAt(Date.now(), before.updated_at),
      version: before.version + 1,
    };
    const rendered = renderApplication(config, after);
    await transactWrite([
      ...updateWrites(businessId, before, after, positionsOf(item)),
      ...feedAppendWrites(businessId, feed, [
        { type: 'application.updated', id: after.id, occurred_at: after.updated_at, data: rendered },
      ]),
    ]);
    return ok(rendered, { ETag: etagOf(after.id, after.version) });
  }, UPDATE_ATTEMPTS);
}

// ---------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------

export interface ApplicationListQuery {
  page?: number;
  per_page?: number;
  application_status_id?: string;
  job_id?: string;
  created_at_since?: string;
  updated_at_since?: string;
}

export interface ListFilters extends ApplicationFilters {
  readonly updatedSince?: string;
}

/** Query parameters -> filters; malformed timestamps are 400 field errors (all at once). */
export function listFiltersOf(q: ApplicationListQuery): ListFilters {
  const errors = new FieldErrorCollector();
  const since = (name: 'created_at_since' | 'updated_at_since'): string | undefined => {
    const raw = q[name];
    if (raw === undefined) return undefined;
    const value = sinceOf(raw);
    if (value === undefined) errors.add(name, MESSAGES.invalid);
    return value;
  };
  const filters: ListFilters = {
    ...(q.application_status_id !== undefined ? { statusId: q.application_status_id } : {}),
    ...(q.job_id !== undefined ? { jobId: q.job_id === 'null' ? null : q.job_id } : {}),
    ...(q.created_at_since !== undefined ? { createdSince: since('created_at_since') } : {}),
    ...(q.updated_at_since !== undefined ? { updatedSince: since('updated_at_since') } : {}),
  };
  errors.throwIfAny(400);
  return filters;
}

export interface ListPage {
  readonly entries: Record<string, unknown>[];
  readonly total: number;
}

/** GET /applications: picks the access path for the filters given (docs/pagination.md). */
export async function listApplications(businessId: string, filters: ListFilters, page: PageRequest): Promise<ListPage> {
  if (filters.updatedSince !== undefined) return pageOfUpdatedSince(businessId, filters, filters.updatedSince, page);
  if (filters.statusId !== undefined && filters.jobId !== undefined)
    return pageOfStatusAndJob(businessId, filters.statusId, filters.jobId, filters.createdSince, page);
  if (filters.statusId !== undefined) return pageOfStatus(businessId, filters.statusId, filters.createdSince, page);
  return pageOfDenseList(businessId, filters.jobId, filters.createdSince, page);
}

/**
 * No filter, job_id, and either with created_at_since: a dense list
 * (business list on L1, the job's list on L2). Without `since` the counter
 * and the page's key range are read at once (2 calls); with it, the first
 * position at/after `since` comes from one Limit-1 Query on T1/T2 alongside
 * the counter, then the range (3 calls). O(per_page) items on every page.
 */
async function pageOfDenseList(
  businessId: string,
  jobId: string | null | undefined,
  createdSince: string | undefined,
  page: PageRequest,
): Promise<ListPage> {
  const ofJob = jobId !== undefined;
  const index = ofJob ? 'sublist' : 'list';
  const partition = ofJob ? jobListPartition(businessId, jobId) : businessListPartition(businessId);
  const counter = ofJob ? jobCounterKey(businessId, jobId) : businessCounterKey(businessId);

  if (createdSince === undefined) {
    const range = pagePositions(page, Number.MAX_SAFE_INTEGER);
    const [{ config, counts }, items] = await Promise.all([
      readConfigAndCounters(businessId, [counter]),
      range ? readPositionRange(index, partition, range.first, range.last) : Promise.resolve([]),
    ]);
    const c = requireConfig(config, businessId);
    return { entries: items.map((i) => view(c, i)), total: counts[0] ?? 0 };
  }

  const [{ config, counts }, first] = await Promise.all([
    readConfigAndCounters(businessId, [counter]),
    firstPositionSince(ofJob ? 'subcreated' : 'created', partition, createdSince),
  ]);
  const c = requireConfig(config, businessId);
  const n = counts[0] ?? 0;
  const total = first === undefined ? 0 : Math.max(0, n - first + 1);
  const range = pagePositions(page, total, (first ?? 1) - 1);
  const items = range ? await readPositionRange(index, partition, range.first, range.last) : [];
  return { entries: items.map((i) => view(c, i)), total };
}

/**
 * application_status_id (± created_at_since): the business's status blocks
 * (N/B small items, one consistent Query) give the exact total and, by prefix
 * sums, the block holding the page's first entry and how many of the
 * status's entries in it precede the page; one Query on the status partition
 * from that block's first position reads skip + per_page entries (skip < B).
 * With created_at_since, only the block straddling `since` needs a COUNT
 * Query (<= B entries); blocks after it are entirely newer.
 */
async function pageOfStatus(
  businessId: string,
  statusId: string,
  createdSince: string | undefined,
  page: PageRequest,
): Promise<ListPage> {
  const [{ config }, blocks] = await Promise.all([readConfigAndCounters(businessId, []), readStatusBlocks(businessId)]);
  const c = requireConfig(config, businessId);

  let since: { block: number; matchingInStraddling: number } | undefined;
  if (createdSince !== undefined) {
    const block = straddlingBlock(blocks, createdSince);
    const inBlock = block >= 0 ? (countsOfStatus(blocks, statusId, block)[0] ?? 0) : 0;
    const matchingInStraddling =
      inBlock > 0 ? await countStatusInBlockSince(businessId, statusId, block, createdSince) : 0;
    since = { block, matchingInStraddling };
  }
  const { total, read } = statusPagePlan(statusSequence(blocks, statusId, since), page);
  if (!read) return { entries: [], total };
  const items = await readStatusFrom(businessId, statusId, read.from, read.skip + read.take);
  return { entries: items.slice(read.skip, read.skip + read.take).map((i) => view(c, i)), total };
}

/**
 * application_status_id + job_id (± created_at_since): no dense order of
 * its own. The smaller of the two partitions (job list size from its
 * counter, status size from the blocks) is read with the other filters
 * applied by DynamoDB: O(min(|job|, |status|)) entries, the same on every page.
 */
async function pageOfStatusAndJob(
  businessId: string,
  statusId: string,
  jobId: string | null,
  createdSince: string | undefined,
  page: PageRequest,
): Promise<ListPage> {
  const [{ config, counts }, blocks] = await Promise.all([
    readConfigAndCounters(businessId, [jobCounterKey(businessId, jobId)]),
    readStatusBlocks(businessId),
  ]);
  const c = requireConfig(config, businessId);
  const jobSize = counts[0] ?? 0;
  const statusSize = countsOfStatus(blocks, statusId).reduce((a, b) => a + b, 0);
  let items: Item[] = [];
  if (jobSize > 0 && statusSize > 0) {
    items =
      jobSize <= statusSize
        ? await readPartitionFiltered('sublist', jobListPartition(businessId, jobId), { statusId, createdSince })
        : await readPartitionFiltered('statuslist', statusPartition(businessId, statusId), { jobId, createdSince });
  }
  const rows = matchingRows(
    items.map((item) => ({ item, ...rowOf(item) })),
    { statusId, jobId, ...(createdSince !== undefined ? { createdSince } : {}) },
  );
  const range = pagePositions(page, rows.length);
  const entries = range ? rows.slice(range.first - 1, range.last).map((r) => view(c, r.item)) : [];
  return { entries, total: rows.length };
}

/**
 * updated_at_since (with anything): updated_at has no dense order, so the
 * `updated` index (T3SK = updated_at#id, projecting position, status, job,
 * created_at) is read from `since` on with the other filters applied; the
 * matches are ordered by position, counted, and only the page's records are
 * read (one BatchGetItem, together with the config). O(matches) small index
 * entries + per_page records, the same on every page.
 */
async function pageOfUpdatedSince(
  businessId: string,
  filters: ListFilters,
  updatedSince: string,
  page: PageRequest,
): Promise<ListPage> {
  const indexRows = await readUpdatedSince(businessId, updatedSince, filters);
  const rows = matchingRows(
    indexRows.map((r) => ({ ...rowOf(r), id: String(r.T3SK).slice(String(r.T3SK).indexOf('#') + 1) })),
    filters,
  );
  const range = pagePositions(page, rows.length);
  const ids = range ? rows.slice(range.first - 1, range.last).map((r) => r.id) : [];
  const { config, items } = await readConfigAndApplications(businessId, ids);
  const c = requireConfig(config, businessId);
  return { entries: items.map((i) => view(c, i)), total: rows.length };
}

function rowOf(item: Item) {
  return {
    position: Number(item.L1SK),
    application_status_id: String(item.application_status_id),
    job_id: typeof item.job_id === 'string' ? item.job_id : null,
    created_at: String(item.created_at),
  };
}

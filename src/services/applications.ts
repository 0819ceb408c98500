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
  BUSINESS_LIST,
  businessCounterKey,
  jobListName,
  createWrites,
  deleteWrites,
  jobCounterKey,
  positionsOf,
  readApplication,
  readForWrite,
  readListState,
  readCreateState,
  readFrom,
  readMaps,
  applicationsOf,
  readUpdatedSince,
  storedOf,
  UPDATED_LIST,
  updatedCounterKey,
  updateWrites,
} from '../data/application-store';
import { feedAppendWrites } from '../data/feed-store';
import { applicationRedactions } from '../data/feed-redaction';
import { withFeedRef } from '../domain/feed-refs';
import type { RetentionOutcome } from '../domain/retention';
import { idempotencyOf, idempotentCreate, type RequestTarget } from '../data/idempotency';
import { RetryOperation, transactWrite, withRetries, type Item } from '../data/table-io';
import { nextCreatedAt, nextUpdatedAt, type ApplicationFilters } from '../domain/application-pages';
import {
  countBefore,
  countsOf,
  isFull,
  locate,
  mapsForPage,
  pageSuperblocks,
  positionInMap,
  positionOf,
  countOlderInMap,
  statusCode,
  straddlingSuperblock,
  totalOf,
} from '../domain/list-map';
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
import { FieldErrorCollector, notFound, preconditionFailed } from '../domain/errors';
import { created, etagOf, ifMatchAllows, noContent, ok, type ApiResult } from '../domain/result';

export type Body = Record<string, unknown>;

/**
 * Creates of one business serialize on its list counter: each conflict round
 * lets one writer through, so a burst of k parallel creates needs up to k
 * rounds for the last one. withRetries spaces the rounds (src/data/retry-pause.ts).
 */
const CREATE_ATTEMPTS = 40;
const UPDATE_ATTEMPTS = 40;

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
      const { config } = state;
      const fields = fieldsForCreate(body, inputContext(config, fieldErrors));
      fieldErrors.throwIfAny();

      // After the last create (position order) and the last write (order of writes): both orders follow time.
      const createdAt = nextCreatedAt(Date.now(), latest(state.lastCreatedAt, state.writeOrder.lastUpdatedAt));
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
        ...createWrites(businessId, config, app, state, idem?.key),
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
  return ok(renderApplication(config, app), { ETag: etagOf(app.id, app.version) });
}

/** The later of two stored timestamps (same format, so string order is time order). */
const latest = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a > b ? a : b);

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
    const { config, item, writeOrder, feed } = await readForWrite(businessId, id);
    if (!item) throw notFound('application', id);
    // BatchGetItem is no snapshot: the record may already carry a concurrent write whose move of the order
    // of writes the counter read missed (the two positions would collide in one update). Read again.
    if (positionsOf(item).updatePosition > writeOrder.count) throw new RetryOperation();
    const before = storedOf(item);
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etagOf(before.id, before.version))) throw preconditionFailed();

    const fields = fieldsForUpdate(body, before, inputContext(config, fieldErrors));
    fieldErrors.throwIfAny();
    // Like employees: a PUT that changes nothing writes nothing and keeps updated_at and the ETag.
    if (Object.entries(fields).every(([k, v]) => same(v, (before as unknown as Record<string, unknown>)[k])))
      return ok(renderApplication(config, before), { ETag: etagOf(before.id, before.version) });

    const after: ApplicationRecord = {
      ...before,
      ...fields,
      updated_at: nextUpdatedAt(Date.now(), latest(before.updated_at, writeOrder.lastUpdatedAt)),
      version: before.version + 1,
    };
    const rendered = renderApplication(config, after);
    const at = positionsOf(item);
    // This write's feed entry is the lane's next one (feedAppendWrites): the record lists it for its erasure.
    const feedRefs = withFeedRef(at.feedRefs ?? [], feed.n + 1, after.updated_at, Date.now());
    await transactWrite([
      ...updateWrites(businessId, config, before, after, { ...at, feedRefs }, writeOrder),
      ...feedAppendWrites(businessId, feed, [
        { type: 'application.updated', id: after.id, occurred_at: after.updated_at, data: rendered },
      ]),
    ]);
    return ok(rendered, { ETag: etagOf(after.id, after.version) });
  }, UPDATE_ATTEMPTS);
}

/**
 * DELETE /applications/{id} (contract §17): erases it (eraseApplication);
 * 404 when there is nothing to erase.
 */
export async function deleteApplication(businessId: string, id: string): Promise<ApiResult> {
  if ((await eraseApplication(businessId, id)).kind === 'gone') throw notFound('application', id);
  return noContent();
}

/**
 * The one erasure path of DELETE and retention (contract §17): read (record +
 * config + order of writes + feed lane), one transaction deleting the record
 * if its version is still the one read, with holes in every list's summary and
 * map, the idempotency record of its create turned into a data-free tombstone,
 * `application.deleted` appended and its earlier feed entries redacted (those
 * near expiry or over the transaction's cap just before it). A racing PUT
 * makes it re-run from the read (so it erases the updated record and uncounts
 * its current status); a PUT that loses finds no record (404): never
 * resurrected, never counted twice. `keep` (retention: not due) is decided on
 * the record read in the same attempt, so a PUT that makes it recent wins.
 */
export async function eraseApplication(
  businessId: string,
  id: string,
  keep?: (app: ApplicationRecord) => boolean,
): Promise<RetentionOutcome> {
  return withRetries(async (): Promise<RetentionOutcome> => {
    const { config, item, feed } = await readForWrite(businessId, id);
    if (!item) return { kind: 'gone' };
    const app = storedOf(item);
    const at = positionsOf(item);
    if (keep?.(app)) return { kind: 'kept', updatePosition: at.updatePosition };
    const redactions = applicationRedactions(businessId, id, at.feedRefs ?? []);
    await redactions.before();
    await transactWrite([
      ...deleteWrites(businessId, config, app, at),
      ...feedAppendWrites(businessId, feed, [
        { type: 'application.deleted', id, occurred_at: new Date().toISOString(), data: null },
      ]),
      ...redactions.writes,
    ]);
    return { kind: 'erased' };
    // Erasures touch the business's shared counters and maps like creates do: the same retry budget.
  }, CREATE_ATTEMPTS);
}

// ---------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------

/** The filters of an application list, parsed from the query by the http layer (src/http/application-query.ts). */
export interface ListFilters extends ApplicationFilters {
  readonly updatedSince?: string;
}

export interface ListPage {
  readonly entries: Record<string, unknown>[];
  readonly total: number;
}

/** GET /applications: picks the access path for the filters given (docs/pagination.md). */
export async function listApplications(businessId: string, filters: ListFilters, page: PageRequest): Promise<ListPage> {
  if (filters.updatedSince !== undefined) return pageOfUpdatedSince(businessId, filters, filters.updatedSince, page);
  return pageOfList(businessId, filters, page);
}

/** The status code a page filters by (undefined: none; -1: a status the business does not have). */
const codeFor = (config: BusinessConfig, statusId: string | undefined): number | undefined =>
  statusId === undefined ? undefined : statusCode(config.application_status_ids, statusId);

/**
 * Every filter but updated_at_since: one list (the business list, or the job
 * opening's list for job_id), counted by status code when
 * application_status_id is given. Its summary (in the counter item, read
 * with the config) gives the exact total and the superblock of the page's
 * first entry; that superblock's map gives its exact position; one Query of
 * the key-only index from there reads exactly the page's entries, one
 * BatchGetItem their records. With created_at_since, the summary names the
 * one superblock straddling `since`; its map (read with the maps that may
 * hold the page) says how many matches precede the cut. The maps go out with
 * the summary when this instance has read the list before (readListState):
 * then 3 calls after auth, the same on every page; 4 on a cold instance.
 */
async function pageOfList(businessId: string, filters: ListFilters, page: PageRequest): Promise<ListPage> {
  const { jobId, statusId, createdSince } = filters;
  const ofJob = jobId !== undefined;
  const list = ofJob ? jobListName(jobId) : BUSINESS_LIST;
  const counter = ofJob ? jobCounterKey(businessId, jobId) : businessCounterKey(businessId);
  const skipped = (page.page - 1) * page.perPage;
  const sinceMs = createdSince === undefined ? undefined : Date.parse(createdSince);
  const ask = (config: BusinessConfig) => ({
    code: codeFor(config, statusId),
    sinceMs,
    skipped,
    perPage: page.perPage,
    wholeRange: ofJob && statusId !== undefined,
  });

  const {
    config: c,
    summary,
    maps,
  } = await readListState(businessId, counter, list, (config, s) => mapsForPage(s, ask(config)));
  const code = codeFor(c, statusId);
  if (code === -1) return { entries: [], total: 0 };
  const counts = countsOf(summary, code);

  let before = 0;
  const straddling = sinceMs === undefined ? -1 : straddlingSuperblock(summary, sinceMs);
  if (sinceMs !== undefined && straddling >= 0)
    before = countBefore(counts, straddling) + countOlderInMap(maps.get(straddling) ?? [], sinceMs, code);
  const total = totalOf(counts) - before;
  if (skipped >= total) return { entries: [], total };
  const take = Math.min(page.perPage, total - skipped);
  const k = before + skipped + 1;
  const needed = ofJob && code !== undefined ? pageSuperblocks(counts, k, take) : pageSuperblocks(counts, k, 1);
  const exactWithoutMap = code === undefined && needed.every((sb) => isFull(summary, sb));
  // mapsForPage named every map this page reads: a miss here would be a bug in it, answered with one more call.
  const missing = exactWithoutMap ? [] : needed.filter((sb) => !maps.has(sb));
  if (missing.length) for (const [sb, m] of await readMaps(businessId, list, missing)) maps.set(sb, m);
  const at = (rank: number): number => {
    const loc = locate(counts, rank)!;
    return exactWithoutMap
      ? positionOf(loc.superblock, loc.rank - 1)
      : positionInMap(maps.get(loc.superblock) ?? [], loc.superblock, loc.rank, code)!;
  };
  const first = at(k);

  let items: Item[];
  if (ofJob && code !== undefined) {
    const entries = await readFrom('byJob', { businessId, jobId }, { from: first, to: at(k + take - 1) }, { statusId });
    items = await applicationsOf('byJob', entries.slice(0, take));
  } else if (code !== undefined) {
    const entries = await readFrom('byStatus', { businessId, statusId: statusId! }, { from: first, limit: take });
    items = await applicationsOf('byStatus', entries);
  } else if (ofJob)
    items = await applicationsOf('byJob', await readFrom('byJob', { businessId, jobId }, { from: first, limit: take }));
  else {
    const name = createdSince === undefined ? 'byPosition' : 'createdSince';
    items = await applicationsOf(name, await readFrom(name, { businessId }, { from: first, limit: take }));
  }
  return { entries: items.slice(0, take).map((i) => view(c, i)), total };
}

/**
 * updated_at_since, alone or with application_status_id: ordered by
 * updated_at (contract §7's exception). The order of writes is a list like
 * the others (every write takes the next position and leaves a hole where
 * the application was), so its summary and maps locate the cut and the page
 * exactly: per_page key-only entries and their records, whatever the number
 * of matches; 3 calls after auth when the maps go out with the summary.
 */
async function pageOfUpdatedSince(
  businessId: string,
  filters: ListFilters,
  updatedSince: string,
  page: PageRequest,
): Promise<ListPage> {
  if (filters.jobId !== undefined || filters.createdSince !== undefined)
    return pageOfUpdatedSinceScan(businessId, filters, updatedSince, page);
  const skipped = (page.page - 1) * page.perPage;
  const sinceMs = Date.parse(updatedSince);
  const ask = (config: BusinessConfig) => ({
    code: codeFor(config, filters.statusId),
    sinceMs,
    skipped,
    perPage: page.perPage,
    // With a status, the page is the range between its first and last entry (other statuses filtered out).
    wholeRange: filters.statusId !== undefined,
  });
  const {
    config: c,
    summary,
    maps,
  } = await readListState(businessId, updatedCounterKey(businessId), UPDATED_LIST, (config, s) =>
    mapsForPage(s, ask(config)),
  );
  const code = codeFor(c, filters.statusId);
  if (code === -1) return { entries: [], total: 0 };
  const counts = countsOf(summary, code);
  const straddling = straddlingSuperblock(summary, sinceMs);
  const before =
    straddling >= 0 ? countBefore(counts, straddling) + countOlderInMap(maps.get(straddling) ?? [], sinceMs, code) : 0;
  const total = totalOf(counts) - before;
  if (skipped >= total) return { entries: [], total };
  const take = Math.min(page.perPage, total - skipped);
  const k = before + skipped + 1;
  const needed = pageSuperblocks(counts, k, code === undefined ? 1 : take);
  const exactWithoutMap = code === undefined && needed.every((sb) => isFull(summary, sb));
  const missing = exactWithoutMap ? [] : needed.filter((sb) => !maps.has(sb));
  if (missing.length) for (const [sb, m] of await readMaps(businessId, UPDATED_LIST, missing)) maps.set(sb, m);
  const at = (rank: number): number => {
    const loc = locate(counts, rank)!;
    return exactWithoutMap
      ? positionOf(loc.superblock, loc.rank - 1)
      : positionInMap(maps.get(loc.superblock) ?? [], loc.superblock, loc.rank, code)!;
  };
  const entries =
    code === undefined
      ? await readFrom('updatedSince', { businessId }, { from: at(k), limit: take })
      : await readFrom(
          'updatedSince',
          { businessId },
          { from: at(k), to: at(k + take - 1) },
          { statusId: filters.statusId },
        );
  const items = await applicationsOf('updatedSince', entries.slice(0, take));
  return { entries: items.map((i) => view(c, i)), total };
}

/**
 * updated_at_since with job_id or created_at_since: no order of its own. The
 * order of writes is read from the superblock straddling `since` on, the
 * filters applied by DynamoDB: O(writes since the cut) entries, the same on
 * every page, exact totals.
 */
async function pageOfUpdatedSinceScan(
  businessId: string,
  filters: ListFilters,
  updatedSince: string,
  page: PageRequest,
): Promise<ListPage> {
  const { config: c, summary } = await readListState(businessId, updatedCounterKey(businessId), UPDATED_LIST, () => []);
  const straddling = straddlingSuperblock(summary, Date.parse(updatedSince));
  const matches = await readUpdatedSince(businessId, positionOf(Math.max(0, straddling), 0), updatedSince, filters);
  const range = pagePositions(page, matches.length);
  const items = range ? await applicationsOf('updatedSince', matches.slice(range.first - 1, range.last)) : [];
  return { entries: items.map((i) => view(c, i)), total: matches.length };
}

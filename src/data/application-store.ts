/**
 * Every DynamoDB access of applications (docs/pagination.md). Built on the
 * table-io primitives; the service decides, this module only reads and writes.
 * Keys, lists and access patterns are the application entity's
 * (src/data/entities/application.ts): byPosition and byJob (dense positions),
 * byStatus (business position within one status), updatedSince (position of
 * the last write: a write moves it to the end of the order of writes). The
 * list indexes project keys (and what their filters need), never a name or an
 * email, so an update does not rewrite them: pages read the index entries,
 * then the records by key (`applicationsOf`).
 */
import type { ApplicationRecord } from '../domain/application-record';
import type { BusinessConfig } from '../domain/business';
import {
  HOLE,
  firstCreatedAttribute,
  liveAttribute,
  mapAttribute,
  mapOf,
  mapValue,
  statusAttribute,
  statusCode,
  summaryOf,
  superblockOf,
  type ListSummary,
} from '../domain/list-map';
import { configOf, requireConfig } from './business-store';
import { pageHintOf, rememberPageHint } from './page-hints';
import { keys, type Key } from './keys';
import {
  application,
  type ApplicationPattern,
  type ApplicationPositions as PositionsInLists,
} from './entities/application';
import type { AccessPattern, ParamsOf } from './entities/entity';
import { readEntries, recordsOf, type PositionRange, type QueryFilter } from './list-store';
import { counterAdvance } from './list-counter';
import { feedCounterKey, feedLaneStateOf, type FeedLaneState } from './feed-store';
import { feedRefsOf, withFeedRef, type FeedRef } from '../domain/feed-refs';
import { idempotencyTombstoneWrite } from './idempotency';
import { batchGet, carries, exists, type Item, type TxWrite } from './table-io';

export const BUSINESS_LIST = application.lists.business;

/** Where an application sits in its lists, and where its change-feed entries are (redacted on erasure). */
export interface ApplicationPositions extends PositionsInLists {
  readonly feedRefs?: readonly FeedRef[];
}
/** The list of applications in the order of their last write (updated_at ascending). */
export const UPDATED_LIST = application.lists.updated;
export const jobListName = application.lists.job;

/** Stored fields of an application (its response fields, custom values under `cf`). */
export type StoredApplication = ApplicationRecord;

export const applicationKey = application.key;
export const businessCounterKey = application.counters.business;
export const updatedCounterKey = application.counters.updated;
export const jobCounterKey = application.counters.job;
const mapKey = (businessId: string, list: string, position: number): Key =>
  keys.listMap(businessId, list, superblockOf(position));

/** The full item of an application: its fields plus every list key. Also used by the benchmark seeder (scripts/lib/seed-applications.ts). */
export function applicationItem(businessId: string, app: StoredApplication, at: ApplicationPositions): Item {
  return {
    ...applicationKey(businessId, app.id),
    kind: application.entity,
    business_id: businessId,
    ...app,
    ...application.indexKeys(businessId, app, at),
    ...(at.idempotencyPk ? { idempotency_pk: at.idempotencyPk } : {}),
    ...(at.feedRefs?.length ? { feed_refs: at.feedRefs } : {}),
  };
}

/** The stored fields of an item (drops keys and bookkeeping). */
export function storedOf(item: Item): StoredApplication {
  return {
    id: String(item.id),
    job_id: typeof item.job_id === 'string' ? item.job_id : null,
    application_status_id: String(item.application_status_id),
    accept_terms_and_conditions: item.accept_terms_and_conditions === true,
    accept_archivation: item.accept_archivation === true,
    language: String(item.language),
    campaign_id: typeof item.campaign_id === 'string' ? item.campaign_id : null,
    first_name: String(item.first_name),
    last_name: String(item.last_name),
    gender: typeof item.gender === 'string' ? item.gender : null,
    email: String(item.email),
    phone: typeof item.phone === 'string' ? item.phone : null,
    birthday: typeof item.birthday === 'string' ? item.birthday : null,
    cf: (item.cf as Record<string, unknown> | undefined) ?? {},
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
    version: Number(item.version ?? 1),
  };
}

/** The entity's positions, plus where the application's change-feed entries are (redacted on erasure). */
export const positionsOf = (item: Item): ApplicationPositions => ({
  ...application.positionsOf(item),
  feedRefs: feedRefsOf(item.feed_refs),
});

// ---------------------------------------------------------------- writes

/** Moves the summary counts of one entry: status `from` -> `to` (undefined = not counted / not live). */
function summaryMove(key: Key, position: number, from: number | undefined, to: number | undefined): TxWrite {
  const sb = superblockOf(position);
  const adds: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const add = (attr: string, delta: number): void => {
    const i = adds.length;
    names[`#a${i}`] = attr;
    values[`:d${i}`] = delta;
    adds.push(`#a${i} :d${i}`);
  };
  if (from === undefined && to !== undefined) add(liveAttribute(sb), 1);
  if (from !== undefined && to === undefined) add(liveAttribute(sb), -1);
  if (from !== undefined) add(statusAttribute(sb, from), -1);
  if (to !== undefined) add(statusAttribute(sb, to), 1);
  return {
    item: {
      Update: {
        Key: key,
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

/** Sets one position of a list's map (SET of one attribute: concurrent writes to other positions commute). */
function mapWrite(businessId: string, list: string, position: number, value: number): TxWrite {
  return {
    item: {
      Update: {
        Key: mapKey(businessId, list, position),
        UpdateExpression: 'SET #p = :c',
        ExpressionAttributeNames: { '#p': mapAttribute(position) },
        ExpressionAttributeValues: { ':c': value },
      },
    },
  };
}

/**
 * The order of writes: every create or update takes the next position of the
 * updated list (conditioned on the counter read, like creates on the business
 * list, so updated_at order = position order) and leaves a hole where the
 * application was. Summary deltas of both positions go into the one counter
 * Update; both map positions into one Update when they share a superblock.
 */
function updatedListMove(
  businessId: string,
  state: WriteOrder,
  from: { position: number; code: number } | undefined,
  code: number,
  updatedAt: string,
): TxWrite[] {
  const position = state.count + 1;
  const ms = Date.parse(updatedAt);
  const sb = superblockOf(position);
  const deltas = new Map<string, number>();
  const add = (attr: string, d: number): void => void deltas.set(attr, (deltas.get(attr) ?? 0) + d);
  add(liveAttribute(sb), 1);
  add(statusAttribute(sb, code), 1);
  if (from) {
    add(liveAttribute(superblockOf(from.position)), -1);
    add(statusAttribute(superblockOf(from.position), from.code), -1);
  }
  const changed = [...deltas].filter(([, d]) => d !== 0);
  const names: Record<string, string> = { '#f': firstCreatedAttribute(sb), '#t': 'last_updated_at' };
  const values: Record<string, unknown> = { ':next': position, ':current': state.count, ':ms': ms, ':t': updatedAt };
  changed.forEach(([attr, d], i) => {
    names[`#a${i}`] = attr;
    values[`:d${i}`] = d;
  });
  const counter: TxWrite = {
    item: {
      Update: {
        Key: updatedCounterKey(businessId),
        UpdateExpression:
          'SET n = :next, #f = if_not_exists(#f, :ms), #t = :t' +
          (changed.length ? ` ADD ${changed.map((_, i) => `#a${i} :d${i}`).join(', ')}` : ''),
        ConditionExpression: state.count === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    onConditionFailed: () => 'retry',
  };
  const sets = new Map<number, [string, number][]>();
  const set = (p: number, v: number): void =>
    void sets.set(superblockOf(p), [...(sets.get(superblockOf(p)) ?? []), [mapAttribute(p), v]]);
  set(position, mapValue(ms, code));
  if (from) set(from.position, HOLE);
  const maps: TxWrite[] = [...sets].map(([superblock, pairs]) => ({
    item: {
      Update: {
        Key: keys.listMap(businessId, UPDATED_LIST, superblock),
        UpdateExpression: `SET ${pairs.map((_, i) => `#p${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(pairs.map(([attr], i) => [`#p${i}`, attr])),
        ExpressionAttributeValues: Object.fromEntries(pairs.map(([, v], i) => [`:v${i}`, v])),
      },
    },
  }));
  return [counter, ...maps];
}

/** Length of the updated list and updated_at of its last write (the updated list counter). */
export interface WriteOrder {
  readonly count: number;
  readonly lastUpdatedAt: string | null;
}

const writeOrderOf = (counter: Item | undefined): WriteOrder => ({
  count: Number(counter?.n ?? 0),
  lastUpdatedAt: typeof counter?.last_updated_at === 'string' ? counter.last_updated_at : null,
});

export interface CreateState {
  readonly config: BusinessConfig;
  /** Length of the business list and created_at of its last entry. */
  readonly count: number;
  readonly lastCreatedAt: string | null;
  /** Length of the job opening's list. */
  readonly jobCount: number;
  readonly writeOrder: WriteOrder;
  readonly idempotency: Item | undefined;
  /** The new application's lane of the change feed, appended to in the same transaction. */
  readonly feed: FeedLaneState;
}

/** Everything a create decides on, in one BatchGetItem. */
export async function readCreateState(
  businessId: string,
  jobId: string | null,
  id: string,
  idempotencyKey?: Key,
): Promise<CreateState> {
  const [config, counter, jobCounter, updated, feed, idem] = await batchGet([
    keys.business(businessId),
    businessCounterKey(businessId),
    jobCounterKey(businessId, jobId),
    updatedCounterKey(businessId),
    feedCounterKey(businessId, 'application', id),
    ...(idempotencyKey ? [idempotencyKey] : []),
  ]);
  return {
    feed: feedLaneStateOf('application', id, feed),
    config: requireConfig(configOf(config), businessId),
    count: Number(counter?.n ?? 0),
    lastCreatedAt: typeof counter?.last_created_at === 'string' ? counter.last_created_at : null,
    jobCount: Number(jobCounter?.n ?? 0),
    writeOrder: writeOrderOf(updated),
    idempotency: idempotencyKey ? idem : undefined,
  };
}

const codeOf = (config: BusinessConfig, statusId: string): number =>
  statusCode(config.application_status_ids, statusId);

/**
 * The writes of a create: the item, both counters (conditioned on the values
 * read, so positions stay dense under concurrency) with their summaries, and
 * the new position in both maps. The caller adds the idempotency record and
 * commits them in one transaction.
 */
export function createWrites(
  businessId: string,
  config: BusinessConfig,
  app: StoredApplication,
  state: CreateState,
  idempotencyKey?: Key,
): TxWrite[] {
  const at = {
    position: state.count + 1,
    jobPosition: state.jobCount + 1,
    updatePosition: state.writeOrder.count + 1,
    ...(idempotencyKey ? { idempotencyPk: idempotencyKey.PK } : {}),
    // The create's feed entry is the first one at state.feed.n + 1 (feedAppendWrites).
    feedRefs: withFeedRef([], state.feed.n + 1, app.created_at, Date.now()),
  };
  const code = codeOf(config, app.application_status_id);
  return [
    {
      item: { Put: { Item: applicationItem(businessId, app, at), ConditionExpression: 'attribute_not_exists(PK)' } },
      onConditionFailed: () => 'retry',
      confirms: exists,
    },
    counterAdvance(businessCounterKey(businessId), state.count, {
      set: { last_created_at: app.created_at },
      summary: { code, createdAtMs: Date.parse(app.created_at) },
    }),
    counterAdvance(jobCounterKey(businessId, app.job_id), state.jobCount, {
      summary: { code, createdAtMs: Date.parse(app.created_at) },
    }),
    mapWrite(businessId, BUSINESS_LIST, at.position, mapValue(Date.parse(app.created_at), code)),
    mapWrite(businessId, jobListName(app.job_id), at.jobPosition, mapValue(Date.parse(app.created_at), code)),
    ...updatedListMove(businessId, state.writeOrder, undefined, code, app.updated_at),
  ];
}

/**
 * The writes of an update: the whole item replaced if nobody wrote it since
 * it was read (`version`), and, when the status changes, both lists' summary
 * counts and map entries moved in the same transaction.
 */
export function updateWrites(
  businessId: string,
  config: BusinessConfig,
  before: StoredApplication,
  after: StoredApplication,
  at: ApplicationPositions,
  writeOrder: WriteOrder,
): TxWrite[] {
  const writes: TxWrite[] = [
    {
      item: {
        Put: {
          Item: applicationItem(businessId, after, { ...at, updatePosition: writeOrder.count + 1 }),
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': before.version },
        },
      },
      onConditionFailed: () => 'retry',
      confirms: carries(after.version, after.updated_at),
    },
  ];
  const from = codeOf(config, before.application_status_id);
  const to = codeOf(config, after.application_status_id);
  writes.push(
    ...updatedListMove(businessId, writeOrder, { position: at.updatePosition, code: from }, to, after.updated_at),
  );
  if (from !== to) {
    const jobList = jobListName(after.job_id);
    writes.push(
      summaryMove(businessCounterKey(businessId), at.position, from, to),
      summaryMove(jobCounterKey(businessId, after.job_id), at.jobPosition, from, to),
      mapWrite(businessId, BUSINESS_LIST, at.position, mapValue(Date.parse(after.created_at), to)),
      mapWrite(businessId, jobList, at.jobPosition, mapValue(Date.parse(after.created_at), to)),
    );
  }
  return writes;
}

/**
 * The writes of an erasure: the item deleted if nobody wrote it since it was
 * read (a racing PUT makes the erasure re-run from the read, so it never
 * counts a status twice), both summaries and maps get a hole at its
 * positions, and the idempotency record holding its first response becomes a
 * data-free tombstone (a retried create answers 410, never creates it again).
 */
export function deleteWrites(
  businessId: string,
  config: BusinessConfig,
  app: StoredApplication,
  at: ApplicationPositions,
): TxWrite[] {
  const code = codeOf(config, app.application_status_id);
  return [
    {
      item: {
        Delete: {
          Key: applicationKey(businessId, app.id),
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': app.version },
        },
      },
      onConditionFailed: () => 'retry',
      // Witness of an erasure whose answer was lost: the record is gone.
      confirms: (stored) => stored === undefined,
    },
    summaryMove(businessCounterKey(businessId), at.position, code, undefined),
    summaryMove(jobCounterKey(businessId, app.job_id), at.jobPosition, code, undefined),
    mapWrite(businessId, BUSINESS_LIST, at.position, HOLE),
    mapWrite(businessId, jobListName(app.job_id), at.jobPosition, HOLE),
    summaryMove(updatedCounterKey(businessId), at.updatePosition, code, undefined),
    mapWrite(businessId, UPDATED_LIST, at.updatePosition, HOLE),
    ...(at.idempotencyPk ? [idempotencyTombstoneWrite(at.idempotencyPk)] : []),
  ];
}

// ---------------------------------------------------------------- reads

/** An application and the business config, one BatchGetItem. */
export async function readApplication(
  businessId: string,
  id: string,
): Promise<{ config: BusinessConfig; item: Item | undefined }> {
  const [config, item] = await batchGet([keys.business(businessId), applicationKey(businessId, id)]);
  return { config: requireConfig(configOf(config), businessId), item };
}

/** What a write of an application decides on: config, the item, the order of writes, its feed lane; one BatchGetItem. */
export async function readForWrite(
  businessId: string,
  id: string,
): Promise<{
  config: BusinessConfig;
  item: Item | undefined;
  writeOrder: WriteOrder;
  feed: FeedLaneState;
}> {
  const [config, item, updated, feed] = await batchGet([
    keys.business(businessId),
    applicationKey(businessId, id),
    updatedCounterKey(businessId),
    feedCounterKey(businessId, 'application', id),
  ]);
  return {
    config: requireConfig(configOf(config), businessId),
    item,
    writeOrder: writeOrderOf(updated),
    feed: feedLaneStateOf('application', id, feed),
  };
}

/**
 * What a page of `list` starts from: the business config, the list's summary
 * (its counter) and the position maps `wanted` names for them. The maps the
 * hint of this list names (src/data/page-hints.ts) go out in the same
 * BatchGetItem as config and summary; any other map `wanted` names for what
 * was read comes in a second one (a cold instance, or a list that moved).
 */
export async function readListState(
  businessId: string,
  counterKey: Key,
  list: string,
  wanted: (config: BusinessConfig, summary: ListSummary) => readonly number[],
): Promise<{ config: BusinessConfig; summary: ListSummary; maps: Map<number, number[]> }> {
  const hint = pageHintOf(counterKey.PK);
  const guessed = hint ? wanted(hint.config, hint.summary) : [];
  const [configItem, counter, ...mapItems] = await batchGet([
    keys.business(businessId),
    counterKey,
    ...guessed.map((sb) => keys.listMap(businessId, list, sb)),
  ]);
  const config = requireConfig(configOf(configItem), businessId);
  const summary = summaryOf(counter);
  rememberPageHint(counterKey.PK, { config, summary });
  const maps = new Map(guessed.map((sb, i) => [sb, mapOf(mapItems[i])]));
  const missing = wanted(config, summary).filter((sb) => !maps.has(sb));
  if (missing.length) for (const [sb, m] of await readMaps(businessId, list, missing)) maps.set(sb, m);
  return { config, summary, maps };
}

/** Maps of some superblocks of a list (one BatchGetItem), by superblock. */
export async function readMaps(
  businessId: string,
  list: string,
  superblocks: readonly number[],
): Promise<Map<number, number[]>> {
  const items = await batchGet(superblocks.map((sb) => keys.listMap(businessId, list, sb)));
  return new Map(superblocks.map((sb, i) => [sb, mapOf(items[i])]));
}

/**
 * Up to `limit` applications of the order of writes (oldest updated_at first)
 * from position `from` on, as ids and positions, for the retention walk. One
 * Query reading at most `limit` items; only key attributes are used, which
 * every index projection carries.
 */
export async function readWriteOrderFrom(
  businessId: string,
  from: number,
  limit: number,
): Promise<{ id: string; updatePosition: number }[]> {
  const prefix = applicationKey(businessId, '').PK;
  const items = await readFrom('updatedSince', { businessId }, { from, limit });
  return items.map((item) => ({
    id: String(item.PK).slice(prefix.length),
    updatePosition: application.positionsOf(item).updatePosition,
  }));
}

/**
 * Index entries (keys, and what the index projects) of an application list
 * (access pattern `name`) in a range of positions, optionally only those
 * passing `filter` (read to the range's end). `applicationsOf` reads their records.
 */
export async function readFrom<N extends ApplicationPattern>(
  name: N,
  params: ParamsOf<(typeof application.patterns)[N]>,
  range: PositionRange,
  filter: ApplicationFilter = {},
): Promise<Item[]> {
  // Indexing the patterns by a generic name loses the pairing of pattern and params: restore it.
  const pattern = application.patterns[name] as AccessPattern<ParamsOf<(typeof application.patterns)[N]>>;
  const expression = filterExpression(filter);
  return readEntries(pattern, params, range, expression.expression ? expression : undefined);
}

/**
 * The applications behind entries of list `name`, by key (one consistent
 * BatchGetItem, in the entries' order); one erased or moved since the Query is left out.
 */
export const applicationsOf = (name: ApplicationPattern, entries: readonly Item[]): Promise<Item[]> =>
  recordsOf(application.patterns[name].index, entries);

/**
 * Applications written at or after `since` from position `from` of the order
 * of writes on, with the other filters applied by DynamoDB (the O(matches)
 * path of updated_at_since with job_id or created_at_since), in updated_at order.
 */
export async function readUpdatedSince(
  businessId: string,
  from: number,
  since: string,
  filter: ApplicationFilter,
): Promise<Item[]> {
  return readFrom('updatedSince', { businessId }, { from }, { ...filter, updatedSince: since });
}

/** Filters DynamoDB applies to a read of a list (attributes of the stored application). */
export interface ApplicationFilter {
  readonly statusId?: string;
  readonly jobId?: string | null;
  readonly createdSince?: string;
  readonly updatedSince?: string;
}

function filterExpression(filter: ApplicationFilter): QueryFilter {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filter.statusId !== undefined) {
    parts.push('#fs = :fs');
    names['#fs'] = 'application_status_id';
    values[':fs'] = filter.statusId;
  }
  if (filter.jobId !== undefined) {
    names['#fj'] = 'job_id';
    if (filter.jobId === null) parts.push('(attribute_not_exists(#fj) OR attribute_type(#fj, :null))');
    else parts.push('#fj = :fj');
    values[filter.jobId === null ? ':null' : ':fj'] = filter.jobId === null ? 'NULL' : filter.jobId;
  }
  if (filter.createdSince !== undefined) {
    parts.push('#fc >= :fc');
    names['#fc'] = 'created_at';
    values[':fc'] = filter.createdSince;
  }
  if (filter.updatedSince !== undefined) {
    parts.push('#fu >= :fu');
    names['#fu'] = 'updated_at';
    values[':fu'] = filter.updatedSince;
  }
  return { expression: parts.join(' AND '), names, values };
}

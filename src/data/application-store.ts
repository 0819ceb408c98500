/**
 * Every DynamoDB access of applications (docs/pagination.md). Built on the
 * data-layer primitives (table-io, transact-write); the service decides, this module only reads and writes.
 * Keys, lists and access patterns are the application entity's
 * (src/data/entities/application.ts): byPosition and byJob (dense positions),
 * byStatus (business position within one status), updatedSince (position of
 * the last write: a write moves it to the end of the order of writes). The
 * list indexes project keys (and what their filters need), never a name or an
 * email, so an update does not rewrite them: pages read the index entries,
 * then the records by key (`recordsOf`, src/data/list-store.ts).
 */
import type { BusinessConfig } from '../domain/business';
import {
  HOLE,
  firstCreatedAttribute,
  liveAttribute,
  mapAttribute,
  mapOf,
  mapValue,
  positionOf,
  statusAttribute,
  statusCode,
  straddlingSuperblock,
  summaryOf,
  superblockOf,
} from '../domain/list-map';
import { locatePage, mapsForPage, type PageAsk } from '../domain/page-locator';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { configOf, requireConfig } from './business-store';
import { pageHintOf, rememberPageHint } from './page-hints';
import { keys, recordIdOf, type Key } from './keys';
import { business } from './entities/business';
import {
  application,
  type ApplicationPositions,
  type CreatedPosition,
  type FilteredWriteOrder,
  type StoredApplication,
} from './entities/application';
import { IF_ABSENT, partitionOf, tableKeyOf, type MappedList, type PatternIndex } from './entities/entity';
import { filterOf, readEntries, recordsOf } from './list-store';
import { appendToList } from './list-counter';
import {
  feedCounterKey,
  feedLaneStateOf,
  kindCounterKeys,
  kindLaneStatesOf,
  takeLaneTicket,
  type FeedLaneState,
} from './feed-store';
import { withFeedRef } from '../domain/feed-refs';
import { idempotencyTombstoneWrite } from './idempotency';
import { batchGet, batchGetEventually, type Item } from './table-io';
import { carries, exists, type TxWrite } from './transact-write';
import { ifNotExists, updateOf } from './update-expression';

export const applicationKey = application.key;
/** The counter of the order of writes (updated_at ascending). */
export const updatedCounterKey = (businessId: string): Key => keys.counter(businessId, application.writeOrder);
export const applicationItem = application.item;
export const storedOf = application.fromItem;
export const positionsOf = application.positionsOf;

// ---------------------------------------------------------------- writes

/** Moves the summary counts of one entry: status `from` -> `to` (undefined = not counted / not live). */
function summaryMove(key: Key, position: number, from: number | undefined, to: number | undefined): TxWrite {
  const sb = superblockOf(position);
  const add: [string, number][] = [];
  if (from === undefined && to !== undefined) add.push([liveAttribute(sb), 1]);
  if (from !== undefined && to === undefined) add.push([liveAttribute(sb), -1]);
  if (from !== undefined) add.push([statusAttribute(sb, from), -1]);
  if (to !== undefined) add.push([statusAttribute(sb, to), 1]);
  return { item: { Update: { Key: key, ...updateOf({ add }) } } };
}

/** Sets one position of a list's map (SET of one attribute: concurrent writes to other positions commute). */
const mapWrite = (businessId: string, list: string, position: number, value: number): TxWrite =>
  mapWritesFrom(businessId, list, position, [value])[0]!;

/**
 * Sets consecutive positions of a list's map from `first` on, `values[i]` at
 * `first + i` (`mapValue` of the entry, or HOLE): one Update per superblock
 * they span. With `appendToList` (src/data/list-counter.ts) this is how a
 * chunk of applications takes its positions in one transaction. At most 100
 * values: DynamoDB caps an UpdateExpression at 4 KB.
 */
export function mapWritesFrom(businessId: string, list: string, first: number, values: readonly number[]): TxWrite[] {
  if (values.length > 100) throw new Error(`mapWritesFrom: ${values.length} positions in one call`);
  const bySuperblock = new Map<number, [string, number][]>();
  values.forEach((value, i) => {
    const sb = superblockOf(first + i);
    bySuperblock.set(sb, [...(bySuperblock.get(sb) ?? []), [mapAttribute(first + i), value]]);
  });
  return [...bySuperblock].map(([sb, pairs]) => ({
    item: { Update: { Key: keys.listMap(businessId, list, sb), ...updateOf({ set: pairs }) } },
  }));
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
  const counter: TxWrite = {
    item: {
      Update: {
        Key: updatedCounterKey(businessId),
        ...updateOf(
          {
            set: { n: position, [firstCreatedAttribute(sb)]: ifNotExists(ms), last_updated_at: updatedAt },
            add: [...deltas].filter(([, d]) => d !== 0),
          },
          {
            expression: state.count === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
            values: { ':current': state.count },
          },
        ),
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
        Key: keys.listMap(businessId, application.writeOrder, superblock),
        ...updateOf({ set: pairs }),
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
  /** Length of each list the application is created into (application.createdIn), by list name. */
  readonly lengths: ReadonlyMap<string, number>;
  /** created_at of the business list's last entry. */
  readonly lastCreatedAt: string | null;
  readonly writeOrder: WriteOrder;
  readonly idempotency: Item | undefined;
  /** Every application lane of the change feed, by lane (the service appends to the one its ticket picks). */
  readonly feeds: readonly FeedLaneState[];
  /** This run's ticket (takeLaneTicket): which application lane the new application takes. */
  readonly ticket: number;
}

/**
 * Everything a create with these request fields decides on: one BatchGetItem
 * and, beside it, the ticket that picks the new application's feed lane
 * (docs/change-feed.md, "A new record chooses its lane").
 */
export async function readCreateState(
  businessId: string,
  fields: Readonly<Record<string, unknown>>,
  idempotencyKey?: Key,
): Promise<CreateState> {
  const lists = application.createdIn(fields).map(({ list }) => list);
  const [[config, updated, ...rest], ticket] = await Promise.all([
    batchGet([
      business.configKey(businessId),
      updatedCounterKey(businessId),
      ...lists.map((list) => keys.counter(businessId, list)),
      ...(idempotencyKey ? [idempotencyKey] : []),
      ...kindCounterKeys(businessId, 'application'),
    ]),
    takeLaneTicket(businessId),
  ]);
  const counters = rest.slice(0, lists.length);
  const idem = idempotencyKey ? rest[lists.length] : undefined;
  const feeds = rest.slice(lists.length + (idempotencyKey ? 1 : 0));
  const businessList = counters[0];
  return {
    feeds: kindLaneStatesOf('application', feeds),
    ticket,
    config: requireConfig(configOf(config), businessId),
    lengths: new Map(lists.map((list, i) => [list, Number(counters[i]?.n ?? 0)])),
    lastCreatedAt: typeof businessList?.last_created_at === 'string' ? businessList.last_created_at : null,
    writeOrder: writeOrderOf(updated),
    idempotency: idem,
  };
}

const codeOf = (config: BusinessConfig, statusId: string): number =>
  statusCode(config.application_status_ids, statusId);

/**
 * The writes of a create: the item, the counter of every list it is created
 * into (conditioned on the value read, so positions stay dense under
 * concurrency) with its summary, and its new position in each list's map. The
 * caller adds the idempotency record and commits them in one transaction.
 */
export function createWrites(
  businessId: string,
  config: BusinessConfig,
  app: StoredApplication,
  state: CreateState,
  feed: FeedLaneState,
  idempotencyKey?: Key,
): TxWrite[] {
  const lists = application.createdIn(app).map((l) => ({ ...l, length: state.lengths.get(l.list) ?? 0 }));
  const created = Object.fromEntries(lists.map((l) => [l.at, l.length + 1])) as Record<CreatedPosition, number>;
  const at = {
    ...created,
    updatePosition: state.writeOrder.count + 1,
    ...(idempotencyKey ? { idempotencyPk: idempotencyKey.PK } : {}),
    // The create's feed entry is the first one at feed.n + 1 (feedAppendWrites).
    feedRefs: withFeedRef([], feed.n + 1, app.created_at, Date.now()),
  };
  const code = codeOf(config, app.application_status_id);
  return [
    {
      item: { Put: { Item: applicationItem(businessId, app, at), ConditionExpression: IF_ABSENT } },
      onConditionFailed: () => 'retry',
      confirms: exists,
    },
    ...lists.flatMap(({ list, length }, i) => [
      appendToList(
        keys.counter(businessId, list),
        length,
        [{ code, createdAtMs: Date.parse(app.created_at) }],
        i === 0 ? { last_created_at: app.created_at } : {},
      ),
      mapWrite(businessId, list, length + 1, mapValue(Date.parse(app.created_at), code)),
    ]),
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
  if (from !== to)
    for (const { list, at: field } of application.createdIn(after))
      writes.push(
        summaryMove(keys.counter(businessId, list), at[field], from, to),
        mapWrite(businessId, list, at[field], mapValue(Date.parse(after.created_at), to)),
      );
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
    ...application
      .positionLists(app)
      .flatMap(({ list, at: field }) => [
        summaryMove(keys.counter(businessId, list), at[field], code, undefined),
        mapWrite(businessId, list, at[field], HOLE),
      ]),
    ...(at.idempotencyPk ? [idempotencyTombstoneWrite(at.idempotencyPk)] : []),
  ];
}

// ---------------------------------------------------------------- reads

/** An application and the business config, one BatchGetItem. */
export async function readApplication(
  businessId: string,
  id: string,
): Promise<{ config: BusinessConfig; item: Item | undefined }> {
  const [config, item] = await batchGet([business.configKey(businessId), applicationKey(businessId, id)]);
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
    business.configKey(businessId),
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
 * The records of a page's entries, read eventually consistent: half the read
 * units of a consistent read, the cheaper design for both cost mixes
 * (`npm run bench:cost`, docs/pagination.md "Cost per million requests"). A
 * record written or erased within about a second may show as it was; totals
 * (from the summary) stay exact.
 */
const pageRecords = (index: PatternIndex, entries: readonly Item[]): Promise<Item[]> =>
  recordsOf(index, entries, batchGetEventually);

/** A page of applications: the exact total, the page's records in list order, the config they render with. */
export interface ApplicationPage {
  readonly config: BusinessConfig;
  readonly total: number;
  readonly items: Item[];
}

/** A page of the list the filters name (application.listOf): exact total, records of the page. */
export const readApplicationPage = (
  businessId: string,
  list: MappedList | FilteredWriteOrder,
  page: PageRequest,
): Promise<ApplicationPage> =>
  list.kind === 'mapped' ? readMappedPage(businessId, list, page) : readFilteredWriteOrder(businessId, list, page);

/**
 * A page of a list with position maps, located by the page locator
 * (src/domain/page-locator.ts): config, summary and the maps the hint of this
 * list names (src/data/page-hints.ts) in one BatchGetItem; the maps the fresh
 * summary names beyond those in a second one (a cold instance, or a list that
 * moved); one Query of the page's index entries; one BatchGetItem of their
 * records. 3 calls warm, 4 cold, whatever the page number and N.
 */
async function readMappedPage(businessId: string, list: MappedList, page: PageRequest): Promise<ApplicationPage> {
  const sinceMs = list.since === undefined ? undefined : Date.parse(list.since);
  const ask = (config: BusinessConfig): PageAsk => ({
    code: list.statusId === undefined ? undefined : codeOf(config, list.statusId),
    sinceMs,
    skipped: (page.page - 1) * page.perPage,
    perPage: page.perPage,
    wholeRange: list.wholeRange,
  });
  const counterKey = keys.counter(businessId, list.list);
  const hint = pageHintOf(counterKey.PK);
  const guessed = hint ? mapsForPage(hint.summary, ask(hint.config)) : [];
  const [configItem, counter, ...mapItems] = await batchGet([
    business.configKey(businessId),
    counterKey,
    ...guessed.map((sb) => keys.listMap(businessId, list.list, sb)),
  ]);
  const config = requireConfig(configOf(configItem), businessId);
  const summary = summaryOf(counter);
  rememberPageHint(counterKey.PK, { config, summary });
  const maps = new Map(guessed.map((sb, i) => [sb, mapOf(mapItems[i])]));
  let location = locatePage(summary, maps, ask(config));
  if (location.kind === 'maps') {
    const missing = mapsForPage(summary, ask(config)).filter((sb) => !maps.has(sb));
    for (const [sb, map] of await readMaps(businessId, list.list, missing)) maps.set(sb, map);
    location = locatePage(summary, maps, ask(config));
    // With every map mapsForPage names the locator answers (property-tested): this is a bug, never a retry.
    if (location.kind === 'maps') throw new Error(`page locator asked twice for maps of ${list.list}`);
  }
  const { total, range } = location;
  if (!range) return { config, total, items: [] };
  const entries =
    range.to === undefined
      ? await readEntries(list.entries, { from: range.from, limit: range.take })
      : await readEntries(
          list.entries,
          { from: range.from, to: range.to },
          filterOf(application.filters, { application_status_id: list.statusId }),
        );
  return { config, total, items: await pageRecords(list.entries.index, entries.slice(0, range.take)) };
}

/** Maps of some superblocks of a list (one BatchGetItem), by superblock. */
async function readMaps(
  businessId: string,
  list: string,
  superblocks: readonly number[],
): Promise<Map<number, number[]>> {
  const items = await batchGet(superblocks.map((sb) => keys.listMap(businessId, list, sb)));
  return new Map(superblocks.map((sb, i) => [sb, mapOf(items[i])]));
}

/**
 * updated_at_since with job_id or created_at_since: the order of writes from
 * the superblock straddling `since` on, every filter applied by DynamoDB:
 * O(writes since the cut) key-only entries, the same on every page, exact
 * total; then the page's records.
 */
async function readFilteredWriteOrder(
  businessId: string,
  list: FilteredWriteOrder,
  page: PageRequest,
): Promise<ApplicationPage> {
  const [configItem, counter] = await batchGet([business.configKey(businessId), keys.counter(businessId, list.list)]);
  const straddling = straddlingSuperblock(summaryOf(counter), Date.parse(list.since));
  const from = positionOf(Math.max(0, straddling), 0);
  const matches = await readEntries(list.entries, { from }, filterOf(application.filters, list.filter));
  const range = pagePositions(page, matches.length);
  const items = range ? await pageRecords(list.entries.index, matches.slice(range.first - 1, range.last)) : [];
  return { config: requireConfig(configOf(configItem), businessId), total: matches.length, items };
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
  const items = await readEntries(partitionOf(application.patterns.updatedSince, { businessId }), { from, limit });
  return items.map((item) => ({
    id: recordIdOf(tableKeyOf(item)),
    updatePosition: application.positionsOf(item).updatePosition,
  }));
}

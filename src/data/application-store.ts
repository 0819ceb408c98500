/**
 * Every DynamoDB access of applications (docs/pagination.md). Built on the
 * data-layer primitives (table-io, transact-write) and the list engine
 * (src/data/lists, its door); the service decides, this module only reads and writes.
 * Keys, lists and access patterns are the application entity's
 * (src/data/entities/application.ts): byPosition and byJob (dense positions),
 * byStatus (business position within one status), updatedSince (position of
 * the last write: a write moves it to the end of the order of writes). The
 * list indexes project keys (and what their filters need), never a name or an
 * email, so an update does not rewrite them: pages read the index entries,
 * then the records by key.
 */
import type { BusinessConfig } from '../domain/business';
import type { PageRequest } from '../domain/pagination';
import { configOf, requireConfig } from './business-store';
import { recordIdOf, type Key } from './dynamo/keys';
import { business } from './entities/business';
import {
  application,
  type ApplicationPositions,
  type CreatedPosition,
  type FilteredWriteOrder,
  type StoredApplication,
} from './entities/application';
import { IF_ABSENT, partitionOf, tableKeyOf, type MappedList } from './entities/entity';
import {
  changeStatus,
  filterOf,
  moveEntry,
  placeAt,
  placeInList,
  readEntries,
  readPage,
  removeEntry,
  reserveEntries,
  statusCode,
  type ListEntry,
  type ListPage,
  type Reservation,
} from './lists';
import {
  feedCounterKey,
  feedLaneCounterKey,
  feedLaneStateAt,
  feedLaneStateOf,
  readKindLanes,
  type FeedLaneState,
} from './feed-store';
import { withFeedRef } from '../domain/feed-refs';
import { idempotencyTombstoneWrite } from './idempotency';
import { batchGet, batchGetEventually, type Item, type ReadAlong } from './dynamo/table-io';
import { carries, exists, type TxWrite } from './dynamo/transact-write';

export const applicationKey = application.key;
/** Reserves positions and times of a business's application writes (`creates` new ones, `writes` in all). */
const reserve = (businessId: string, creates: number, writes: number): Promise<Reservation> =>
  reserveEntries(businessId, application.sequence, creates, writes);
export const applicationItem = application.item;
export const storedOf = application.fromItem;
export const positionsOf = application.positionsOf;

// ---------------------------------------------------------------- writes

/**
 * The order of writes: every create or update takes the position reserved
 * for it there (updated_at order = position order) and leaves a hole where
 * the application was (moveEntry).
 */
const updatedListMove = (
  businessId: string,
  position: number,
  from: { position: number; code: number } | undefined,
  code: number,
  updatedAt: string,
): TxWrite[] =>
  moveEntry(businessId, application.writeOrder, { position, code, createdAtMs: Date.parse(updatedAt) }, from);

export interface CreateState {
  readonly config: BusinessConfig;
  /** The positions and created_at (`ms`) reserved for this attempt (reservePositions). */
  readonly reserved: Reservation;
  readonly idempotency: Item | undefined;
  /** Every application lane of the change feed, by lane (the service appends to the one its position picks). */
  readonly feeds: readonly FeedLaneState[];
}

/**
 * Everything a create decides on, in one round trip: config, idempotency
 * record and every application lane of the change feed in one BatchGetItem,
 * and beside it the reservation of its positions and created_at (a hole if
 * the create does not commit), unless an earlier run of the same operation
 * already holds one. Its business position also picks its feed lane
 * (`laneOfTicket`): creates of one business take the lanes in turn.
 */
export async function readCreateState(
  businessId: string,
  idempotencyKey: Key | undefined,
  held: Reservation | undefined,
): Promise<CreateState> {
  const [[config, idem], feeds, reserved] = await Promise.all([
    batchGet([business.configKey(businessId), ...(idempotencyKey ? [idempotencyKey] : [])]),
    readKindLanes(businessId, 'application'),
    held ?? reserve(businessId, 1, 1),
  ]);
  return {
    feeds,
    config: requireConfig(configOf(config), businessId),
    reserved,
    idempotency: idem,
  };
}

const codeOf = (config: BusinessConfig, statusId: string): number =>
  statusCode(config.application_status_ids, statusId);

/**
 * The writes of a create at its reserved positions: the item and its entry
 * placed in every list (unconditioned: the positions are its own). The
 * caller adds the idempotency record and the feed entry and commits them in
 * one transaction.
 */
export function createWrites(
  businessId: string,
  config: BusinessConfig,
  app: StoredApplication,
  state: CreateState,
  feed: FeedLaneState,
  idempotencyKey?: Key,
): TxWrite[] {
  const { position, updatePosition } = state.reserved;
  // Job lists take the business position: one order, one reservation, holes where other jobs' entries are.
  const at = {
    ...(Object.fromEntries(application.createdIn(app).map(({ at }) => [at, position])) as Record<
      CreatedPosition,
      number
    >),
    updatePosition,
    ...(idempotencyKey ? { idempotencyPk: idempotencyKey.PK } : {}),
    // The create's feed entry is the first one at feed.n + 1 (feedAppendWrites).
    feedRefs: withFeedRef([], feed.n + 1, app.created_at, Date.now()),
  };
  const code = codeOf(config, app.application_status_id);
  const createdAtMs = Date.parse(app.created_at);
  return [
    {
      item: { Put: { Item: applicationItem(businessId, app, at), ConditionExpression: IF_ABSENT } },
      onConditionFailed: () => 'retry',
      confirms: exists,
    },
    ...application
      .createdIn(app)
      .flatMap(({ list }) => placeInList(businessId, list, position, [{ code, createdAtMs }])),
    ...updatedListMove(businessId, updatePosition, undefined, code, app.updated_at),
  ];
}

/**
 * The writes of an update: the whole item replaced if nobody wrote it since
 * it was read (`version`), its move to the reserved end of the order of
 * writes, and, when the status changes, its entry's status changed in the
 * lists it was created into, in the same transaction.
 */
export function updateWrites(
  businessId: string,
  config: BusinessConfig,
  before: StoredApplication,
  after: StoredApplication,
  at: ApplicationPositions,
  reserved: Reservation,
): TxWrite[] {
  const writes: TxWrite[] = [
    {
      item: {
        Put: {
          Item: applicationItem(businessId, after, { ...at, updatePosition: reserved.updatePosition }),
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
    ...updatedListMove(
      businessId,
      reserved.updatePosition,
      { position: at.updatePosition, code: from },
      to,
      after.updated_at,
    ),
  );
  if (from !== to)
    for (const { list, at: field } of application.createdIn(after))
      writes.push(
        ...changeStatus(
          businessId,
          list,
          { position: at[field], code: to, createdAtMs: Date.parse(after.created_at) },
          from,
        ),
      );
  return writes;
}

/**
 * The writes of an erasure: the item deleted if nobody wrote it since it was
 * read (a racing PUT makes the erasure re-run from the read, so it never
 * counts a status twice), its entry removed from every list it is in (a
 * hole at its positions), and the idempotency record holding its first response becomes a
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
      .flatMap(({ list, at: field }) => removeEntry(businessId, list, { position: at[field], code })),
    ...(at.idempotencyPk ? [idempotencyTombstoneWrite(at.idempotencyPk)] : []),
  ];
}

/**
 * The writes of a chunk of creates (a bulk import) at positions reserved
 * together (`reserveForChunk`): `apps[i]` takes business position
 * `reserved.position + i`, the write-order position `reserved.updatePosition
 * + i` and the feed entry `feed.n + 1 + i` of the one lane the chunk's ids
 * hash to. The entries are placed list by list (placeAt), so a chunk of k
 * records costs k records and a few list items instead of k times each
 * record's list items (docs/pagination.md). The caller adds the feed entries (feedAppendWrites)
 * and commits them in one transaction.
 */
export function createChunkWrites(
  businessId: string,
  config: BusinessConfig,
  apps: readonly StoredApplication[],
  reserved: Reservation,
  feed: FeedLaneState,
  now = Date.now(),
): TxWrite[] {
  const placed = new Map<string, ListEntry[]>();
  const records = apps.map((app, i): TxWrite => {
    const position = reserved.position + i;
    const updatePosition = reserved.updatePosition + i;
    // Job lists take the business position, as a single create's (createWrites).
    const at: ApplicationPositions = {
      position,
      jobPosition: position,
      updatePosition,
      feedRefs: withFeedRef([], feed.n + 1 + i, app.created_at, now),
    };
    const code = codeOf(config, app.application_status_id);
    for (const { list, at: which } of application.positionLists(app))
      placed.set(list, [
        ...(placed.get(list) ?? []),
        { position: at[which], code, createdAtMs: Date.parse(app.created_at) },
      ]);
    return {
      item: { Put: { Item: applicationItem(businessId, app, at), ConditionExpression: IF_ABSENT } },
      onConditionFailed: () => 'retry',
      confirms: exists,
    };
  });
  const lists = [...placed].flatMap(([list, entries]) => placeAt(businessId, list, entries));
  return [...records, ...lists];
}

/** Business and write-order positions, and times, for `count` creates of a chunk: one UpdateItem. */
export const reserveForChunk = (businessId: string, count: number): Promise<Reservation> =>
  reserve(businessId, count, count);

/** What a chunk of creates decides on: config and the counter of the chunk's feed lane, one BatchGetItem. */
export async function readForCreateChunk(
  businessId: string,
  lane: number,
): Promise<{ config: BusinessConfig; feed: FeedLaneState }> {
  const [config, counter] = await batchGet([business.configKey(businessId), feedLaneCounterKey(businessId, lane)]);
  return { config: requireConfig(configOf(config), businessId), feed: feedLaneStateAt(lane, counter) };
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

/** What an erasure of an application decides on: config, the item, its feed lane; one BatchGetItem. */
export async function readForWrite(
  businessId: string,
  id: string,
): Promise<{ config: BusinessConfig; item: Item | undefined; feed: FeedLaneState }> {
  const [config, item, feed] = await batchGet([
    business.configKey(businessId),
    applicationKey(businessId, id),
    feedCounterKey(businessId, 'application', id),
  ]);
  return { config: requireConfig(configOf(config), businessId), item, feed: feedLaneStateOf('application', id, feed) };
}

/**
 * What an update decides on (readForWrite), with its place at the end of the
 * order of writes reserved beside it unless an earlier run holds one.
 */
export async function readForUpdate(
  businessId: string,
  id: string,
  held: Reservation | undefined,
): Promise<{ config: BusinessConfig; item: Item | undefined; feed: FeedLaneState; reserved: Reservation }> {
  const [read, reserved] = await Promise.all([readForWrite(businessId, id), held ?? reserve(businessId, 0, 1)]);
  return { ...read, reserved };
}

/** A page of applications: the exact total, the page's records in list order, the config they render with. */
export type ApplicationPage = ListPage;

/**
 * A page of the list the filters name (application.listOf): exact total, records of the page; `along` (a read's
 * token) read in one of its BatchGetItems. Its records are read eventually consistent: half the read units of a
 * consistent read, the cheaper design for both cost mixes (`npm run bench:cost`, docs/pagination.md "Cost per
 * million requests"). A record written or erased within about a second may show as it was; totals stay exact.
 */
export const readApplicationPage = (
  businessId: string,
  list: MappedList | FilteredWriteOrder,
  page: PageRequest,
  along?: ReadAlong,
): Promise<ApplicationPage> =>
  readPage(
    businessId,
    list,
    page,
    {
      ...(list.kind === 'mapped' && list.statusId !== undefined
        ? { code: (config: BusinessConfig) => codeOf(config, list.statusId!) }
        : {}),
      filter: filterOf(
        application.filters,
        list.kind === 'mapped' ? { application_status_id: list.statusId } : list.filter,
      ),
      read: batchGetEventually,
    },
    { along },
  );

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

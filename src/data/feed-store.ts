/**
 * Every DynamoDB access of the change feed (contract §13, docs/change-feed.md).
 *
 * Items (base table only, no index; one partition per business and lane):
 * entries by zero-padded sequence and the lane's counter (src/data/entities/feed-lane.ts).
 *
 * A writer reads its lane's counter with the rest of its state (same
 * BatchGetItem) and appends in its own transaction: counter n -> n + k
 * (conditioned on n), the k entries. So entries exist exactly for committed
 * writes, and sequences are dense: a reader that knows a lane's counter
 * knows the key of every entry up to it, and reads them by key, consistently.
 */
import {
  LANE_COUNT,
  dayMarkOf,
  encodeCursor,
  laneOf,
  lanesOfKind,
  staleDayMarks,
  type LaneCounter,
  type LaneOwner,
  type StoredEntry,
} from '../domain/change-feed';
import { currentOrigin } from './write-origin';
import type { Key } from './dynamo/keys';
import { IF_ABSENT } from './entities/entity';
import { feedLane, type NewFeedEntry } from './entities/feed-lane';
import { batchGet, batchGetEventually, queryPartition, type Item } from './dynamo/table-io';
import type { TxWrite } from './dynamo/transact-write';
import { ifNotExists, updateOf } from './dynamo/update-expression';

/** A lane's counter as a writer read it. */
export interface FeedLaneState extends LaneCounter {
  readonly lane: number;
}

export type { NewFeedEntry } from './entities/feed-lane';

/** Counters by lane from the items of the counters' partition (an absent item is an empty lane). */
function countersByLane(items: readonly Item[]): Map<number, Item> {
  return new Map(items.map((item) => [feedLane.laneOfCounter(item), item]));
}

/**
 * The state of every lane of `kind`, in lane order: one consistent Query of
 * the range of its lanes' counters (a new application or employee reads them
 * all: its reserved business position picks one). Billed by the bytes read,
 * about one read unit, where a BatchGetItem would bill each counter as an
 * item. A Query does not wait for a writer of this process holding one of
 * them (src/data/dynamo/operation-state.ts): only the transaction of the lane picked
 * does.
 */
export async function readKindLanes(businessId: string, kind: LaneOwner): Promise<FeedLaneState[]> {
  const lanes = lanesOfKind(kind);
  const first = feedLane.counterKey(businessId, lanes[0]!);
  const items = await queryPartition(first.PK, {
    from: first.SK,
    to: feedLane.counterKey(businessId, lanes[lanes.length - 1]!).SK,
  });
  const byLane = countersByLane(items);
  return lanes.map((lane) => ({ lane, ...feedLane.counterOf(byLane.get(lane)) }));
}

/** The counter a writer of `recordId`'s changes reads (an employee job's changes go to its employee's lane). */
export const feedCounterKey = (businessId: string, kind: LaneOwner, recordId: string): Key =>
  feedLane.counterKey(businessId, laneOf(kind, recordId));

/** The counter of one lane (a bulk import's chunk appends its new records' entries to one lane). */
export const feedLaneCounterKey = (businessId: string, lane: number): Key => feedLane.counterKey(businessId, lane);

const laneCounterOf = feedLane.counterOf;
const { last: N } = feedLane.counterAttributes;

/** The lane state of `recordId` from the counter item read with feedCounterKey (absent = an empty lane). */
export const feedLaneStateOf = (kind: LaneOwner, recordId: string, item: Item | undefined): FeedLaneState => ({
  lane: laneOf(kind, recordId),
  ...laneCounterOf(item),
});

/** The state of `lane` from its counter item (absent = an empty lane). */
export const feedLaneStateAt = (lane: number, item: Item | undefined): FeedLaneState => ({
  lane,
  ...laneCounterOf(item),
});

/**
 * The transaction items that append `entries` after the counter value the
 * writer read: the counter step, conditioned on that value (a concurrent
 * writer of the lane took it: re-run from the read), the day mark of the first
 * entry, and one Put per entry. Erasure adds `application.deleted` to its
 * delete transaction with this (reading feedCounterKey(businessId, 'application', id) first).
 */
export function feedAppendWrites(
  businessId: string,
  state: FeedLaneState,
  entries: readonly NewFeedEntry[],
  now = Date.now(),
): TxWrite[] {
  const first = entries[0];
  if (!first) return [];
  const stale = staleDayMarks(state, now);
  return [
    {
      item: {
        Update: {
          Key: feedLane.counterKey(businessId, state.lane),
          ...updateOf(
            {
              set: {
                [N]: state.n + entries.length,
                [dayMarkOf(first.occurred_at)]: ifNotExists(state.n + 1),
              },
              remove: stale,
            },
            {
              expression: state.n === 0 ? `attribute_not_exists(${N}) OR ${N} = :current` : `${N} = :current`,
              values: { ':current': state.n },
            },
          ),
        },
      },
      onConditionFailed: () => 'retry',
    },
    ...entries.map((e, i): TxWrite => ({
      item: {
        Put: {
          Item: entryItem(businessId, state.lane, state.n + 1 + i, e),
          ConditionExpression: IF_ABSENT,
        },
      },
      onConditionFailed: () => 'retry',
    })),
  ];
}

/**
 * The lane's state once `entries` appended by feedAppendWrites are committed
 * (what a writer that read `state` knows without reading it again: a bulk
 * import's next chunk of the same lane).
 */
export function feedLaneStateAfter(state: FeedLaneState, entries: readonly NewFeedEntry[], now: number): FeedLaneState {
  const first = entries[0];
  if (!first) return state;
  const stale = new Set(staleDayMarks(state, now));
  const days = Object.fromEntries(Object.entries(state.days).filter(([mark]) => !stale.has(mark)));
  days[dayMarkOf(first.occurred_at)] ??= state.n + 1;
  return { lane: state.lane, n: state.n + entries.length, days };
}

/** The stored form of an entry, made by the running operation's origin (src/data/write-origin.ts). */
export const entryItem = (businessId: string, lane: number, seq: number, e: NewFeedEntry): Item =>
  feedLane.entryItem(businessId, lane, seq, e, currentOrigin());

/** Every lane's counter, by lane: one consistent Query of their partition (LANE_COUNT small items). */
export async function readLaneCounters(businessId: string): Promise<LaneCounter[]> {
  const byLane = await readLaneCounterItems(businessId);
  return Array.from({ length: LANE_COUNT }, (_, lane) => laneCounterOf(byLane.get(lane)));
}

/** Every lane counter item of a business by lane (a lane never written has none): one consistent Query. */
export async function readLaneCounterItems(businessId: string): Promise<Map<number, Item>> {
  return countersByLane(await queryPartition(feedLane.counterKey(businessId, 0).PK));
}

/**
 * Entries by lane and sequence, undefined where absent: one eventually
 * consistent BatchGetItem (at most 100 keys, half the read units of a
 * consistent one), then a consistent one of the keys it did not find (an
 * entry committed a moment ago, or one TTL removed), so a page never skips
 * a committed entry. An entry redacted within about a second may still read
 * as it was (docs/change-feed.md).
 */
export async function readEntries(
  businessId: string,
  wanted: readonly { lane: number; seq: number }[],
): Promise<(StoredEntry | undefined)[]> {
  if (wanted.length === 0) return [];
  const keys = wanted.map((w) => feedLane.entryKey(businessId, w.lane, w.seq));
  const items = await batchGetEventually(keys);
  const missing = keys.flatMap((key, i) => (items[i] ? [] : [i]));
  if (missing.length) {
    const found = await batchGet(missing.map((i) => keys[i]!));
    missing.forEach((i, j) => (items[i] = found[j]));
  }
  return items.map((item, i) => (item ? feedLane.entryOf(wanted[i]?.lane ?? 0, wanted[i]?.seq ?? 0, item) : undefined));
}

/**
 * The cursor of the newest entry (every lane at its counter), or null when the
 * business has no entry yet: where a webhook subscription starts. One BatchGetItem.
 */
export async function feedEnd(businessId: string): Promise<string | null> {
  const counters = await readLaneCounters(businessId);
  if (counters.every((c) => c.n === 0)) return null;
  return encodeCursor(
    businessId,
    counters.map((c) => c.n),
  );
}

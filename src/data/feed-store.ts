/**
 * Every DynamoDB access of the change feed (contract §13, docs/change-feed.md).
 *
 * Items (base table only, no index; one partition per business and lane):
 *   entry    `B#<bid>#feed#<lane>` / zero-padded seq: type, id, occurred_at,
 *            data (the record's JSON as its GET answered, deflated; null for a delete), expires_at (TTL),
 *            by (actor, src/domain/audit.ts), rid (request id; absent outside a request), cf (changed fields, comma-joined)
 *   counter  `B#<bid>#feed#<lane>` / `SEQ`: n = the lane's last sequence, d<YYYYMMDD> = first sequence of that day,
 *            at = when it was last appended to (ms; a new employee takes the colder of two lanes)
 *
 * A writer reads its lane's counter with the rest of its state (same
 * BatchGetItem) and appends in its own transaction: counter n -> n + k
 * (conditioned on n), the k entries. So entries exist exactly for committed
 * writes, and sequences are dense: a reader that knows a lane's counter
 * knows the key of every entry up to it, and reads them by key, consistently.
 */
import {
  ENTRY_TTL_SECONDS,
  LANE_COUNT,
  dayMarkOf,
  encodeCursor,
  laneOf,
  staleDayMarks,
  type ChangeType,
  type LaneCounter,
  type LaneOwner,
  type StoredEntry,
} from '../domain/change-feed';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { decodeActor, encodeActor } from '../domain/audit';
import { currentOrigin } from './write-origin';
import type { Key } from './keys';
import { feedLane } from './entities/feed-lane';
import { batchGet, batchGetEventually, type Item } from './table-io';
import type { TxWrite } from './transact-write';

/** A lane's counter as a writer read it. */
export interface FeedLaneState extends LaneCounter {
  readonly lane: number;
}

/** A change to append: what a client will read, minus the cursor. */
export interface NewFeedEntry {
  readonly type: ChangeType;
  readonly id: string;
  readonly occurred_at: string;
  /** The record as its GET answers right after the change; null for a delete. */
  readonly data: unknown;
  /** `*.updated`: the sorted names of the fields whose value changed (changedFields of src/domain/audit.ts). */
  readonly changed_fields?: readonly string[];
}

/** The counter a writer of `recordId`'s changes reads (an employee job's changes go to its employee's lane). */
export const feedCounterKey = (businessId: string, kind: LaneOwner, recordId: string): Key =>
  feedLane.counterKey(businessId, laneOf(kind, recordId));

const laneCounterOf = (item: Item | undefined): LaneCounter => ({
  n: Number(item?.n ?? 0),
  lastWriteMs: Number(item?.at ?? 0),
  days: Object.fromEntries(
    Object.entries(item ?? {})
      .filter(([k]) => /^d[0-9]{8}$/.test(k))
      .map(([k, v]) => [k, Number(v)]),
  ),
});

/** The lane state of `recordId` from the counter item read with feedCounterKey (absent = an empty lane). */
export const feedLaneStateOf = (kind: LaneOwner, recordId: string, item: Item | undefined): FeedLaneState => ({
  lane: laneOf(kind, recordId),
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
          UpdateExpression: `SET n = :next, #at = :now, #day = if_not_exists(#day, :first)${stale.length ? ` REMOVE ${stale.map((_, i) => `#old${i}`).join(', ')}` : ''}`,
          ConditionExpression: state.n === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
          ExpressionAttributeNames: {
            '#at': 'at',
            '#day': dayMarkOf(first.occurred_at),
            ...Object.fromEntries(stale.map((d, i) => [`#old${i}`, d])),
          },
          ExpressionAttributeValues: {
            ':next': state.n + entries.length,
            ':current': state.n,
            ':first': state.n + 1,
            ':now': now,
          },
        },
      },
      onConditionFailed: () => 'retry',
    },
    ...entries.map((e, i): TxWrite => ({
      item: {
        Put: {
          Item: entryItem(businessId, state.lane, state.n + 1 + i, e),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: () => 'retry',
    })),
  ];
}

/**
 * The stored form of an entry. `data` is the record's JSON text (its field
 * order survives), deflated: a record's JSON is mostly field names and nulls,
 * and write units are paid per KB (an employee: about 1.6 KB -> 0.4 KB). The
 * audit fields (contract §20) are the running operation's origin
 * (src/data/write-origin.ts), in short attributes apart from `data`, so
 * erasure (which nulls `data`) keeps them.
 */
export function entryItem(businessId: string, lane: number, seq: number, e: NewFeedEntry): Item {
  const origin = currentOrigin();
  return {
    by: encodeActor(origin.actor),
    ...(origin.request_id !== null ? { rid: origin.request_id } : {}),
    ...(e.changed_fields ? { cf: e.changed_fields.join(',') } : {}),
    ...feedLane.entryKey(businessId, lane, seq),
    type: e.type,
    id: e.id,
    occurred_at: e.occurred_at,
    data: e.data === null ? null : deflateRawSync(JSON.stringify(e.data)),
    expires_at: Math.floor(Date.parse(e.occurred_at) / 1000) + ENTRY_TTL_SECONDS,
  };
}

const lanes = Array.from({ length: LANE_COUNT }, (_, lane) => lane);

/** Every lane's counter: one consistent BatchGetItem of LANE_COUNT small items. */
export async function readLaneCounters(businessId: string): Promise<LaneCounter[]> {
  const items = await batchGet(lanes.map((lane) => feedLane.counterKey(businessId, lane)));
  return items.map(laneCounterOf);
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
  return items.map((item, i) =>
    item
      ? {
          lane: wanted[i]?.lane ?? 0,
          seq: wanted[i]?.seq ?? 0,
          type: item.type as ChangeType,
          id: String(item.id),
          occurred_at: String(item.occurred_at),
          data: item.data instanceof Uint8Array ? JSON.parse(inflateRawSync(item.data).toString('utf8')) : null,
          audit: {
            actor: decodeActor(item.by),
            request_id: typeof item.rid === 'string' ? item.rid : null,
            ...(typeof item.cf === 'string' ? { changed_fields: item.cf === '' ? [] : item.cf.split(',') } : {}),
          },
        }
      : undefined,
  );
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

/**
 * Change-feed lanes (src/data/feed-store.ts, docs/change-feed.md): one table
 * partition per business and lane holding its entries by zero-padded
 * sequence, and one partition per business holding every lane's counter by
 * lane; read by key or key range, never through an index.
 *
 *   entry    type, id, occurred_at, data (the record's JSON as its GET answered, deflated; null for a
 *            delete or once redacted), expires_at (TTL), by (actor, src/domain/audit.ts), rid (request
 *            id; absent outside a request), cf (changed fields, comma-joined)
 *   counter  n = the lane's last sequence, d<YYYYMMDD> = first sequence of that day
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { decodeActor, encodeActor, type WriteOrigin } from '../../domain/audit';
import { ENTRY_TTL_SECONDS, type ChangeType, type LaneCounter, type StoredEntry } from '../../domain/change-feed';
import { keys, type Key } from '../dynamo/keys';
import { pattern, tableKeyOf } from './entity';

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

const entries = pattern<{ readonly businessId: string; readonly lane: number | string }>(
  'table',
  'sequence (zero-padded)',
  ({ businessId, lane }) => keys.feedEntry(businessId, lane, 0).PK,
);

/** The counter's attribute: the last sequence. */
const COUNTER = { last: 'n' } as const;
const DAY_MARK = /^d[0-9]{8}$/;

export const feedLane = {
  entity: 'feed lane',
  entryKey: (businessId: string, lane: number | string, seq: number | string): Key =>
    keys.feedEntry(businessId, lane, seq),
  counterKey: (businessId: string, lane: number): Key => keys.feedCounter(businessId, lane),
  /** The lane of a counter item (its sort key, keys.feedCounter read backwards). */
  laneOfCounter: (item: Readonly<Record<string, unknown>>): number => Number(tableKeyOf(item).SK),
  patterns: { entries },
  counterAttributes: COUNTER,
  /** The attribute redaction nulls (the entry keeps its key, type, id, occurred_at, audit fields and expiry). */
  dataAttribute: 'data',
  /**
   * The stored form of an entry. `data` is the record's JSON text (its field
   * order survives), deflated: a record's JSON is mostly field names and nulls,
   * and write units are paid per KB (an employee: about 1.6 KB -> 0.4 KB). The
   * audit fields (contract §20) are the writing operation's origin, in short
   * attributes apart from `data`, so erasure (which nulls `data`) keeps them.
   */
  entryItem: (
    businessId: string,
    lane: number,
    seq: number,
    e: NewFeedEntry,
    origin: WriteOrigin,
  ): Record<string, unknown> => ({
    by: encodeActor(origin.actor),
    ...(origin.request_id !== null ? { rid: origin.request_id } : {}),
    ...(e.changed_fields ? { cf: e.changed_fields.join(',') } : {}),
    ...keys.feedEntry(businessId, lane, seq),
    type: e.type,
    id: e.id,
    occurred_at: e.occurred_at,
    data: e.data === null ? null : deflateRawSync(JSON.stringify(e.data)),
    expires_at: Math.floor(Date.parse(e.occurred_at) / 1000) + ENTRY_TTL_SECONDS,
  }),
  /** The entry an item at `lane`/`seq` holds. */
  entryOf: (lane: number, seq: number, item: Readonly<Record<string, unknown>>): StoredEntry => ({
    lane,
    seq,
    type: item.type as ChangeType,
    id: String(item.id),
    occurred_at: String(item.occurred_at),
    data: item.data instanceof Uint8Array ? JSON.parse(inflateRawSync(item.data).toString('utf8')) : null,
    audit: {
      actor: decodeActor(item.by),
      request_id: typeof item.rid === 'string' ? item.rid : null,
      ...(typeof item.cf === 'string' ? { changed_fields: item.cf === '' ? [] : item.cf.split(',') } : {}),
    },
  }),
  /** A lane's counter as stored (absent = an empty lane). */
  counterOf: (item: Readonly<Record<string, unknown>> | undefined): LaneCounter => ({
    n: Number(item?.[COUNTER.last] ?? 0),
    days: Object.fromEntries(
      Object.entries(item ?? {})
        .filter(([k]) => DAY_MARK.test(k))
        .map(([k, v]) => [k, Number(v)]),
    ),
  }),
} as const;

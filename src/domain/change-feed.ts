/**
 * The change feed's pure rules (contract §13, docs/change-feed.md): entry
 * types, the lane a record's changes go to, the opaque cursor, which entries
 * a page fetches and how they become the page. No I/O.
 *
 * A business's feed is split into LANE_COUNT lanes, each a dense sequence
 * 1..n assigned in the write transaction of the record it describes. Every
 * change of one record goes to the same lane (its kind and a hash of its id decide), so
 * per-record commit order is the lane's sequence order, while writers of
 * different records rarely wait for the same counter. A cursor is one
 * position per lane.
 */
import { createHash } from 'node:crypto';
import type { Actor } from './audit';

export const CHANGE_TYPES = [
  'employee.created',
  'employee.updated',
  'employee_job.created',
  'application.created',
  'application.updated',
  'application.deleted',
  'attachment.available',
  'attachment.rejected',
  'attachment.deleted',
  'import.completed',
  'import.failed',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/**
 * Writers of one lane serialize on its counter. Applications and employees
 * (with their jobs) have lanes of their own, so writers of different kinds
 * never wait for each other. Layout: lanes 0 .. APPLICATION_LANES - 1, then
 * EMPLOYEE_LANES. New applications and new employees take their kind's lanes
 * in turn (laneOfTicket), so two creates meet on a lane only when more than
 * 32 creates of the business are between their read and their commit: 16
 * writers of one business meet on none (16 lanes: ~0.01 refused lanes per
 * create, and the local server's process turns queued the rest behind each
 * refusal; docs/decisions/021-lane-counters-in-one-partition.md). Every feed
 * page reads every lane counter, and every create every lane counter of its
 * kind, with one Query of their partition, billed by the bytes read.
 */
export const APPLICATION_LANES = 32;
export const EMPLOYEE_LANES = 32;
export const LANE_COUNT = APPLICATION_LANES + EMPLOYEE_LANES;

/** Whose lane a change goes to: an employee job's changes go to its employee's lane. */
export type LaneOwner = 'application' | 'employee';

/** The lanes of a kind: the first one and how many. */
const lanesOf = (kind: LaneOwner): { first: number; count: number } =>
  kind === 'application' ? { first: 0, count: APPLICATION_LANES } : { first: APPLICATION_LANES, count: EMPLOYEE_LANES };

/** Every lane of a kind, in order. */
export const lanesOfKind = (kind: LaneOwner): number[] => {
  const { first, count } = lanesOf(kind);
  return Array.from({ length: count }, (_, i) => first + i);
};

/**
 * The lane a new record of `kind` takes with its ticket (a per-business number
 * every create of the kind takes, one up each time: a new application's or
 * employee's business position, src/data/lists/sequence.ts): consecutive
 * tickets take consecutive lanes, round the kind's lanes.
 */
export function laneOfTicket(kind: LaneOwner, ticket: number): number {
  const { first, count } = lanesOf(kind);
  return first + (((ticket % count) + count) % count);
}

/** A record's lane (FNV-1a of its id among its kind's lanes), the same on every writer. */
export function laneOf(kind: LaneOwner, recordId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < recordId.length; i++) {
    h ^= recordId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const { first, count } = lanesOf(kind);
  return first + (h % count);
}

/**
 * `count` fresh ids whose records all take `lane` (one of `kind`'s): a chunk
 * of new records appends its change-feed entries with one lane counter step.
 * About as many draws per id as `kind` has lanes.
 */
export function idsInLane(kind: LaneOwner, lane: number, count: number, fresh: () => string): string[] {
  const { first, count: lanes } = lanesOf(kind);
  if (lane < first || lane >= first + lanes) throw new Error(`idsInLane: lane ${lane} is not a lane of ${kind}s`);
  const ids: string[] = [];
  while (ids.length < count) {
    const id = fresh();
    if (laneOf(kind, id) === lane) ids.push(id);
  }
  return ids;
}

/** Contract §13: at least 30 days. Entries live a day longer, so a reader starting 30 days back finds them all. */
export const RETENTION_DAYS = 30;
export const ENTRY_TTL_SECONDS = (RETENTION_DAYS + 1) * 24 * 60 * 60;
const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;
/** One BatchGetItem reads at most 100 keys: a page holds at most this many entries, whatever `limit` says. */
export const MAX_PAGE_ENTRIES = 100;

/** Who made a change and what it changed (contract §20): kept by erasure. */
export interface EntryAudit {
  readonly actor: Actor;
  readonly request_id: string | null;
  /** `*.updated` entries only: sorted names of the fields whose value changed. */
  readonly changed_fields?: readonly string[];
}

/** What a client reads (contract §13, §20). */
export interface FeedEntry extends EntryAudit {
  readonly cursor: string;
  readonly type: ChangeType;
  readonly id: string;
  readonly occurred_at: string;
  readonly data: unknown;
}

/** An entry as stored in its lane, before a cursor is attached. */
export interface StoredEntry {
  readonly lane: number;
  readonly seq: number;
  readonly type: ChangeType;
  readonly id: string;
  readonly occurred_at: string;
  readonly data: unknown;
  readonly audit: EntryAudit;
}

/** The last sequence a reader consumed, per lane. */
export type FeedPosition = readonly number[];

// ---------------------------------------------------------------- cursor

const CURSOR_VERSION = 'c1';
/** A lane's sequence in a cursor: base 36, at most this many digits. */
const MAX_SEQ_DIGITS = 10;
const SEQ_SPELLING = new RegExp(`^[0-9a-z]{1,${MAX_SEQ_DIGITS}}$`);
const TAG_LENGTH = 8;
/** The longest cursor (every lane at MAX_SEQ_DIGITS digits): base64url of `c1.<tag>` and one `.<seq>` per lane. */
export const MAX_CURSOR_LENGTH = Math.ceil(
  ((CURSOR_VERSION.length + 1 + TAG_LENGTH + LANE_COUNT * (1 + MAX_SEQ_DIGITS)) * 4) / 3,
);

/** Binds a cursor to its business: another business's cursor is malformed here, never a view of its feed. */
const tagOf = (businessId: string): string =>
  createHash('sha256').update(businessId).digest('base64url').slice(0, TAG_LENGTH);

/** Deterministic: one position has one spelling (so "`after` itself" is literal). */
export function encodeCursor(businessId: string, position: FeedPosition): string {
  return Buffer.from(
    `${CURSOR_VERSION}.${tagOf(businessId)}.${position.map((s) => s.toString(36)).join('.')}`,
  ).toString('base64url');
}

/** The position a cursor names, or undefined when it is malformed or another business's. */
export function decodeCursor(businessId: string, cursor: string): FeedPosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (parts.length !== 2 + LANE_COUNT || parts[0] !== CURSOR_VERSION || parts[1] !== tagOf(businessId))
    return undefined;
  const seqs = parts.slice(2);
  if (!seqs.every((s) => SEQ_SPELLING.test(s))) return undefined;
  const position = seqs.map((s) => parseInt(s, 36));
  return encodeCursor(businessId, position) === cursor ? position : undefined;
}

// ---------------------------------------------------------------- lane counters

/** A lane's counter item as read: the last assigned sequence and the first sequence of each day (UTC). */
export interface LaneCounter {
  readonly n: number;
  /** `YYYYMMDD` -> first sequence written that day, for the last RETENTION_DAYS + a few days. */
  readonly days: Readonly<Record<string, number>>;
}

/** The day mark attribute of a timestamp: `d` + its UTC date as YYYYMMDD. */
export const dayMarkOf = (iso: string): string => `d${iso.slice(0, 10).replace(/-/g, '')}`;

/** Day marks older than this many days are dropped by the next writer of the lane. */
export const DAY_MARK_KEEP_DAYS = RETENTION_DAYS + 5;

/** Day marks a writer at `now` removes (past any reader's start). */
export const staleDayMarks = (counter: LaneCounter, now: number): string[] =>
  Object.keys(counter.days).filter((d) => d < dayMarkOf(new Date(now - DAY_MS * DAY_MARK_KEEP_DAYS).toISOString()));

/**
 * Where a reader without a cursor starts in a lane: before the first entry of
 * the day RETENTION_DAYS ago or later (entries live RETENTION_DAYS + 1 days),
 * at the lane's end when it had no write since.
 */
export function startSeq(counter: LaneCounter, now: number): number {
  const from = dayMarkOf(new Date(now - DAY_MS * RETENTION_DAYS).toISOString());
  const firsts = Object.entries(counter.days)
    .filter(([d]) => d >= from)
    .map(([, seq]) => seq);
  return firsts.length ? Math.min(...firsts) - 1 : counter.n;
}

// ---------------------------------------------------------------- page

/** The entries a page fetches: round-robin over lanes with pending entries, at most `budget`, each lane a prefix. */
export function fetchPlan(
  from: FeedPosition,
  counters: readonly LaneCounter[],
  budget: number,
): { lane: number; seq: number }[] {
  const next = [...from];
  const plan: { lane: number; seq: number }[] = [];
  for (let progress = true; progress && plan.length < budget;) {
    progress = false;
    for (let lane = 0; lane < LANE_COUNT && plan.length < budget; lane++) {
      if ((next[lane] ?? 0) < (counters[lane]?.n ?? 0)) {
        next[lane] = (next[lane] ?? 0) + 1;
        plan.push({ lane, seq: next[lane] as number });
        progress = true;
      }
    }
  }
  return plan;
}

/**
 * The page from what was fetched (undefined = no such entry: removed by TTL).
 * A missing entry after a client's cursor means it missed changes: 'expired'
 * (410). Without a cursor, missing entries are just skipped (the start is an
 * estimate of the oldest retained). Lanes are merged by occurred_at keeping
 * each lane's order; every fetched entry is consumed, entries of unwanted
 * types (or made by another token than `tokenId`) are not returned. Each entry carries the cursor right after it.
 */
export function assemblePage(
  businessId: string,
  from: FeedPosition,
  plan: readonly { lane: number; seq: number }[],
  fetched: readonly (StoredEntry | undefined)[],
  options: { withCursor: boolean; wanted: ReadonlySet<ChangeType> | undefined; tokenId?: string | undefined },
): { expired: true } | { expired: false; entries: FeedEntry[]; keys: string[]; next: FeedPosition } {
  const byLane: StoredEntry[][] = Array.from({ length: LANE_COUNT }, () => []);
  const position = [...from];
  for (const [i, key] of plan.entries()) {
    const entry = fetched[i];
    if (!entry) {
      if (options.withCursor) return { expired: true };
      position[key.lane] = Math.max(position[key.lane] ?? 0, key.seq);
      continue;
    }
    byLane[key.lane]?.push(entry);
  }
  const heads = new Array<number>(LANE_COUNT).fill(0);
  const entries: FeedEntry[] = [];
  const entryKeys: string[] = [];
  for (;;) {
    let pick = -1;
    for (let lane = 0; lane < LANE_COUNT; lane++) {
      const candidate = byLane[lane]?.[heads[lane] ?? 0];
      if (!candidate) continue;
      const current = pick >= 0 ? byLane[pick]?.[heads[pick] ?? 0] : undefined;
      if (!current || candidate.occurred_at < current.occurred_at) pick = lane;
    }
    if (pick < 0) break;
    const entry = byLane[pick]?.[heads[pick] ?? 0] as StoredEntry;
    heads[pick] = (heads[pick] ?? 0) + 1;
    position[pick] = entry.seq;
    if (options.wanted && !options.wanted.has(entry.type)) continue;
    if (options.tokenId !== undefined && !madeWith(entry.audit.actor, options.tokenId)) continue;
    entries.push({
      cursor: encodeCursor(businessId, position),
      type: entry.type,
      id: entry.id,
      occurred_at: entry.occurred_at,
      ...entry.audit,
      data: entry.data,
    });
    entryKeys.push(entryKeyOf(pick, entry.seq));
  }
  return { expired: false, entries, keys: entryKeys, next: position };
}

/**
 * An entry's name in its business's feed: lane and sequence. Unlike its cursor
 * (the position after it in every lane, which depends on where the page
 * started), the same whichever cursor it was read after.
 */
export const entryKeyOf = (lane: number, seq: number): string => `${lane.toString(36)}.${seq.toString(36)}`;

/**
 * Whether a reader can continue from `position` (contract §26, a webhook
 * resumed from a cursor): `invalid` when a lane's position is beyond its
 * counter (never issued), `expired` when a lane has entries after it that
 * start before the first day still retained (startSeq: what a reader without
 * a cursor skips), else `ok`. Pure: the caller read the counters.
 */
export function positionStatus(
  position: FeedPosition,
  counters: readonly LaneCounter[],
  now: number,
): 'ok' | 'invalid' | 'expired' {
  const empty: LaneCounter = { n: 0, days: {} };
  if (position.some((seq, lane) => seq > (counters[lane] ?? empty).n)) return 'invalid';
  const behind = position.some((seq, lane) => {
    const counter = counters[lane] ?? empty;
    return seq < counter.n && seq < startSeq(counter, now);
  });
  return behind ? 'expired' : 'ok';
}

const madeWith = (actor: Actor, tokenId: string): boolean =>
  (actor.type === 'token' || actor.type === 'import') && actor.token_id === tokenId;

/** `types=a,b`: the set wanted, or the names that are not change types. */
export function parseTypes(raw: string | undefined): { wanted?: ReadonlySet<ChangeType>; unknown: string[] } {
  if (raw === undefined) return { unknown: [] };
  const names = raw.split(',').map((t) => t.trim());
  const unknown = names.filter((n) => !(CHANGE_TYPES as readonly string[]).includes(n));
  return { wanted: new Set(names.filter((n): n is ChangeType => !unknown.includes(n))), unknown };
}

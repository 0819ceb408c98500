/**
 * Position maps of the application lists (docs/pagination.md), pure maths.
 *
 * An entry takes a position at creation (reserved per business, in
 * created_at order: src/data/lists/sequence.ts); positions never reserved for
 * a list (another job's, a create that did not commit) and erased entries are
 * holes. To find the k-th live entry (optionally of one status, optionally
 * created at/after a time) without reading the entries before it, each list
 * keeps
 *  - a summary: per superblock of MAP_SIZE positions the live count, the live
 *    count per status code and a created_at (epoch ms) of one of its entries,
 *    and
 *  - a map per superblock: per position `created_ms * CODES + code` of its
 *    entry, HOLE (or nothing) where there is none.
 * Summary -> superblock, map -> exact position, then one Query `>= position`
 * with `Limit per_page` reads exactly the page (holes are not in the index);
 * src/domain/page-locator.ts does that for every list.
 *
 * Concurrent creates of one business hold consecutive positions, and
 * DynamoDB cancels a transaction that writes an item another transaction is
 * writing: so a list's summary and each of its maps are stored as SHARDS
 * items, an entry written to the shard of its position (`shardOf`; a chunk
 * of creates writes its counts and its map values to the shard of its first
 * position), and the reader adds the summary shards up (`summaryOf`) and
 * joins the map shards (`mapOf`). A summary's counts are sums, so a shard may hold a negative
 * count (an entry counted in one shard and moved in another); the old
 * superblocks' counts are folded from the shards into the base item now and
 * then (`foldOf`), so the summary's size does not grow with SHARDS
 * (docs/decisions/019).
 */
import { locateInBlocks } from './pagination';

export const MAP_SIZE = 512;
/** Items a list's summary and each of its maps are split into (by `shardOf` of the position written). */
export const SHARDS = 16;
export const shardOf = (position: number): number => position % SHARDS;
export const HOLE = -1;
/** Status codes per business are below this (the code shares a number with the creation time). */
export const CODES = 1024;

/** The value of a position in its map. Exact as a double until the year 2248. */
export const mapValue = (createdMs: number, code: number): number => createdMs * CODES + code;
const codeIn = (value: number): number => (value < 0 ? HOLE : value % CODES);
const createdIn = (value: number): number => Math.floor(value / CODES);

export const superblockOf = (position: number): number => Math.floor((position - 1) / MAP_SIZE);
export const offsetOf = (position: number): number => (position - 1) % MAP_SIZE;
export const positionOf = (superblock: number, offset: number): number => superblock * MAP_SIZE + offset + 1;

/** Attribute names in the counter item (top level, so ADD works on a fresh item). */
export const liveAttribute = (superblock: number): string => `l#${superblock}`;
export const statusAttribute = (superblock: number, code: number): string => `s#${superblock}#${code}`;
export const firstCreatedAttribute = (superblock: number): string => `f#${superblock}`;
/** Changes to a superblock's counts: every write that moves them adds to it (`ListSummary.versions`). */
export const versionAttribute = (superblock: number): string => `v#${superblock}`;
/** Attribute name of a position in its map item (base 36 offset, short on purpose). */
export const mapAttribute = (position: number): string => `p${offsetOf(position).toString(36)}`;

/**
 * Status codes: the index of the status in the business's
 * `application_status_ids` (a re-import appends, src/data/business-store.ts). -1 for an
 * unknown status, which then matches nothing.
 */
export const statusCode = (statusIds: readonly string[], statusId: string): number => statusIds.indexOf(statusId);

export interface ListSummary {
  /** Live entries per superblock (as many superblocks as have ever been counted). */
  readonly live: readonly number[];
  /** Live entries per superblock and status code. */
  readonly byStatus: ReadonlyMap<number, readonly number[]>;
  /**
   * created_at (epoch ms) of some entry of each superblock (the first one
   * counted; entries commit in any order), Infinity before one is. Positions
   * follow created_at, so these grow with the superblock.
   */
  readonly firstCreated: readonly number[];
  /**
   * Per superblock, the sum of what the writes that changed its counts added (src/data/lists/counter.ts: a random
   * amount each; 0 for none counted). Equal in two reads of a summary, nothing in that superblock was created,
   * erased or moved in between: what a page counted in its map then still holds (src/domain/page-locator.ts
   * `KnownCut`).
   */
  readonly versions: readonly number[];
}

const SUMMARY_ATTRIBUTE = /^([lfsv])#(\d+)(?:#(\d+))?$/;

/** A stored item, or several (a list's summary base and shards, a superblock's map shards). */
export type StoredItems = Record<string, unknown> | undefined | readonly (Record<string, unknown> | undefined)[];
const itemsOf = (items: StoredItems): Record<string, unknown>[] =>
  (Array.isArray(items) ? items : [items]).filter((i): i is Record<string, unknown> => i !== undefined);

/** A summary attribute's parts (l#<sb>, s#<sb>#<code>, f#<sb>, v#<sb>), undefined for any other attribute. */
function summaryAttributeOf(name: string): { kind: 'l' | 'f' | 's' | 'v'; sb: number; code: number } | undefined {
  const m = SUMMARY_ATTRIBUTE.exec(name);
  if (!m || (m[1] === 's') !== (m[3] !== undefined)) return undefined;
  return { kind: m[1] as 'l' | 'f' | 's' | 'v', sb: Number(m[2]), code: Number(m[3] ?? 0) };
}

/**
 * Parses a list's summary from its items (the base and the shards): counts
 * added up, then negatives taken as 0; of the created_at values the smallest
 * (any entry's will do). Its superblocks are those it counts.
 */
export function summaryOf(items: StoredItems): ListSummary {
  const sums = new Map<string, number>();
  let superblocks = 0;
  for (const item of itemsOf(items))
    for (const [name, value] of Object.entries(item)) {
      const a = summaryAttributeOf(name);
      if (!a) continue;
      superblocks = Math.max(superblocks, a.sb + 1);
      const had = sums.get(name);
      sums.set(name, a.kind === 'f' ? Math.min(had ?? Infinity, Number(value)) : (had ?? 0) + Number(value));
    }
  const live = new Array<number>(superblocks).fill(0);
  const byStatus = new Map<number, number[]>();
  const firstCreated = new Array<number>(superblocks).fill(Number.POSITIVE_INFINITY);
  const versions = new Array<number>(superblocks).fill(0);
  for (const [name, value] of sums) {
    const { kind, sb, code } = summaryAttributeOf(name)!;
    if (kind === 'f') firstCreated[sb] = value;
    else if (kind === 'v') versions[sb] = value;
    else if (kind === 'l') live[sb] = Math.max(0, value);
    else {
      const counts = byStatus.get(code) ?? new Array<number>(superblocks).fill(0);
      counts[sb] = Math.max(0, value);
      byStatus.set(code, counts);
    }
  }
  return { live, byStatus, firstCreated, versions };
}

/** What folding a summary's shards into its base moves (foldOf). */
export interface SummaryFold {
  /** Per shard (by its index in the input), the attributes taken out of it and the values they must still have. */
  readonly taken: ReadonlyMap<number, readonly (readonly [string, number])[]>;
  /** Added to the base: the taken counts' sums. */
  readonly add: readonly (readonly [string, number])[];
  /** Set in the base where it has none: the smallest taken created_at per superblock. */
  readonly first: readonly (readonly [string, number])[];
}

/**
 * Which summary attributes of superblocks before `keepFrom` leave the shards
 * for the base (added up; a created_at set in the base if it has none).
 * Writes to those superblocks after the fold count in the shards again, so a
 * fold is never needed for a summary to be right: the sum of base and shards
 * is the same before and after (property-tested). Empty `taken`: nothing to do.
 */
export function foldOf(shards: StoredItems, keepFrom: number): SummaryFold {
  const taken = new Map<number, [string, number][]>();
  const add = new Map<string, number>();
  const first = new Map<string, number>();
  itemsOf(shards).forEach((item, i) => {
    for (const [name, raw] of Object.entries(item)) {
      const a = summaryAttributeOf(name);
      if (!a || a.sb >= keepFrom) continue;
      const value = Number(raw);
      taken.set(i, [...(taken.get(i) ?? []), [name, value]]);
      if (a.kind === 'f') first.set(name, Math.min(first.get(name) ?? Infinity, value));
      else add.set(name, (add.get(name) ?? 0) + value);
    }
  });
  return { taken, add: [...add].filter(([, n]) => n !== 0), first: [...first] };
}

/** Live entries (of one status code, if given) per superblock. */
export function countsOf(summary: ListSummary, code?: number): readonly number[] {
  if (code === undefined) return summary.live;
  return summary.byStatus.get(code) ?? new Array<number>(summary.live.length).fill(0);
}

export const totalOf = (counts: readonly number[]): number => counts.reduce((a, b) => a + Math.max(0, b), 0);

/** The superblock holding the k-th (1-based) counted entry and its rank inside it; null past the end. */
export function locate(counts: readonly number[], k: number): { superblock: number; rank: number } | null {
  const found = locateInBlocks(counts, k);
  return found ? { superblock: found.block, rank: found.skipInBlock + 1 } : null;
}

/** Counted entries in superblocks before `superblock`. */
export const countBefore = (counts: readonly number[], superblock: number): number =>
  totalOf(counts.slice(0, superblock));

/** One stored item of a superblock's map, and which of its SHARDS it is (from its key). */
export interface MapShard {
  readonly shard: number;
  readonly item: Record<string, unknown>;
}

/**
 * The shard a chunk of creates (consecutive positions `first`, `first + 1`,
 * ... of one superblock) writes all its map values to: the shard of its
 * first position, one item instead of one per position. A position's own
 * shard stays `shardOf` it: every later write of it (a move, a hole) goes
 * there and wins over the parked value (`mapOf`).
 */
export const parkedShardOf = (first: number): number => shardOf(first);

/** MAP_SIZE is a multiple of SHARDS, so an offset's own shard is the same in every superblock. */
const ownShardOfOffset = (offset: number): number => shardOf(positionOf(0, offset));

/**
 * A superblock's map from its shard items as values per offset (HOLE where
 * erased or not yet handed out). A value in the position's own shard wins;
 * elsewhere it was parked there by the chunk that created it
 * (`parkedShardOf`), and is the position's value until its own shard has one.
 */
export function mapOf(shards: readonly MapShard[]): number[] {
  const codes = new Array<number>(MAP_SIZE).fill(HOLE);
  const own = new Array<boolean>(MAP_SIZE).fill(false);
  for (const { shard, item } of shards)
    for (const [name, value] of Object.entries(item)) {
      const m = /^p([0-9a-z]+)$/.exec(name);
      if (!m) continue;
      const offset = parseInt(m[1] ?? '', 36);
      if (!(offset >= 0 && offset < MAP_SIZE) || own[offset]) continue;
      codes[offset] = Number(value);
      own[offset] = ownShardOfOffset(offset) === shard;
    }
  return codes;
}

const matches = (value: number, code?: number): boolean => value >= 0 && (code === undefined || codeIn(value) === code);

/** Position of the `rank`-th (1-based) matching entry of a superblock's map; undefined if it has fewer. */
export function positionInMap(
  map: readonly number[],
  superblock: number,
  rank: number,
  code?: number,
): number | undefined {
  let seen = 0;
  for (let offset = 0; offset < map.length; offset++) {
    if (matches(map[offset] ?? HOLE, code) && ++seen === rank) return positionOf(superblock, offset);
  }
  return undefined;
}

/**
 * With created_at_since: the superblocks that can hold entries on both sides
 * of `since`. Superblock j, the last whose counted created_at is older, and
 * j + 1 (its value may be a later entry's than its first); those before j lie
 * entirely before the cut, those after j + 1 at/after it. Empty when the list
 * has no superblock.
 */
export function straddlingSuperblocks(summary: ListSummary, sinceMs: number): number[] {
  let j = -1;
  summary.firstCreated.forEach((ms, sb) => {
    if (ms < sinceMs) j = sb;
  });
  return [j, j + 1].filter((sb) => sb >= 0 && sb < summary.live.length);
}

/** Matching entries of a superblock's map created before `sinceMs`. */
export function countOlderInMap(map: readonly number[], sinceMs: number, code?: number): number {
  let seen = 0;
  for (const value of map) if (matches(value, code) && createdIn(value) < sinceMs) seen++;
  return seen;
}

/** True when superblock `sb` has every position live (its map need not be read). */
export const isFull = (summary: ListSummary, sb: number): boolean => (summary.live[sb] ?? 0) === MAP_SIZE;

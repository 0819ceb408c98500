/**
 * Position maps of the application lists (docs/pagination.md), pure maths.
 *
 * A list hands out dense positions 1..n at creation; an erasure leaves a
 * hole. To find the k-th live entry (optionally of one status, optionally
 * created at/after a time) without reading the entries before it, each list
 * keeps
 *  - a summary in its counter item: per superblock of MAP_SIZE positions the
 *    live count, the live count per status code and the created_at (epoch ms)
 *    of its first position (one item whatever N), and
 *  - one map item per superblock: per position `created_ms * CODES + code`
 *    of its entry, HOLE when erased.
 * Summary -> superblock, map -> exact position, then one Query `>= position`
 * with `Limit per_page` reads exactly the page (holes are not in the index);
 * src/domain/page-locator.ts does that for every list.
 */
import { locateInBlocks } from './pagination';

export const MAP_SIZE = 512;
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
/** Attribute name of a position in its map item (base 36 offset, short on purpose). */
export const mapAttribute = (position: number): string => `p${offsetOf(position).toString(36)}`;

/**
 * Status codes: the index of the status in the business's
 * `application_status_ids` (append-only in the fixture import). -1 for an
 * unknown status, which then matches nothing.
 */
export const statusCode = (statusIds: readonly string[], statusId: string): number => statusIds.indexOf(statusId);

export interface ListSummary {
  /** Positions handed out (the counter `n`). */
  readonly allocated: number;
  /** Live entries per superblock. */
  readonly live: readonly number[];
  /** Live entries per superblock and status code. */
  readonly byStatus: ReadonlyMap<number, readonly number[]>;
  /** created_at (epoch ms) of each superblock's first position. */
  readonly firstCreated: readonly number[];
}

/** Parses a counter item (n, l#<sb>, s#<sb>#<code>). */
export function summaryOf(item: Record<string, unknown> | undefined): ListSummary {
  const allocated = Number(item?.n ?? 0);
  const superblocks = allocated === 0 ? 0 : superblockOf(allocated) + 1;
  const live = new Array<number>(superblocks).fill(0);
  const byStatus = new Map<number, number[]>();
  const firstCreated = new Array<number>(superblocks).fill(Number.POSITIVE_INFINITY);
  for (const [name, value] of Object.entries(item ?? {})) {
    const f = /^f#(\d+)$/.exec(name);
    if (f) {
      const sb = Number(f[1]);
      if (sb < superblocks) firstCreated[sb] = Number(value);
      continue;
    }
    const l = /^l#(\d+)$/.exec(name);
    if (l) {
      const sb = Number(l[1]);
      if (sb < superblocks) live[sb] = Math.max(0, Number(value));
      continue;
    }
    const s = /^s#(\d+)#(\d+)$/.exec(name);
    if (s) {
      const sb = Number(s[1]);
      const code = Number(s[2]);
      if (sb >= superblocks) continue;
      const counts = byStatus.get(code) ?? new Array<number>(superblocks).fill(0);
      counts[sb] = Math.max(0, Number(value));
      byStatus.set(code, counts);
    }
  }
  return { allocated, live, byStatus, firstCreated };
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

/** A map item as values per offset (HOLE where erased or not yet handed out). */
export function mapOf(item: Record<string, unknown> | undefined): number[] {
  const codes = new Array<number>(MAP_SIZE).fill(HOLE);
  for (const [name, value] of Object.entries(item ?? {})) {
    const m = /^p([0-9a-z]+)$/.exec(name);
    if (!m) continue;
    const offset = parseInt(m[1] ?? '', 36);
    if (offset >= 0 && offset < MAP_SIZE) codes[offset] = Number(value);
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
 * With created_at_since: the one superblock that can hold entries on both
 * sides of `since` (the last whose first position is older); later ones lie
 * entirely at/after it, earlier ones before. -1: everything is at/after it.
 */
export function straddlingSuperblock(summary: ListSummary, sinceMs: number): number {
  let found = -1;
  summary.firstCreated.forEach((ms, sb) => {
    if (ms < sinceMs) found = sb;
  });
  return found;
}

/** Matching entries of a superblock's map created before `sinceMs`. */
export function countOlderInMap(map: readonly number[], sinceMs: number, code?: number): number {
  let seen = 0;
  for (const value of map) if (matches(value, code) && createdIn(value) < sinceMs) seen++;
  return seen;
}

/** True when superblock `sb` has no hole among its handed-out positions (its map need not be read). */
export function isFull(summary: ListSummary, sb: number): boolean {
  const handedOut = Math.min(MAP_SIZE, summary.allocated - sb * MAP_SIZE);
  return (summary.live[sb] ?? 0) === handedOut;
}

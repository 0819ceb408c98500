/**
 * A list as the table holds it, for the pure tests of position maps and the
 * page locator: codes per position (HOLE = erased, or reserved by a create
 * that never committed), created_at = position * 1000 ms.
 */
import fc from 'fast-check';
import {
  HOLE,
  MAP_SIZE,
  firstCreatedAttribute,
  liveAttribute,
  mapAttribute,
  mapOf,
  mapValue,
  shardOf,
  statusAttribute,
  summaryOf,
  superblockOf,
} from '../../src/domain/list-map';

/**
 * The summary item and map items a list of codes would have in the table.
 * Entries of a superblock commit in any order, so its `f#` is the created_at
 * of whichever committed first: here a position picked by `firstCommitted`
 * (by default one that varies with the superblock and the list's length).
 */
export function stored(
  codes: readonly number[],
  firstCommitted: (sb: number, positions: number) => number = (sb, positions) => (sb * 7919 + codes.length) % positions,
) {
  const counter: Record<string, unknown> = {};
  // Per superblock, its map's shard items by shard (each position in its own shard).
  const maps = new Map<number, Map<number, Record<string, unknown>>>();
  codes.forEach((code, i) => {
    const position = i + 1;
    const sb = superblockOf(position);
    const shards = maps.get(sb) ?? maps.set(sb, new Map()).get(sb)!;
    const map = shards.get(shardOf(position)) ?? shards.set(shardOf(position), {}).get(shardOf(position))!;
    // created_at (ms) = position * 1000: creation order is position order
    map[mapAttribute(position)] = code === HOLE ? HOLE : mapValue(position * 1000, code);
    counter[liveAttribute(sb)] ??= 0;
    if (code === HOLE) return;
    counter[liveAttribute(sb)] = Number(counter[liveAttribute(sb)]) + 1;
    counter[statusAttribute(sb, code)] = Number(counter[statusAttribute(sb, code)] ?? 0) + 1;
  });
  for (const sb of maps.keys()) {
    const first = sb * MAP_SIZE;
    const positions = Math.min(MAP_SIZE, codes.length - first);
    counter[firstCreatedAttribute(sb)] = (first + 1 + firstCommitted(sb, positions)) * 1000;
  }
  // Each map item parsed once (mapOf), as a page read parses each map it fetches once.
  const parsed = new Map<number, number[]>();
  const map = (sb: number): number[] =>
    parsed.get(sb) ??
    parsed
      .set(
        sb,
        mapOf(
          [...(maps.get(sb) ?? new Map<number, Record<string, unknown>>())].map(([shard, item]) => ({ shard, item })),
        ),
      )
      .get(sb)!;
  return { summary: summaryOf(counter), map };
}

export const codesArb = fc
  .tuple(fc.integer({ min: 0, max: 3 * MAP_SIZE }), fc.double({ min: 0, max: 0.9, noNaN: true }), fc.integer())
  .map(([n, holes, seed]) => {
    let x = seed | 0;
    const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
    return Array.from({ length: n }, () => (rnd() < holes ? HOLE : Math.floor(rnd() * 3)));
  });

import fc from 'fast-check';
import {
  HOLE,
  MAP_SIZE,
  candidateSuperblocks,
  countBefore,
  countsOf,
  isFull,
  liveAttribute,
  locate,
  mapAttribute,
  mapOf,
  pageSuperblocks,
  positionInMap,
  countOlderInMap,
  firstCreatedAttribute,
  mapValue,
  mapsForPage,
  straddlingSuperblock,
  statusAttribute,
  summaryOf,
  superblockOf,
  totalOf,
} from '../../src/domain/list-map';

/** The counter item and map items a list of codes (HOLE = erased) would have in the table. */
function stored(codes: readonly number[]) {
  const counter: Record<string, unknown> = { n: codes.length };
  const maps = new Map<number, Record<string, unknown>>();
  codes.forEach((code, i) => {
    const position = i + 1;
    const sb = superblockOf(position);
    const map = maps.get(sb) ?? {};
    // created_at (ms) = position * 1000: creation order is position order
    map[mapAttribute(position)] = code === HOLE ? HOLE : mapValue(position * 1000, code);
    maps.set(sb, map);
    counter[firstCreatedAttribute(sb)] ??= position * 1000;
    if (code === HOLE) return;
    counter[liveAttribute(sb)] = Number(counter[liveAttribute(sb)] ?? 0) + 1;
    counter[statusAttribute(sb, code)] = Number(counter[statusAttribute(sb, code)] ?? 0) + 1;
  });
  // Each map item parsed once (mapOf), as a page read parses each map it fetches once.
  const parsed = new Map<number, number[]>();
  const map = (sb: number): number[] => parsed.get(sb) ?? parsed.set(sb, mapOf(maps.get(sb))).get(sb)!;
  return { summary: summaryOf(counter), map };
}

const codesArb = fc
  .tuple(fc.integer({ min: 0, max: 3 * MAP_SIZE }), fc.double({ min: 0, max: 0.9, noNaN: true }), fc.integer())
  .map(([n, holes, seed]) => {
    let x = seed | 0;
    const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
    return Array.from({ length: n }, () => (rnd() < holes ? HOLE : Math.floor(rnd() * 3)));
  });

describe('position maps', () => {
  it('positions map to superblocks of MAP_SIZE and short attribute names', () => {
    expect(superblockOf(1)).toBe(0);
    expect(superblockOf(MAP_SIZE)).toBe(0);
    expect(superblockOf(MAP_SIZE + 1)).toBe(1);
    expect(mapAttribute(1)).toBe('p0');
    expect(mapAttribute(MAP_SIZE + 36)).toBe('pz');
  });

  it('a full superblock needs no map; one hole makes it not full', () => {
    const full = stored([0, 1, 2, 0]);
    expect(isFull(full.summary, 0)).toBe(true);
    const holed = stored([0, HOLE, 2, 0]);
    expect(isFull(holed.summary, 0)).toBe(false);
  });

  it('the k-th live entry (of any or one status) is found exactly: summary -> superblock, map -> position', () => {
    fc.assert(
      fc.property(codesArb, fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }), (codes, code) => {
        const { summary, map } = stored(codes);
        const counts = countsOf(summary, code);
        const expected = codes
          .map((c, i) => [c, i + 1] as const)
          .filter(([c]) => c !== HOLE && (code === undefined || c === code))
          .map(([, p]) => p);
        expect(totalOf(counts)).toBe(expected.length);
        expected.forEach((position, i) => {
          const loc = locate(counts, i + 1)!;
          expect(positionInMap(map(loc.superblock), loc.superblock, loc.rank, code)).toBe(position);
          // and back: the rank of a position from the summary and its map
          const sb = superblockOf(position);
          expect(countBefore(counts, sb) + countOlderInMap(map(sb), position * 1000, code)).toBe(i);
        });
        expect(locate(counts, expected.length + 1)).toBeNull();
      }),
      { numRuns: 60 },
    );
  });

  it('with a since-cut: exact total, and the candidate superblocks hold every entry of the page', () => {
    fc.assert(
      fc.property(
        codesArb,
        fc.integer({ min: 0, max: 3 * MAP_SIZE * 1000 + 2000 }),
        fc.nat({ max: 400 }),
        fc.integer({ min: 1, max: 100 }),
        (codes, sinceMs, offset, take) => {
          const { summary, map } = stored(codes);
          const code = 1;
          const counts = countsOf(summary, code);
          const matching = codes
            .map((c, i) => [c, i + 1] as const)
            .filter(([c, p]) => c === code && p * 1000 >= sinceMs)
            .map(([, p]) => p);
          const straddling = straddlingSuperblock(summary, sinceMs);
          const before =
            straddling < 0 ? 0 : countBefore(counts, straddling) + countOlderInMap(map(straddling), sinceMs, code);
          expect(totalOf(counts) - before).toBe(matching.length);
          const page = matching.slice(offset, offset + take);
          const candidates = new Set(
            straddling < 0
              ? pageSuperblocks(counts, offset + 1, take)
              : candidateSuperblocks(counts, straddling, offset, take),
          );
          for (const p of page) expect(candidates.has(superblockOf(p))).toBe(true);
          page.forEach((p, i) => {
            const loc = locate(counts, before + offset + i + 1)!;
            expect(positionInMap(map(loc.superblock), loc.superblock, loc.rank, code)).toBe(p);
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the superblocks of a page are those from its first to its last entry', () => {
    expect(pageSuperblocks([MAP_SIZE, MAP_SIZE, 5], MAP_SIZE - 1, 10)).toEqual([0, 1]);
    expect(pageSuperblocks([3, 0, 0, 5], 3, 3)).toEqual([0, 1, 2, 3]);
    expect(pageSuperblocks([3], 4, 1)).toEqual([]);
  });

  it('mapsForPage names, from the summary alone, every map the page reads (one BatchGetItem with the summary)', () => {
    fc.assert(
      fc.property(
        codesArb,
        fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 3 * MAP_SIZE * 1000 + 2000 }), { nil: undefined }),
        fc.nat({ max: 400 }),
        fc.integer({ min: 1, max: 100 }),
        fc.boolean(),
        (codes, code, sinceMs, skipped, perPage, wholeRange) => {
          const { summary, map } = stored(codes);
          const named = new Set(mapsForPage(summary, { code, sinceMs, skipped, perPage, wholeRange }));
          const counts = countsOf(summary, code);
          const straddling = sinceMs === undefined ? -1 : straddlingSuperblock(summary, sinceMs);
          if (straddling >= 0) expect(named.has(straddling)).toBe(true);
          const before =
            straddling < 0 ? 0 : countBefore(counts, straddling) + countOlderInMap(map(straddling), sinceMs!, code);
          const total = totalOf(counts) - before;
          if (skipped >= total) return;
          const take = Math.min(perPage, total - skipped);
          const needed = pageSuperblocks(counts, before + skipped + 1, wholeRange ? take : 1);
          const exact = code === undefined && needed.every((sb) => isFull(summary, sb));
          if (!exact) for (const sb of needed) expect(named.has(sb)).toBe(true);
          if (exact && straddling < 0) expect(named.size).toBe(0);
        },
      ),
      { numRuns: 80 },
    );
    expect(mapsForPage(stored([0, 1]).summary, { code: -1, skipped: 0, perPage: 5, wholeRange: false })).toEqual([]);
  });
});

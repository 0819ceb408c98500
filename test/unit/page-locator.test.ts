import fc from 'fast-check';
import { HOLE, MAP_SIZE, superblockOf, type ListSummary } from '../../src/domain/list-map';
import { locatePage, mapsForPage, type PageAsk, type PageLocation } from '../../src/domain/page-locator';
import { codesArb, stored } from '../support/list-maps';

/** Every map of a list, as a page that read them all would hold them. */
const allMaps = (codes: readonly number[], map: (sb: number) => number[]): Map<number, number[]> =>
  new Map(Array.from({ length: Math.ceil(codes.length / MAP_SIZE) }, (_, sb) => [sb, map(sb)]));

/** The page by brute force: positions of the matching entries, the total, the page's slice. */
function expectedPage(codes: readonly number[], ask: PageAsk) {
  const matching = codes
    .map((c, i) => [c, i + 1] as const)
    .filter(([c]) => c !== HOLE && (ask.code === undefined || c === ask.code))
    .filter(([, p]) => ask.sinceMs === undefined || p * 1000 >= ask.sinceMs)
    .map(([, p]) => p);
  return { total: matching.length, page: matching.slice(ask.skipped, ask.skipped + ask.perPage) };
}

/**
 * What the data layer reads for a located page: the list's index partition
 * (a status's own partition when the page filters by status without a whole
 * range) from `from` with Limit `take`, or the key range `from..to` filtered
 * by status. Holes are not in the index.
 */
function readRange(codes: readonly number[], ask: PageAsk, location: PageLocation): number[] {
  if (location.kind !== 'page' || !location.range) return [];
  const { from, to, take } = location.range;
  const ownPartition = ask.code !== undefined && !ask.wholeRange;
  const inPartition = codes
    .map((c, i) => [c, i + 1] as const)
    .filter(([c]) => c !== HOLE && (!ownPartition || c === ask.code));
  if (to === undefined)
    return inPartition
      .filter(([, p]) => p >= from)
      .slice(0, take)
      .map(([, p]) => p);
  return inPartition
    .filter(([c, p]) => p >= from && p <= to && (ask.code === undefined || c === ask.code))
    .slice(0, take)
    .map(([, p]) => p);
}

const askArb = fc.record({
  code: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  sinceMs: fc.option(fc.integer({ min: 0, max: 3 * MAP_SIZE * 1000 + 2000 }), { nil: undefined }),
  skipped: fc.nat({ max: 600 }),
  perPage: fc.integer({ min: 1, max: 100 }),
  wholeRange: fc.boolean(),
});

/** The data layer's procedure: the maps a (possibly stale) hint sent, then those the summary names, then locate. */
function locateLikeTheStore(summary: ListSummary, all: Map<number, number[]>, hinted: readonly number[], ask: PageAsk) {
  const maps = new Map(hinted.filter((sb) => all.has(sb)).map((sb) => [sb, all.get(sb)!]));
  let location = locatePage(summary, maps, ask);
  let reads = 0;
  if (location.kind === 'maps') {
    reads++;
    for (const sb of mapsForPage(summary, ask)) if (!maps.has(sb)) maps.set(sb, all.get(sb) ?? []);
    location = locatePage(summary, maps, ask);
  }
  return { location, reads, maps };
}

describe('page locator', () => {
  it('locates exactly the page every list reads: total, first and last position, with holes and a since-cut', () => {
    fc.assert(
      // `commit`: which entry of each superblock committed first (its f#), entries committing in any order.
      fc.property(codesArb, askArb, fc.nat(), (codes, ask, commit) => {
        const { summary, map } = stored(codes, (sb, positions) => (commit + sb * 31) % positions);
        const location = locatePage(summary, allMaps(codes, map), ask);
        const expected = expectedPage(codes, ask);
        expect(location.kind).toBe('page');
        if (location.kind !== 'page') return;
        expect(location.total).toBe(expected.total);
        expect(location.range === undefined).toBe(expected.page.length === 0);
        if (location.range) {
          expect(location.range.from).toBe(expected.page[0]);
          expect(location.range.take).toBe(expected.page.length);
          if (ask.wholeRange) expect(location.range.to).toBe(expected.page.at(-1));
        }
        expect(readRange(codes, ask, location)).toEqual(expected.page);
      }),
      { numRuns: 150 },
    );
  });

  it('names from the summary alone every map it needs: one more read at most, whatever maps a hint sent', () => {
    fc.assert(
      fc.property(
        codesArb,
        askArb,
        fc.array(fc.nat({ max: 3 }), { maxLength: 3 }),
        fc.nat(),
        (codes, ask, hinted, c) => {
          const { summary, map } = stored(codes, (sb, positions) => (c + sb * 31) % positions);
          const all = allMaps(codes, map);
          const { location, reads } = locateLikeTheStore(summary, all, hinted, ask);
          expect(location).toEqual(locatePage(summary, all, ask));
          expect(reads).toBeLessThanOrEqual(1);
          // A hint naming the maps of this very summary sends all of them with it: no read of its own.
          expect(locateLikeTheStore(summary, all, mapsForPage(summary, ask), ask).reads).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('what the straddling maps said locates every later page of the cut with its own maps alone, exactly', () => {
    fc.assert(
      fc.property(codesArb, askArb, fc.nat(), (codes, ask, c) => {
        const { summary, map } = stored(codes, (sb, positions) => (c + sb * 31) % positions);
        const all = allMaps(codes, map);
        const located = locatePage(summary, all, ask);
        if (located.kind !== 'page') throw new Error('every map was there');
        expect(located.cut === undefined).toBe(ask.sinceMs === undefined || ask.code === -1 || codes.length === 0);
        // Another page of the same cut, from the summary and the maps named with the cut known.
        const later = { ...ask, skipped: ask.skipped + ask.perPage };
        const named = mapsForPage(summary, later, located.cut);
        const only = new Map(named.map((sb) => [sb, all.get(sb)!]));
        expect(locatePage(summary, only, later, located.cut)).toEqual(locatePage(summary, all, later));
        // Its own superblocks only: the first entry's (a key range: through its last entry's).
        if (!later.wholeRange) expect(named.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 150 },
    );
  });

  it('a cut whose straddling superblocks changed since (their versions moved) is counted from their maps again', () => {
    // Status 0 every third position, 171 per superblock; 33 of them before the cut (positions 1..99).
    const codes = Array.from({ length: 4 * MAP_SIZE }, (_, i) => i % 3);
    const { summary, map } = stored(codes);
    const ask = { code: 0, sinceMs: 100_000, skipped: 500, perPage: 30, wholeRange: false };
    const located = locatePage(summary, allMaps(codes, map), ask);
    if (located.kind !== 'page' || !located.cut) throw new Error('a since-cut page');
    expect(located.cut).toEqual({ straddling: [0, 1], versions: [0, 0], older: 33 });
    // Far from the cut: its own superblock's map alone (its first match is the 534th).
    expect(mapsForPage(summary, ask, located.cut)).toEqual([3]);
    // Not knowing the cut: the straddling maps and every superblock the page may fall in, to the list's end.
    expect(mapsForPage(summary, ask)).toEqual([0, 1, 2, 3]);

    // Position 4 (status 0, before the cut) erased: its superblock's version moves on in the same write.
    const erased = codes.map((c, i) => (i === 3 ? HOLE : c));
    const after = stored(erased);
    const moved = { ...after.summary, versions: [1, 0, 0, 0] };
    const expected = expectedPage(erased, ask);
    expect(mapsForPage(moved, ask, located.cut)).toEqual([0, 1, 2, 3]);
    const again = locatePage(moved, allMaps(erased, after.map), ask, located.cut);
    expect(again.kind === 'page' && { total: again.total, from: again.range?.from }).toEqual({
      total: expected.total,
      from: expected.page[0],
    });
    // Had the version not moved, the old count would have been off by the erased entry.
    const unmoved = locatePage(after.summary, allMaps(erased, after.map), ask, located.cut);
    expect(unmoved.kind === 'page' && unmoved.total).toBe(expected.total - 1);
  });

  it('reads a map only where the summary cannot place the page: a status, a since-cut or a hole', () => {
    const full = stored(Array.from({ length: MAP_SIZE }, (_, i) => i % 3)).summary;
    const ask = { skipped: 2, perPage: 2, wholeRange: false };
    expect(mapsForPage(full, ask)).toEqual([]);
    expect(locatePage(full, new Map(), ask)).toEqual({ kind: 'page', total: MAP_SIZE, range: { from: 3, take: 2 } });
    expect(mapsForPage(full, { ...ask, skipped: 0, code: 1 })).toEqual([0]);
    expect(mapsForPage(full, { ...ask, sinceMs: 2500 })).toEqual([0]);
    expect(mapsForPage(stored([0, HOLE, 2]).summary, { ...ask, skipped: 0 })).toEqual([0]);
    // Positions reserved but not (yet) committed may be holes: a superblock short of MAP_SIZE is read.
    expect(mapsForPage(stored([0, 1, 2]).summary, { ...ask, skipped: 0 })).toEqual([0]);
    // A page spanning superblocks with the status as a filter needs the maps of its first and last entry.
    const twoBlocks = stored(Array.from({ length: MAP_SIZE + 10 }, (_, i) => i % 3)).summary;
    expect(mapsForPage(twoBlocks, { code: 0, skipped: 170, perPage: 5, wholeRange: true })).toEqual([0, 1]);
    expect(superblockOf(MAP_SIZE + 1)).toBe(1);
  });

  it('a status the business does not have matches nothing; a page past the end is empty with the exact total', () => {
    const { summary } = stored([0, 1]);
    expect(locatePage(summary, new Map(), { code: -1, skipped: 0, perPage: 5, wholeRange: false })).toEqual({
      kind: 'page',
      total: 0,
    });
    expect(locatePage(summary, new Map(), { skipped: 30, perPage: 30, wholeRange: false })).toEqual({
      kind: 'page',
      total: 2,
    });
  });
});

import fc from 'fast-check';
import { codesArb, stored } from '../support/list-maps';
import {
  HOLE,
  MAP_SIZE,
  countBefore,
  countsOf,
  isFull,
  locate,
  mapAttribute,
  positionInMap,
  countOlderInMap,
  superblockOf,
  totalOf,
} from '../../src/domain/list-map';

describe('position maps', () => {
  it('positions map to superblocks of MAP_SIZE and short attribute names', () => {
    expect(superblockOf(1)).toBe(0);
    expect(superblockOf(MAP_SIZE)).toBe(0);
    expect(superblockOf(MAP_SIZE + 1)).toBe(1);
    expect(mapAttribute(1)).toBe('p0');
    expect(mapAttribute(MAP_SIZE + 36)).toBe('pz');
  });

  it('a full superblock needs no map; one hole makes it not full', () => {
    const codes = Array.from({ length: MAP_SIZE + 3 }, (_, i) => i % 3);
    const full = stored(codes);
    expect(isFull(full.summary, 0)).toBe(true);
    // Positions not yet reserved may still commit: only a superblock with every position live is full.
    expect(isFull(full.summary, 1)).toBe(false);
    const holed = stored(codes.map((c, i) => (i === 100 ? HOLE : c)));
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
        // Whole lists compared once per run, not an expect per entry (up to 1,536 entries, 60 runs).
        const found = expected.map((_, i) => {
          const loc = locate(counts, i + 1)!;
          return positionInMap(map(loc.superblock), loc.superblock, loc.rank, code);
        });
        expect(found).toEqual(expected);
        // and back: the rank of a position from the summary and its map
        const ranks = expected.map((position) => {
          const sb = superblockOf(position);
          return countBefore(counts, sb) + countOlderInMap(map(sb), position * 1000, code);
        });
        expect(ranks).toEqual(expected.map((_, i) => i));
        expect(locate(counts, expected.length + 1)).toBeNull();
      }),
      { numRuns: 60 },
    );
  });
});

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
  firstCreatedAttribute,
  foldOf,
  versionAttribute,
  liveAttribute,
  mapOf,
  parkedShardOf,
  mapValue,
  SHARDS,
  shardOf,
  statusAttribute,
  summaryOf,
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

/** Adds `by` to a summary attribute of a stored item (a DynamoDB ADD). */
const add = (item: Record<string, unknown>, name: string, by: number): void =>
  void (item[name] = Number(item[name] ?? 0) + by);

describe('a summary and maps stored in shards', () => {
  // Entries committed to shards picked by the writers (a chunk puts all its counts in one), some of them then
  // moved to another status or erased by a writer counting in the shard of its own position: whatever the split,
  // the shards add up to the list, and a fold of the old superblocks into the base changes none of it.
  const history = fc.record({
    codes: codesArb,
    seed: fc.integer(),
    moves: fc.array(fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })), { maxLength: 40 }),
    keepFrom: fc.integer({ min: 0, max: 4 }),
  });

  it('adds up to the list whatever shard each count went to, and folding moves counts without changing a total', () => {
    fc.assert(
      fc.property(history, ({ codes, seed, moves, keepFrom }) => {
        let x = seed | 0;
        const pick = (): number => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0) % SHARDS;
        const shards = Array.from({ length: SHARDS }, (): Record<string, unknown> => ({ SK: 'shard' }));
        const maps = new Map<string, Record<string, unknown>>();
        const final = [...codes];
        // Every write moves its superblock's version on.
        const writes = new Map<number, number>();
        const wrote = (shard: Record<string, unknown>, sb: number): void => {
          add(shard, versionAttribute(sb), 1);
          writes.set(sb, (writes.get(sb) ?? 0) + 1);
        };
        const setMap = (position: number, value: number, shard = shardOf(position)): void => {
          const id = `${superblockOf(position)}#${shard}`;
          const map = maps.get(id) ?? maps.set(id, {}).get(id)!;
          map[mapAttribute(position)] = value;
        };
        // Creates come one by one or in chunks (a new chunk at about one position in four): a chunk parks its
        // values of each superblock in the shard of its first position there.
        let chunkFirst = 0;
        codes.forEach((code, i) => {
          const position = i + 1;
          if (pick() < SHARDS / 4 || superblockOf(chunkFirst) !== superblockOf(position)) chunkFirst = position;
          if (code === HOLE) return;
          const sb = superblockOf(position);
          const shard = shards[pick()]!;
          add(shard, liveAttribute(sb), 1);
          add(shard, statusAttribute(sb, code), 1);
          wrote(shard, sb);
          shard[firstCreatedAttribute(sb)] ??= position * 1000;
          setMap(position, mapValue(position * 1000, code), parkedShardOf(chunkFirst));
        });
        for (const [n, to] of moves) {
          const live = final.flatMap((c, i) => (c === HOLE ? [] : [i]));
          if (live.length === 0) break;
          const i = live[n % live.length]!;
          const position = i + 1;
          const sb = superblockOf(position);
          const shard = shards[shardOf(position)]!;
          add(shard, statusAttribute(sb, final[i]!), -1);
          wrote(shard, sb);
          if (to === HOLE) add(shard, liveAttribute(sb), -1);
          else add(shard, statusAttribute(sb, to), 1);
          setMap(position, to === HOLE ? HOLE : mapValue(position * 1000, to));
          final[i] = to;
        }
        const expected = stored(final);
        const summary = summaryOf([{ SK: 'base' }, ...shards]);
        // Superblocks with nothing ever committed (holes only) are not in the shards: counted as 0.
        const superblocks = expected.summary.live.length;
        const counts = (sm: typeof summary): number[][] =>
          [sm.live, ...[0, 1, 2].map((c) => countsOf(sm, c))].map((a) =>
            Array.from({ length: superblocks }, (_, sb) => a[sb] ?? 0),
          );
        expect(counts(summary)).toEqual(counts(expected.summary));
        expect(summary.versions.map((v, sb): [number, number] => [sb, v]).filter(([, v]) => v > 0)).toEqual(
          [...writes].sort(([a], [b]) => a - b),
        );
        const joined = Array.from({ length: superblocks }, (_, sb) =>
          mapOf(
            [...maps]
              .filter(([id]) => id.startsWith(`${sb}#`))
              .map(([id, item]) => ({ shard: Number(id.split('#')[1]), item })),
          ),
        );
        expect(joined).toEqual(Array.from({ length: superblocks }, (_, sb) => expected.map(sb)));

        const fold = foldOf(shards, keepFrom);
        const base: Record<string, unknown> = { SK: 'base' };
        for (const [name, by] of fold.add) add(base, name, by);
        for (const [name, ms] of fold.first) base[name] ??= ms;
        const after = shards.map((shard, i) => {
          const taken = new Set((fold.taken.get(i) ?? []).map(([name]) => name));
          return Object.fromEntries(Object.entries(shard).filter(([name]) => !taken.has(name)));
        });
        const folded = summaryOf([base, ...after]);
        expect(counts(folded)).toEqual(counts(summary));
        expect(folded.firstCreated).toEqual(summary.firstCreated);
        expect(folded.versions).toEqual(summary.versions);
        // What stays in the shards is of the superblocks from keepFrom on only.
        const left = after.flatMap((shard) => Object.keys(shard).filter((name) => /^[lfsv]#/.test(name)));
        expect(left.filter((name) => Number(name.split('#')[1]) < keepFrom)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

import { moveInSummary, placeInList } from '../../src/data/list-counter';
import { keys } from '../../src/data/keys';
import { MAP_SIZE, SHARDS } from '../../src/domain/list-map';

const keyOf = (w: { item: { Update?: { Key?: unknown } } }): unknown => w.item.Update?.Key;

describe('list writes in shards (src/data/list-counter.ts)', () => {
  it('a chunk counts in one summary shard and sets each position in the map shard of its position', () => {
    const entries = Array.from({ length: SHARDS + 2 }, (_, i) => ({ code: 0, createdAtMs: 1_000 + i }));
    const [summary, ...maps] = placeInList('b', 'l', 5, entries);
    expect(keyOf(summary!)).toEqual(keys.summaryShard('b', 'l', 5 % SHARDS));
    // Positions 5..22 span 16 shards of superblock 0: 16 map items, two of them with two positions.
    expect(maps.map(keyOf)).toEqual(
      Array.from({ length: SHARDS }, (_, i) => keys.listMap('b', 'l', 0, (5 + i) % SHARDS)),
    );
  });

  it('a write or a move at the first position of superblock 2 or later hands on a fold of its list, no other', () => {
    const folds = (position: number): string[] =>
      [
        placeInList('b', 'l', position, [{ code: 0, createdAtMs: 1 }])[0]!,
        moveInSummary('b', 'l', position, 0, 1),
        moveInSummary('b', 'l', position, 0, undefined),
      ].flatMap((w) => (w.afterCommit ? [w.afterCommit.id] : []));
    expect(folds(2 * MAP_SIZE + 1)).toEqual(['fold b l', 'fold b l', 'fold b l']);
    expect(folds(5 * MAP_SIZE + 1)).toEqual(['fold b l', 'fold b l', 'fold b l']);
    for (const position of [1, MAP_SIZE + 1, 2 * MAP_SIZE, 2 * MAP_SIZE + 2]) expect(folds(position)).toEqual([]);
  });
});

import { moveInSummary, placeInList } from '../../src/data/lists/counter';
import { keys } from '../../src/data/dynamo/keys';
import { MAP_SIZE, SHARDS } from '../../src/domain/list-map';

const keyOf = (w: { item: { Update?: { Key?: unknown } } }): unknown => w.item.Update?.Key;

describe('list writes in shards (src/data/lists/counter.ts)', () => {
  it('a chunk counts in one summary shard and parks its map values in one shard per superblock', () => {
    const entries = Array.from({ length: SHARDS + 2 }, (_, i) => ({ code: 0, createdAtMs: 1_000 + i }));
    const [summary, ...maps] = placeInList('b', 'l', 5, entries);
    expect(keyOf(summary!)).toEqual(keys.summaryShard('b', 'l', 5 % SHARDS));
    // Positions 5..22, all in superblock 0: one map item, the shard of position 5, holding the 18 values.
    expect(maps.map(keyOf)).toEqual([keys.listMap('b', 'l', 0, 5 % SHARDS)]);
    expect(Object.keys(maps[0]!.item.Update?.ExpressionAttributeValues ?? {})).toHaveLength(SHARDS + 2);
    // Across a superblock's end: one item in each, the shard of the chunk's first position there.
    const across = placeInList('b', 'l', MAP_SIZE - 1, entries).slice(1);
    expect(across.map(keyOf)).toEqual([
      keys.listMap('b', 'l', 0, (MAP_SIZE - 1) % SHARDS),
      keys.listMap('b', 'l', 1, (MAP_SIZE + 1) % SHARDS),
    ]);
  });

  it('a single create, a move and a hole write the shard of their own position', () => {
    const [, map] = placeInList('b', 'l', 37, [{ code: 0, createdAtMs: 1 }]);
    expect(keyOf(map!)).toEqual(keys.listMap('b', 'l', 0, 37 % SHARDS));
    expect(keyOf(moveInSummary('b', 'l', 37, 0, 1))).toEqual(keys.summaryShard('b', 'l', 37 % SHARDS));
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

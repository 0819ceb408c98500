import { changeStatus, moveEntry, moveInSummary, placeInList, removeEntry } from '../../src/data/lists/counter';
import { keys } from '../../src/data/dynamo/keys';
import {
  HOLE,
  liveAttribute,
  mapAttribute,
  mapValue,
  MAP_SIZE,
  SHARDS,
  statusAttribute,
} from '../../src/domain/list-map';

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

  it('an entry moved, restatused or removed: its counts in the shard of its new position, its map values set', () => {
    /** The [attribute, value] pairs an Update sets, by its placeholders. */
    const setOf = (w: { item: { Update?: Record<string, unknown> } }): Record<string, unknown> => {
      const u = w.item.Update as {
        ExpressionAttributeNames: Record<string, string>;
        ExpressionAttributeValues: Record<string, unknown>;
      };
      const names = Object.values(u.ExpressionAttributeNames);
      const values = Object.values(u.ExpressionAttributeValues);
      return Object.fromEntries(names.map((n, i) => [n, values[i]]));
    };
    // To the end of the order of writes from a position of the same map shard: one summary Update, one map Update.
    const near = moveEntry('b', 'w', { position: 40, code: 2, createdAtMs: 7 }, { position: 24, code: 1 });
    expect(near.map(keyOf)).toEqual([keys.summaryShard('b', 'w', 40 % SHARDS), keys.listMap('b', 'w', 0, 40 % SHARDS)]);
    expect(setOf(near[1]!)).toEqual({ [mapAttribute(40)]: mapValue(7, 2), [mapAttribute(24)]: HOLE });
    // Its counts: one more of status 2, one less of status 1, as many live entries in the superblock as before.
    expect(setOf(near[0]!)).toMatchObject({ [statusAttribute(0, 2)]: 1, [statusAttribute(0, 1)]: -1 });
    expect(setOf(near[0]!)).not.toHaveProperty(liveAttribute(0));
    // From another shard or superblock: one map Update in each, each position in its own shard.
    const other = moveEntry('b', 'w', { position: 40, code: 2, createdAtMs: 7 }, { position: 3, code: 1 });
    expect(other.slice(1).map(keyOf)).toEqual([keys.listMap('b', 'w', 0, 40 % SHARDS), keys.listMap('b', 'w', 0, 3)]);
    const far = moveEntry('b', 'w', { position: MAP_SIZE + 4, code: 0, createdAtMs: 7 }, { position: 3, code: 0 });
    expect(far.slice(1).map(keyOf)).toEqual([
      keys.listMap('b', 'w', 1, (MAP_SIZE + 4) % SHARDS),
      keys.listMap('b', 'w', 0, 3 % SHARDS),
    ]);
    // A new entry leaves no hole.
    expect(moveEntry('b', 'w', { position: 40, code: 2, createdAtMs: 7 })).toHaveLength(2);
    const restatused = changeStatus('b', 'l', { position: 37, code: 3, createdAtMs: 9 }, 1);
    expect(restatused.map(keyOf)).toEqual([
      keys.summaryShard('b', 'l', 37 % SHARDS),
      keys.listMap('b', 'l', 0, 37 % SHARDS),
    ]);
    expect(setOf(restatused[1]!)).toEqual({ [mapAttribute(37)]: mapValue(9, 3) });
    const removed = removeEntry('b', 'l', { position: 37, code: 3 });
    expect(removed.map(keyOf)).toEqual([
      keys.summaryShard('b', 'l', 37 % SHARDS),
      keys.listMap('b', 'l', 0, 37 % SHARDS),
    ]);
    expect(setOf(removed[1]!)).toEqual({ [mapAttribute(37)]: HOLE });
  });
});

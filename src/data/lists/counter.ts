/**
 * How entries take their place in a list with holes (docs/pagination.md):
 * the application, employee and employee-job lists count entries at positions
 * reserved per business (src/data/lists/sequence.ts) in their summary
 * (`countInSummary`) and set them in their maps (`mapWritesAt`), with no
 * condition: `placeAt` (`placeInList` for consecutive positions) does both
 * for a create or a chunk of them, `moveEntry` for a write moving an entry to
 * the end of the order of writes, `changeStatus` and `removeEntry` for a
 * status change and an erasure.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  firstCreatedAttribute,
  foldOf,
  HOLE,
  liveAttribute,
  MAP_SIZE,
  mapAttribute,
  mapValue,
  parkedShardOf,
  shardOf,
  statusAttribute,
  summaryOf,
  superblockOf,
  versionAttribute,
} from '../../domain/list-map';
import { db } from '../dynamo/client';
import { tableName } from '../config';
import { tableKeyOf } from '../entities/entity';
import { keys } from '../dynamo/keys';
import { queryPartition } from '../dynamo/table-io';
import type { AfterCommit, TxWrite } from '../dynamo/transact-write';
import { ifNotExists, updateOf } from '../dynamo/update-expression';

/**
 * What a write adds to the version of a superblock it changes (`ListSummary.versions`): a random amount, so that two
 * reads show the same version only if no write changed the superblock between them, even across a sandbox reset,
 * which deletes the summary and counts again from nothing. Below 2^30: 2^23 writes to one superblock stay exact in
 * a double.
 */
const versionStep = (): number => randomInt(1, 2 ** 30);

/** An entry at its place in a list with a summary: its position and status code (0 in a list without statuses). */
export interface PlacedEntry {
  readonly position: number;
  readonly code: number;
}

/** An entry as its list keeps it: its place and its created_at (epoch ms; in the order of writes, its updated_at). */
export interface ListEntry extends PlacedEntry {
  readonly createdAtMs: number;
}

/**
 * The fold of a list's summary (foldSummary) once a write reaches the first
 * position of a superblock with two before it (the fold keeps the two newest
 * in the shards): once per MAP_SIZE entries of a dense list, as often for a
 * sparse one (a job list) in proportion to its entries.
 */
const foldWhenAt = (businessId: string, list: string, positions: readonly number[]): AfterCommit | undefined =>
  positions.some((p) => p % MAP_SIZE === 1 && p > 2 * MAP_SIZE)
    ? { id: `fold ${businessId} ${list}`, run: () => foldSummary(businessId, list) }
    : undefined;

/**
 * Counts entries at positions reserved for them (src/data/lists/sequence.ts)
 * in their list's summary, and uncounts `removed` ones (an application
 * leaving its place in the order of writes): one Update with no condition of
 * the summary shard of the first entry's position (a chunk's counts all go to
 * one shard: any shard may hold any count, the reader adds them up), live and
 * status counts moved per superblock, and each superblock's first created_at
 * set if the shard has none, and each superblock's version moved on
 * (`versionStep`). Entries of one superblock commit in any order,
 * so that value is the created_at of *some* entry of it, not always its
 * first: the page locator allows for that (`straddlingSuperblocks`,
 * src/domain/list-map.ts).
 */
export function countInSummary(
  businessId: string,
  list: string,
  entries: readonly ListEntry[],
  removed: readonly PlacedEntry[] = [],
): TxWrite {
  const [head] = entries;
  if (!head) throw new Error('countInSummary: no entries');
  const first = new Map<string, number>();
  const add = new Map<string, number>();
  const move = ({ position, code }: PlacedEntry, by: number): void => {
    const sb = superblockOf(position);
    for (const attribute of [liveAttribute(sb), statusAttribute(sb, code)])
      add.set(attribute, (add.get(attribute) ?? 0) + by);
    add.set(versionAttribute(sb), versionStep());
  };
  for (const entry of entries) {
    const f = firstCreatedAttribute(superblockOf(entry.position));
    first.set(f, Math.min(first.get(f) ?? Number.POSITIVE_INFINITY, entry.createdAtMs));
    move(entry, 1);
  }
  for (const entry of removed) move(entry, -1);
  const set = Object.fromEntries([...first].map(([name, ms]) => [name, ifNotExists(ms)]));
  const key = keys.summaryShard(businessId, list, shardOf(head.position));
  const fold = foldWhenAt(
    businessId,
    list,
    entries.map((e) => e.position),
  );
  return {
    item: { Update: { Key: key, ...updateOf({ set, add: [...add].filter(([, by]) => by !== 0) }) } },
    ...(fold ? { afterCommit: fold } : {}),
  };
}

/**
 * Moves the summary counts of one entry at `position`: status `from` -> `to`
 * (undefined = not counted / not live), in the shard of its position, and the
 * version of its superblock moved on. Moves
 * reach old superblocks (a status change, an erasure, retention erasing a
 * business's oldest applications), so an entry at the first position of a
 * superblock folds the list as a create there does: a list with moves and no
 * creates keeps its shards small too.
 */
export function moveInSummary(
  businessId: string,
  list: string,
  position: number,
  from: number | undefined,
  to: number | undefined,
): TxWrite {
  const sb = superblockOf(position);
  const add: [string, number][] = [[versionAttribute(sb), versionStep()]];
  if (from === undefined && to !== undefined) add.push([liveAttribute(sb), 1]);
  if (from !== undefined && to === undefined) add.push([liveAttribute(sb), -1]);
  if (from !== undefined) add.push([statusAttribute(sb, from), -1]);
  if (to !== undefined) add.push([statusAttribute(sb, to), 1]);
  const fold = foldWhenAt(businessId, list, [position]);
  return {
    item: { Update: { Key: keys.summaryShard(businessId, list, shardOf(position)), ...updateOf({ add }) } },
    ...(fold ? { afterCommit: fold } : {}),
  };
}

/**
 * Sets positions of a list's map ([position, value]): one Update per map
 * shard they fall in (superblock and `shardOf`), no condition (the positions
 * are the writer's own, so concurrent writes to other positions commute).
 * `parked`: new entries' first values, all of a superblock in the shard of
 * the first of them (src/domain/list-map.ts `parkedShardOf`): one Update per
 * superblock for a chunk of creates.
 */
export function mapWritesAt(
  businessId: string,
  list: string,
  values: readonly (readonly [number, number])[],
  parked = false,
): TxWrite[] {
  const firstIn = new Map<number, number>();
  for (const [position] of values)
    firstIn.set(superblockOf(position), Math.min(firstIn.get(superblockOf(position)) ?? Infinity, position));
  const byShard = new Map<string, { sb: number; shard: number; pairs: [string, number][] }>();
  for (const [position, value] of values) {
    const sb = superblockOf(position);
    const shard = parked ? parkedShardOf(firstIn.get(sb)!) : shardOf(position);
    const id = `${sb}#${shard}`;
    const at = byShard.get(id) ?? byShard.set(id, { sb, shard, pairs: [] }).get(id)!;
    at.pairs.push([mapAttribute(position), value]);
  }
  return [...byShard.values()].map(({ sb, shard, pairs }) => ({
    item: { Update: { Key: keys.listMap(businessId, list, sb, shard), ...updateOf({ set: pairs }) } },
  }));
}

/**
 * Folds a list's summary: the counts of its superblocks but the last two
 * leave the shards for the base item (src/domain/list-map.ts `foldOf`), in
 * one transaction conditioned on each taken value, so a write that lands in
 * between cancels it (it is tried again at the next superblock) and nothing
 * is ever counted twice or lost. Writers only reach the last superblocks, so
 * the shards stay small and a page's summary read costs about what one item
 * holding every count would. A failed or skipped fold changes no total.
 */
export async function foldSummary(businessId: string, list: string): Promise<void> {
  const base = keys.counter(businessId, list);
  const items = await queryPartition(base.PK);
  const shards = items.filter((i) => tableKeyOf(i).SK !== base.SK);
  const fold = foldOf(shards, summaryOf(items).live.length - 2);
  if (fold.taken.size === 0) return;
  const baseWrite =
    fold.add.length || fold.first.length
      ? [
          {
            Update: {
              Key: base,
              TableName: tableName(),
              ...updateOf({ add: fold.add, set: fold.first.map(([name, ms]) => [name, ifNotExists(ms)] as const) }),
            },
          },
        ]
      : [];
  const shardWrites = [...fold.taken].map(([i, attributes]) => {
    const names = Object.fromEntries(attributes.map(([name], j) => [`#c${j}`, name]));
    const values = Object.fromEntries(attributes.map(([, value], j) => [`:c${j}`, value]));
    const expression = attributes.map((_, j) => `#c${j} = :c${j}`).join(' AND ');
    return {
      Update: {
        Key: tableKeyOf(shards[i]!),
        TableName: tableName(),
        ...updateOf({ remove: attributes.map(([name]) => name) }, { expression, names, values }),
      },
    };
  });
  try {
    await db().send(
      new TransactWriteCommand({ TransactItems: [...baseWrite, ...shardWrites], ClientRequestToken: randomUUID() }),
    );
  } catch {
    // A write landed in between, or the store failed: the counts stay in the shards, where they count as well.
  }
}

/**
 * New entries at reserved positions (a create, or a chunk of them; a chunk's
 * entries in a job list are not consecutive there): counted in the list's
 * summary and set in its maps, each created at `createdAtMs` with status
 * `code` (0 for a list without statuses). No condition: k entries add one
 * summary Update and one map Update per superblock they span (their values
 * parked in one shard, mapWritesAt). At most 100.
 */
export function placeAt(businessId: string, list: string, entries: readonly ListEntry[]): TxWrite[] {
  if (entries.length > 100) throw new Error(`placeAt: ${entries.length} entries in one call`);
  return [
    countInSummary(businessId, list, entries),
    ...mapWritesAt(
      businessId,
      list,
      entries.map((e) => [e.position, mapValue(e.createdAtMs, e.code)] as const),
      true,
    ),
  ];
}

/** New entries at consecutive reserved positions from `first` on (placeAt): the i-th at `first + i`. */
export const placeInList = (
  businessId: string,
  list: string,
  first: number,
  entries: readonly { readonly code: number; readonly createdAtMs: number }[],
): TxWrite[] =>
  placeAt(
    businessId,
    list,
    entries.map((e, i) => ({ ...e, position: first + i })),
  );

/**
 * An entry moving to `to`, a position reserved for it at the end of a list
 * kept in the order of writes, and leaving a hole at `from`, where it was (none
 * for a new entry): both positions' counts in one summary Update with no
 * condition, each map position in its own shard (one Update when they share
 * one, mapWritesAt).
 */
export function moveEntry(businessId: string, list: string, to: ListEntry, from?: PlacedEntry): TxWrite[] {
  return [
    countInSummary(businessId, list, [to], from ? [from] : []),
    ...mapWritesAt(businessId, list, [
      [to.position, mapValue(to.createdAtMs, to.code)],
      ...(from ? [[from.position, HOLE] as const] : []),
    ]),
  ];
}

/** An entry's status changing from code `from` to `entry.code` at its place: its counts moved, its map value set. */
export const changeStatus = (businessId: string, list: string, entry: ListEntry, from: number): TxWrite[] => [
  moveInSummary(businessId, list, entry.position, from, entry.code),
  ...mapWritesAt(businessId, list, [[entry.position, mapValue(entry.createdAtMs, entry.code)]]),
];

/** An entry leaving its list (an erasure): uncounted, and a hole at its position. */
export const removeEntry = (businessId: string, list: string, entry: PlacedEntry): TxWrite[] => [
  moveInSummary(businessId, list, entry.position, entry.code, undefined),
  ...mapWritesAt(businessId, list, [[entry.position, HOLE]]),
];

/** The partitions a list keeps itself in (its summary, its maps): what a sandbox reset deletes of it. */
export const listPartitions = (businessId: string, list: string): readonly string[] => [
  keys.counter(businessId, list).PK,
  keys.listMap(businessId, list, 0, 0).PK,
];

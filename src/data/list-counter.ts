/**
 * How entries take their place in a list with holes (docs/pagination.md):
 * the application, employee and employee-job lists count entries at positions
 * reserved per business (src/data/list-sequence.ts) in their summary
 * (`countInSummary`) and set them in their maps (`mapWritesFrom`), with no
 * condition: `placeAt` (`placeInList` for consecutive positions) does both
 * for a create or a chunk of them.
 */
import { firstCreatedAttribute, liveAttribute, mapAttribute, mapValue, statusAttribute, superblockOf } from '../domain/list-map';
import { keys, type Key } from './keys';
import type { TxWrite } from './transact-write';
import { ifNotExists, updateOf } from './update-expression';

/** An entry at its place in a list with a summary. */
export interface PlacedEntry {
  readonly position: number;
  readonly code: number;
}

/**
 * Counts entries at positions reserved for them (src/data/list-sequence.ts)
 * in their list's summary, and uncounts `removed` ones (an application
 * leaving its place in the order of writes): one Update with no condition,
 * live and status counts moved per superblock, and each superblock's first
 * created_at set if it has none. Entries of one superblock commit in any
 * order, so that value is the created_at of *some* entry of it, not always
 * its first: the page locator allows for that (`straddlingSuperblocks`,
 * src/domain/list-map.ts).
 */
export function countInSummary(
  key: Key,
  entries: readonly (PlacedEntry & { readonly createdAtMs: number })[],
  removed: readonly PlacedEntry[] = [],
): TxWrite {
  if (entries.length === 0) throw new Error('countInSummary: no entries');
  const first = new Map<string, number>();
  const add = new Map<string, number>();
  const move = ({ position, code }: PlacedEntry, by: number): void => {
    const sb = superblockOf(position);
    for (const attribute of [liveAttribute(sb), statusAttribute(sb, code)])
      add.set(attribute, (add.get(attribute) ?? 0) + by);
  };
  for (const entry of entries) {
    const f = firstCreatedAttribute(superblockOf(entry.position));
    first.set(f, Math.min(first.get(f) ?? Number.POSITIVE_INFINITY, entry.createdAtMs));
    move(entry, 1);
  }
  for (const entry of removed) move(entry, -1);
  const set = Object.fromEntries([...first].map(([name, ms]) => [name, ifNotExists(ms)]));
  return { item: { Update: { Key: key, ...updateOf({ set, add: [...add].filter(([, by]) => by !== 0) }) } } };
}

/** Sets positions of a list's map ([position, value]): one Update per superblock they span, no condition. */
export function mapWritesAt(businessId: string, list: string, values: readonly (readonly [number, number])[]): TxWrite[] {
  const bySuperblock = new Map<number, [string, number][]>();
  for (const [position, value] of values) {
    const sb = superblockOf(position);
    bySuperblock.set(sb, [...(bySuperblock.get(sb) ?? []), [mapAttribute(position), value]]);
  }
  return [...bySuperblock].map(([sb, pairs]) => ({
    item: { Update: { Key: keys.listMap(businessId, list, sb), ...updateOf({ set: pairs }) } },
  }));
}

/**
 * Sets consecutive positions of a list's map from `first` on, `values[i]` at
 * `first + i` (`mapValue` of the entry, or HOLE): one Update per superblock
 * they span, no condition (the positions are the writer's own, so concurrent
 * writes to other positions commute). At most 100 values: DynamoDB caps an
 * UpdateExpression at 4 KB.
 */
export function mapWritesFrom(businessId: string, list: string, first: number, values: readonly number[]): TxWrite[] {
  if (values.length > 100) throw new Error(`mapWritesFrom: ${values.length} positions in one call`);
  return mapWritesAt(
    businessId,
    list,
    values.map((value, i) => [first + i, value] as const),
  );
}

/**
 * New entries at reserved positions (a create, or a chunk of them; a chunk's
 * entries in a job list are not consecutive there): counted in the list's
 * summary and set in its maps, each created at `createdAtMs` with status
 * `code` (0 for a list without statuses). No condition: k entries add one
 * summary Update and one map Update per superblock they span. At most 100.
 */
export function placeAt(
  businessId: string,
  list: string,
  entries: readonly (PlacedEntry & { readonly createdAtMs: number })[],
): TxWrite[] {
  if (entries.length > 100) throw new Error(`placeAt: ${entries.length} entries in one call`);
  return [
    countInSummary(keys.counter(businessId, list), entries),
    ...mapWritesAt(
      businessId,
      list,
      entries.map((e) => [e.position, mapValue(e.createdAtMs, e.code)] as const),
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

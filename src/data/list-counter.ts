/**
 * How entries take their place in a list (docs/pagination.md): application
 * lists count entries at positions reserved per business
 * (src/data/list-sequence.ts) in their summary (`countInSummary`); the dense
 * lists of employees and employee jobs move their counter from the value read
 * (`appendToList`).
 */
import { firstCreatedAttribute, liveAttribute, statusAttribute, superblockOf } from '../domain/list-map';
import type { Key } from './keys';
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

/**
 * Appends `count` entries to a dense list without a summary (employees,
 * employee jobs) in one write (one Update of its counter, a transaction
 * item): they take positions `current + 1` .. `current + count`, `current`
 * being the counter as read; a concurrent append fails the condition and the
 * operation re-runs from its read. A bulk import appends a chunk of rows this
 * way: one counter write per chunk, not one per row.
 */
export function appendToList(
  key: Key,
  current: number,
  count: number,
  /** Other attributes of the counter to set (e.g. `last_created_at` of the last entry). */
  set: Readonly<Record<string, unknown>> = {},
): TxWrite {
  if (!(Number.isInteger(count) && count >= 1)) throw new Error(`appendToList: ${count} entries`);
  return {
    item: {
      Update: {
        Key: key,
        ...updateOf(
          { set: { n: current + count, ...set } },
          {
            expression: current === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
            values: { ':current': current },
          },
        ),
      },
    },
    // Another writer took these positions: re-read the counter and try again.
    onConditionFailed: () => 'retry',
  };
}

/**
 * The one way entries are appended to a dense list (docs/pagination.md): its
 * counter moves from the value read to that value plus the number of entries
 * (only if nobody else moved it, so positions stay dense; a concurrent append
 * fails the condition and the operation re-runs from the read). Lists counted
 * by status also count each entry in its superblock's summary in the same
 * Update.
 */
import { firstCreatedAttribute, liveAttribute, statusAttribute, superblockOf } from '../domain/list-map';
import type { Key } from './keys';
import type { TxWrite } from './transact-write';
import { ifNotExists, updateOf } from './update-expression';

/** An entry of a list with a summary (the application lists): its status code and created_at (epoch ms). */
export interface SummaryEntry {
  readonly code: number;
  readonly createdAtMs: number;
}

/**
 * Appends a chunk of entries to a list in one write (one Update of its
 * counter, a transaction item): they take positions `current + 1` ..
 * `current + k` in the order given, `current` being the counter as read. For
 * a list without a summary (employees, employee jobs) `entries` is the count
 * k; for a list with one, the entries in position order (created_at must not
 * decrease along them), each counted in its superblock. A bulk import appends
 * a chunk of rows this way: one counter write per list per chunk, not one
 * per row. The caller writes the entries' map positions (application lists)
 * and records in the same transaction.
 */
export function appendToList(
  key: Key,
  current: number,
  entries: number | readonly SummaryEntry[],
  /** Other attributes of the counter to set (e.g. `last_created_at` of the last entry). */
  set: Readonly<Record<string, unknown>> = {},
): TxWrite {
  const count = typeof entries === 'number' ? entries : entries.length;
  if (!(Number.isInteger(count) && count >= 1)) throw new Error(`appendToList: ${count} entries`);
  const first = new Map<string, unknown>();
  const add = new Map<string, number>();
  if (typeof entries !== 'number')
    entries.forEach(({ code, createdAtMs }, i) => {
      const sb = superblockOf(current + 1 + i);
      if (!first.has(firstCreatedAttribute(sb))) first.set(firstCreatedAttribute(sb), ifNotExists(createdAtMs));
      for (const attribute of [liveAttribute(sb), statusAttribute(sb, code)])
        add.set(attribute, (add.get(attribute) ?? 0) + 1);
    });
  return {
    item: {
      Update: {
        Key: key,
        ...updateOf(
          { set: { n: current + count, ...Object.fromEntries(first), ...set }, ...(add.size ? { add: [...add] } : {}) },
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

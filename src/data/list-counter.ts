/**
 * The one way an entry is appended to a dense list (docs/pagination.md): its
 * counter moves from the value read to the next (only if nobody else moved
 * it, so positions stay dense; a concurrent append fails the condition and
 * the operation re-runs from the read). Lists counted by status also count
 * the entry in its superblock's summary in the same Update.
 */
import { firstCreatedAttribute, liveAttribute, statusAttribute, superblockOf } from '../domain/list-map';
import type { Key } from './keys';
import type { TxWrite } from './transact-write';
import { ifNotExists, updateOf } from './update-expression';

export function counterAdvance(
  key: Key,
  current: number,
  options: {
    /** Other attributes of the counter to set (e.g. `last_created_at`). */
    readonly set?: Record<string, unknown>;
    /** Count the new entry in its superblock's summary: status code and created_at (ms). */
    readonly summary?: { readonly code: number; readonly createdAtMs: number };
  } = {},
): TxWrite {
  const sb = superblockOf(current + 1);
  const summary = options.summary;
  return {
    item: {
      Update: {
        Key: key,
        ...updateOf(
          {
            set: {
              n: current + 1,
              ...(summary ? { [firstCreatedAttribute(sb)]: ifNotExists(summary.createdAtMs) } : {}),
              ...options.set,
            },
            ...(summary ? { add: { [liveAttribute(sb)]: 1, [statusAttribute(sb, summary.code)]: 1 } } : {}),
          },
          {
            expression: current === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
            values: { ':current': current },
          },
        ),
      },
    },
    // Another writer took this position: re-read the counter and try again.
    onConditionFailed: () => 'retry',
  };
}

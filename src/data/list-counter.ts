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
  const set = Object.entries(options.set ?? {});
  const names: Record<string, string> = Object.fromEntries(set.map(([name], i) => [`#x${i}`, name]));
  const values: Record<string, unknown> = {
    ':next': current + 1,
    ':current': current,
    ...Object.fromEntries(set.map(([, value], i) => [`:x${i}`, value])),
  };
  const sets = ['n = :next', ...set.map((_, i) => `#x${i} = :x${i}`)];
  let adds = '';
  if (options.summary) {
    const sb = superblockOf(current + 1);
    Object.assign(names, {
      '#l': liveAttribute(sb),
      '#s': statusAttribute(sb, options.summary.code),
      '#f': firstCreatedAttribute(sb),
    });
    Object.assign(values, { ':one': 1, ':created': options.summary.createdAtMs });
    sets.splice(1, 0, '#f = if_not_exists(#f, :created)');
    adds = ' ADD #l :one, #s :one';
  }
  return {
    item: {
      Update: {
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}${adds}`,
        ConditionExpression: current === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
    },
    // Another writer took this position: re-read the counter and try again.
    onConditionFailed: () => 'retry',
  };
}

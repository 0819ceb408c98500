import type { Sync } from '../../src/domain/rate-window';

/** The most of `times` (epoch ms, any order) within any interval of `windowMs`: what a rate limit may admit. */
export function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/**
 * Whether DynamoDB applies a sync to an item holding `mark` (the tag of its instance's last sync applied there): the
 * condition src/data/rate-counts.ts sends, `attribute_not_exists(#mark) OR #mark < :since`.
 */
export const applies = (mark: number | undefined, sync: Sync): boolean => mark === undefined || mark < sync.since;

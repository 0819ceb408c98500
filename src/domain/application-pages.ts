/**
 * Pure rules of the application lists (docs/pagination.md): creation times
 * that follow positions and `*_since` values. Position maps are in list-map.ts. No I/O here.
 */
import { parseTimestamp, toIsoMillis } from './formats';

/**
 * created_at of a new entry: now, but strictly after the previous entry of
 * its list, so creation order = position order = created_at order (contract
 * §7) even with clock skew between Lambda instances. Employees and employee
 * jobs take it from their counter as read; application writes get the same
 * rule from the reservation item (src/data/list-sequence.ts).
 */
export function nextCreatedAt(nowMs: number, lastCreatedAt: string | null | undefined): string {
  const last = lastCreatedAt ? Date.parse(lastCreatedAt) : Number.NEGATIVE_INFINITY;
  return toIsoMillis(Math.max(nowMs, Number.isFinite(last) ? last + 1 : nowMs));
}

/**
 * A `*_since` query value as the stored form (UTC ISO with milliseconds), or
 * undefined when malformed. Sub-millisecond digits round up: stored times
 * have millisecond precision, so `>= 10.0005` means `>= 10.001`.
 */
export function sinceOf(value: string): string | undefined {
  const ms = parseTimestamp(value);
  if (ms === undefined) return undefined;
  const frac = /\.(\d+)/.exec(value.replace(/^[^T]*T/, ''))?.[1] ?? '';
  const roundUp = frac.length > 3 && /[1-9]/.test(frac.slice(3)) ? 1 : 0;
  const result = ms + roundUp;
  if (!Number.isFinite(result) || result < -62167219200000 || result > 253402300799999) return undefined;
  return toIsoMillis(result);
}

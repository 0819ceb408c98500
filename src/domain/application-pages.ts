/**
 * Pure rules of the application lists (docs/pagination.md): `*_since` values.
 * Position maps are in list-map.ts; creation times follow positions by their
 * reservation (src/data/lists/sequence.ts). No I/O here.
 */
import { parseTimestamp, toIsoMillis } from './formats';

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

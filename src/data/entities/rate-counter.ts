/**
 * Rate counters (contract §18, src/data/rate-counts.ts): one item per business and one per token, in the business's
 * partition, by key only. Each holds counts per time slice and the marks of the instances that synced it lately;
 * the business's item also holds its two limits, as import wrote them (read with every sync; stored nowhere else).
 */
import type { StoredRatePolicy } from '../../domain/business';
import { isValidRatePolicy, type RatePolicy } from '../../domain/rate-window';
import { keys, type Key } from '../dynamo/keys';

/** A business's limits; undefined where its fixture sets none (the defaults apply). */
export type BusinessRateLimits = { readonly limit?: RatePolicy; readonly tokenLimit?: RatePolicy };

/** A stored `{requests, window_seconds}`, or undefined for none or one out of range. */
export function ratePolicyOf(value: unknown): RatePolicy | undefined {
  const v = value as { requests?: unknown; window_seconds?: unknown } | undefined;
  if (typeof v?.requests !== 'number' || typeof v.window_seconds !== 'number') return undefined;
  const policy = { requests: v.requests, windowSeconds: v.window_seconds };
  return isValidRatePolicy(policy) ? policy : undefined;
}

/** How a policy is stored (fixture, token item, counter item). */
export const storedRatePolicy = (p: RatePolicy): StoredRatePolicy => ({
  requests: p.requests,
  window_seconds: p.windowSeconds,
});

type Stored = Readonly<Record<string, unknown>> | undefined;
/** The numbers an item holds under the names `pattern` matches, by the name's first group. */
const numbersOf = (item: Stored, pattern: RegExp): [string, number][] =>
  Object.entries(item ?? {}).flatMap(([name, value]) => {
    const named = pattern.exec(name)?.[1];
    return named !== undefined && typeof value === 'number' ? [[named, value] as [string, number]] : [];
  });
const SLICE_ATTRIBUTE = /^s(\d+)$/;
const MARK_ATTRIBUTE = /^(i[\w-]{8})$/; // an instance name is 8 characters (src/data/rate-counts.ts)
/** The business's limits on its counter item, named as in the fixture. */
const LIMIT_ATTRIBUTES = { limit: 'rate_limit', tokenLimit: 'token_rate_limit' } as const;

export const rateCounter = {
  entity: 'rate counter',
  businessKey: (businessId: string): Key => keys.businessRate(businessId),
  tokenKey: (businessId: string, tokenHash: string): Key => keys.tokenRate(businessId, tokenHash),
  // Read and written by key only: no access pattern.
  patterns: {},
  limitAttributes: LIMIT_ATTRIBUTES,
  /** The TTL of a token's counter item. */
  expiresAttribute: 'expires_at',
  /** The attribute of the count of the slice starting at `start` (epoch ms). */
  sliceAttribute: (start: number): string => `s${start}`,
  /** An instance's mark: the tag of its last sync applied (src/domain/rate-window.ts Sync). */
  markAttribute: (instance: string): string => `i${instance}`,
  /** The marks an item holds: attribute -> tag. */
  marksOf: (item: Stored): Map<string, number> => new Map(numbersOf(item, MARK_ATTRIBUTE)),
  /** The counts per slice start an item holds. */
  slicesOf: (item: Stored): Map<number, number> =>
    new Map(numbersOf(item, SLICE_ATTRIBUTE).map(([start, n]) => [Number(start), n])),
  /** The business's limits its counter item holds. */
  limitsOf: (item: Stored): BusinessRateLimits => ({
    limit: ratePolicyOf(item?.[LIMIT_ATTRIBUTES.limit]),
    tokenLimit: ratePolicyOf(item?.[LIMIT_ATTRIBUTES.tokenLimit]),
  }),
} as const;

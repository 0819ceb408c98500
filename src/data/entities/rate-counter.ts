/**
 * Rate counters (contract §18, src/data/rate-counts.ts): one item per business
 * (its limits as import wrote them, and its request counts per time slice) and
 * one per token (its counts), in one partition per business; read and written
 * by key only, each with one UpdateItem per instance and second at most. How a
 * limit is stored (`{requests, window_seconds}`) is shared by these items, the
 * token items and the business config.
 */
import type { StoredRatePolicy } from '../../domain/business';
import { isValidRatePolicy, type RatePolicy } from '../../domain/rate-window';
import { keys, type Key } from '../keys';

/**
 * Attribute names of the counts (`s<slice start, epoch ms>`), of the instances
 * that sync the item (`i<instance id>`: its last sync, epoch ms) and of the
 * business's limits.
 */
export const RATE_ATTRIBUTES = {
  slicePrefix: 's',
  instancePrefix: 'i',
  limit: 'rate_limit',
  tokenLimit: 'token_rate_limit',
  expiresAt: 'expires_at',
} as const;

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

const SLICE_ATTRIBUTE = new RegExp(`^${RATE_ATTRIBUTES.slicePrefix}(\\d+)$`);
const INSTANCE_ATTRIBUTE = new RegExp(`^${RATE_ATTRIBUTES.instancePrefix}[0-9a-f]+$`);

export const rateCounter = {
  entity: 'rate counter',
  businessKey: (businessId: string): Key => keys.businessRate(businessId),
  tokenKey: (businessId: string, tokenHash: string): Key => keys.tokenRate(businessId, tokenHash),
  // Read and written by key only: no access pattern.
  patterns: {},
  /** The attribute of the count of the slice starting at `start` (epoch ms). */
  sliceAttribute: (start: number): string => `${RATE_ATTRIBUTES.slicePrefix}${start}`,
  /** The counts per slice start an item holds. */
  slicesOf: (item: Readonly<Record<string, unknown>> | undefined): Map<number, number> => {
    const slices = new Map<number, number>();
    for (const [name, value] of Object.entries(item ?? {})) {
      const start = SLICE_ATTRIBUTE.exec(name)?.[1];
      if (start !== undefined && typeof value === 'number') slices.set(Number(start), value);
    }
    return slices;
  },
  /** The instances' attributes an item holds, with their last sync (epoch ms). */
  instancesOf: (item: Readonly<Record<string, unknown>> | undefined): Map<string, number> => {
    const instances = new Map<string, number>();
    for (const [name, value] of Object.entries(item ?? {}))
      if (INSTANCE_ATTRIBUTE.test(name) && typeof value === 'number') instances.set(name, value);
    return instances;
  },
  /** The business's limits as import stored them on its counter item (undefined = the default applies). */
  limitsOf: (
    item: Readonly<Record<string, unknown>> | undefined,
  ): { limit: RatePolicy | undefined; tokenLimit: RatePolicy | undefined } => ({
    limit: ratePolicyOf(item?.[RATE_ATTRIBUTES.limit]),
    tokenLimit: ratePolicyOf(item?.[RATE_ATTRIBUTES.tokenLimit]),
  }),
} as const;

/**
 * Rate counters (contract §18, src/data/rate-counts.ts): one item per business
 * (its limits as import wrote them, and its request counts per time slice) and
 * one per token (its counts), in one partition per business; read and written
 * by key only, each with one UpdateItem per instance and second at most.
 */
import { keys, type Key } from '../keys';

/** Attribute names of the counts (`s<slice start, epoch ms>`) and of the business's limits. */
export const RATE_ATTRIBUTES = {
  slicePrefix: 's',
  limit: 'rate_limit',
  tokenLimit: 'token_rate_limit',
  expiresAt: 'expires_at',
} as const;

export const rateCounter = {
  entity: 'rate counter',
  businessKey: (businessId: string): Key => keys.businessRate(businessId),
  tokenKey: (businessId: string, tokenHash: string): Key => keys.tokenRate(businessId, tokenHash),
  // Read and written by key only: no access pattern.
  patterns: {},
} as const;

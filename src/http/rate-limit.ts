import type { RateDecision } from '../data/rate-counts';
import { rateLimited, type HttpError } from '../domain/errors';
import { resetSeconds, retryAfterSeconds } from '../domain/rate-window';
import { recordRateLimited } from './metrics';

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers) of a request's standing against its token's and
 * its business's limit (contract §18): `q` requests per `w` seconds; `r` left, `t` seconds until capacity frees.
 */
export function rateLimitHeaders({ token, business }: RateDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"token";q=${token.policy.requests};w=${token.policy.windowSeconds}, "business";q=${business.policy.requests};w=${business.policy.windowSeconds}`,
    RateLimit: `"token";r=${token.remaining};t=${resetSeconds(token)}, "business";r=${business.remaining};t=${resetSeconds(business)}`,
  };
}

/** The 429 of a refused request (counted per business for the dashboard's top talkers): names the exhausted limit (the token's first), Retry-After when both admit again. */
export function rateRefusal(decision: RateDecision): HttpError {
  recordRateLimited(decision.businessId);
  const exhausted = [decision.token, decision.business].filter((s) => s.remaining === 0);
  const named = exhausted[0] ?? decision.token;
  const limit = named === decision.token ? 'token' : 'business';
  const retryAfter = Math.max(1, ...exhausted.map(retryAfterSeconds));
  const { requests, windowSeconds } = named.policy;
  return rateLimited({ limit, requests, windowSeconds, retryAfter }, rateLimitHeaders(decision));
}

import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authCacheSeconds } from '../data/config';
import { hashToken, lookupToken, type TokenGrant } from '../data/token-store';
import { insufficientScope, unauthorized } from '../domain/errors';
import type { Scope } from '../domain/scopes';
import { logger } from './logger';

export interface AuthContext {
  readonly businessId: string;
}

/**
 * Token lookups kept per Lambda instance for AUTH_CACHE_SECONDS (contract
 * §15), so a warm single-record read is one DynamoDB call. Only tokens that
 * exist are kept: a token created a moment ago works at once, and a guessed one
 * costs the guesser a lookup every time. A revoked token keeps working here for
 * at most the cache time; an expired one never does (expiry is checked on every
 * request against the kept grant). Keyed by the token's hash, like the table.
 * Chosen over an API Gateway Lambda authorizer with result caching: a cache
 * miss costs no extra function invocation, a 403 keeps our error body and
 * language, and the local server runs exactly this code.
 */
const cache = new Map<string, { grant: TokenGrant; fetchedAt: number }>();
/** Bounds memory: a warm instance serving many integrations re-reads the least recently stored. */
const MAX_CACHED_TOKENS = 1000;

/** Forgets every kept lookup (tests that switch the cache on and off within one process). */
export const clearTokenCache = (): void => cache.clear();

async function grantOf(token: string): Promise<TokenGrant | undefined> {
  const seconds = authCacheSeconds();
  if (seconds === 0) return lookupToken(token);
  const key = hashToken(token);
  const now = Date.now();
  const kept = cache.get(key);
  // Measured against the current setting, so a shorter window applies to what is already kept.
  if (kept && now - kept.fetchedAt < seconds * 1000) return kept.grant;
  cache.delete(key);
  const grant = await lookupToken(token);
  if (grant) {
    if (cache.size >= MAX_CACHED_TOKENS) cache.delete(cache.keys().next().value as string);
    cache.set(key, { grant, fetchedAt: now });
  }
  return grant;
}

/**
 * Bearer token -> business, and the route's scope (contract §1, §15): 401 for
 * no, a malformed, unknown, revoked or expired token; 403 when the token lacks
 * `scope`. Runs before anything reads the body. One GetItem by the token's
 * hash, none while the lookup is cached.
 */
export const authMiddleware = (scope: Scope): MiddlewareObj => ({
  before: async (request) => {
    const event = request.event as APIGatewayProxyEventV2;
    const header = event.headers?.authorization;
    if (!header) throw unauthorized('missing_authorization');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m?.[1]) throw unauthorized('malformed_authorization');
    const grant = await grantOf(m[1]);
    if (!grant) throw unauthorized('unknown_token');
    if (grant.expiresAt !== undefined && grant.expiresAt <= Date.now()) throw unauthorized('expired_token');
    logger.appendKeys({ business_id: grant.businessId });
    if (!grant.scopes.includes(scope)) throw insufficientScope(scope);
    (request.context as { auth?: AuthContext }).auth = { businessId: grant.businessId };
  },
});

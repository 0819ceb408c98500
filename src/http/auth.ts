import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { keepAtMost } from '../domain/bounded-map';
import { authCacheSeconds } from '../data/config';
import {
  claimedBusinessOf,
  grantOfItem,
  hashToken,
  HASH_PREFIX_LENGTH,
  lookupToken,
  tokenKeyOf,
  type TokenGrant,
} from '../data/token-store';
import { getItem, type Item, type ReadAlong } from '../data/dynamo/table-io';
import { setWriteOrigin } from '../data/write-origin';
import { insufficientScope, unauthorized } from '../domain/errors';
import type { Scope } from '../domain/scopes';
import type { FieldGrants, TokenView } from '../domain/token-view';
import { logger } from './logger';
import { requestIdOf } from './middleware';
import { admit as countRequest, knownRefusal, standingForAnswer } from '../data/rate-counts';
import { rateLimitHeaders, rateRefusal } from './rate-limit';
import { errorResponse, setAnswerHeaders } from './middleware';
import { languageOf } from './i18n/language';
import { recordRequest } from './metrics';

export interface AuthContext {
  /** The verified token's business. */
  readonly businessId: string;
  /** The scopes the token grants, for routes whose body decides what else they need (POST /exports, contract §20). */
  readonly scopes?: readonly Scope[];
  /** The token's field grants (contract §25), read with its item; undefined = every field. */
  readonly grants?: FieldGrants;
  /**
   * The token's hash (writes): what a webhook subscription, export or import keeps of the token that created it,
   * to act later with that token's rights as they are then (contract §25).
   */
  readonly tokenHash?: string;
  /**
   * Set while the token of a read is being looked up beside the read (see `authMiddleware`): fulfils once the
   * token is admitted (with the scopes and field grants it has), rejects with its 401/403/429. Nothing read may
   * be answered before it has settled.
   */
  readonly verified?: Promise<TokenView>;
  /**
   * Set instead of a lookup of its own on a read whose handler reads the token with the page's BatchGetItem
   * (the route table's `tokenAlong`: list pages): the token's item, for the service to read along.
   */
  readonly along?: ReadAlong;
  /** Reads the token on its own unless the handler's reads took it along (called once the handler has answered). */
  readonly readTokenUnlessTaken?: () => void;
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

/** The kept lookup of a token (by hash), if the cache is on and it is recent enough. */
function keptGrant(hash: string): TokenGrant | undefined {
  const seconds = authCacheSeconds();
  if (seconds === 0) return undefined;
  const kept = cache.get(hash);
  // Measured against the current setting, so a shorter window applies to what is already kept.
  if (kept && Date.now() - kept.fetchedAt < seconds * 1000) return kept.grant;
  cache.delete(hash);
  return undefined;
}

function keep(hash: string, grant: TokenGrant | undefined): void {
  if (!grant || authCacheSeconds() === 0) return;
  keepAtMost(cache, MAX_CACHED_TOKENS, hash, { grant, fetchedAt: Date.now() });
}

/**
 * What a bearer token grants: the instance's kept lookup, else one GetItem by
 * the token's hash (src/data/token-store.ts). Undefined for an unknown or
 * revoked token; expiry and scope are the caller's to check (`admit`).
 */
export async function grantOfToken(token: string): Promise<TokenGrant | undefined> {
  const hash = hashToken(token);
  const kept = keptGrant(hash);
  if (kept) return kept;
  const grant = await lookupToken(token);
  keep(hash, grant);
  return grant;
}

const viewOfGrant = (grant: TokenGrant): TokenView => ({
  scopes: grant.scopes,
  ...(grant.fields ? { grants: grant.fields } : {}),
});

/**
 * What the request's token may see (contract §25): its scopes and field grants, once the token is admitted
 * (a read's lookup beside it settled). Public routes: nothing granted.
 */
export function tokenViewOf(auth: AuthContext): Promise<TokenView> {
  // The lookup's own promise (never a new one that could reject unobserved when a handler fails first).
  if (auth.verified) return auth.verified;
  return Promise.resolve({ scopes: auth.scopes ?? [], ...(auth.grants ? { grants: auth.grants } : {}) });
}

/** Which token a request was counted (or refused) for: its answer carries the RateLimit fields. */
const RATED = Symbol('rated token');
type Rated = { [RATED]?: string };

/**
 * 401 for no or an expired grant, 429 over the token's or its business's rate
 * limit (contract §18: a valid token's request counts, whatever it answers but
 * 429), 403 without `scope`; the business labels the logs from here on, and the
 * request's writes are the token's (contract §20: the change feed names the token and the request id answered).
 */
function admit(
  grant: TokenGrant | undefined,
  scopes: readonly Scope[],
  who: { hash: string; requestId: string },
  request: { internal: object },
): asserts grant is TokenGrant {
  if (!grant) throw unauthorized('unknown_token');
  if (grant.expiresAt !== undefined && grant.expiresAt <= Date.now()) throw unauthorized('expired_token');
  logger.appendKeys({ business_id: grant.businessId });
  (request.internal as Rated)[RATED] = who.hash;
  const decision = countRequest(who.hash, grant.businessId, grant.rateLimit);
  if (!decision.admitted) throw rateRefusal(decision);
  if (!scopes.some((scope) => grant.scopes.includes(scope))) throw insufficientScope(scopes.join(' '));
  setWriteOrigin({
    actor: { type: 'token', token_id: who.hash.slice(0, HASH_PREFIX_LENGTH), token_name: grant.name },
    request_id: who.requestId,
  });
}

/** The RateLimit fields on the answer of a request its token was counted or refused for (none after a 401). */
async function rateFields(request: { internal: object }): Promise<void> {
  const hash = (request.internal as Rated)[RATED];
  const standing = hash === undefined ? undefined : await standingForAnswer(hash);
  if (standing) setAnswerHeaders(request, rateLimitHeaders(standing));
}

/**
 * A cold token of a list page, read with the page's own BatchGetItem (`along`): the request makes one call fewer.
 * That read may be eventually consistent (application pages), so an item it does not find (a token created a
 * moment ago) is looked up again consistently; a token revoked within about a second may still pass, as a kept
 * lookup does for AUTH_CACHE_SECONDS. If the handler never read it along (it failed first), it is read on its own.
 */
function tokenReadAlong(
  token: string,
  claimed: string,
): {
  along: ReadAlong;
  grant: Promise<TokenGrant | undefined>;
  readUnlessTaken: () => void;
} {
  let taken = false;
  let settle!: (item: Promise<Item | undefined> | Item | undefined) => void;
  const item = new Promise<Item | undefined>((resolve) => (settle = resolve));
  const take = (found: Promise<Item | undefined> | Item | undefined): void => {
    if (taken) return;
    taken = true;
    settle(found);
  };
  const key = tokenKeyOf(token);
  return {
    along: { key, took: take },
    grant: item.then(async (found) => grantOfItem(found, claimed) ?? (await lookupToken(token))),
    readUnlessTaken: () => {
      if (!taken) take(getItem(key));
    },
  };
}

/**
 * Bearer token -> business, and the route's scope (contract §1, §15, §18): 401
 * for no, a malformed, unknown, revoked or expired token; 429 over its rate
 * limit; 403 when the token has none of `scopes` (a route's scope, or any of
 * its alternatives: src/http/routes.ts scopesOf). Decided before anything reads the
 * body or the business's data.
 */
export const authMiddleware = (scopes: readonly Scope[], readOnly: boolean, tokenAlong = false): MiddlewareObj => ({
  before: async (request) => {
    const event = request.event as APIGatewayProxyEventV2;
    const header = event.headers?.authorization;
    if (!header) throw unauthorized('missing_authorization');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m?.[1]) throw unauthorized('malformed_authorization');
    const token = m[1];
    const hash = hashToken(token);
    const who = { hash, requestId: requestIdOf(event) };
    // A token this instance refused (or counted full) in its current window: refused again without any call.
    const known = knownRefusal(hash);
    if (known) {
      (request.internal as Rated)[RATED] = hash;
      throw rateRefusal(known);
    }
    const claimed = claimedBusinessOf(token);
    if (readOnly && claimed !== undefined && !keptGrant(hash)) {
      // A read has no effect to undo: its token's GetItem goes out beside the read of the business the token
      // names, so a cold token costs a call but no round trip, or rides with a list page's BatchGetItem and costs
      // neither. The handler answers nothing of what it read (its errors included) before `verified` settles; a
      // token of another business is an unknown token.
      const riding = tokenAlong ? tokenReadAlong(token, claimed) : undefined;
      const looked = riding ? riding.grant.then((grant) => (keep(hash, grant), grant)) : grantOfToken(token);
      const verified = looked.then((grant): TokenView => {
        admit(grant, scopes, who, request);
        return viewOfGrant(grant);
      });
      verified.catch(() => undefined); // settled by the handler; never an unhandled rejection meanwhile
      (request.context as { auth?: AuthContext }).auth = {
        businessId: claimed,
        verified,
        ...(riding ? { along: riding.along, readTokenUnlessTaken: riding.readUnlessTaken } : {}),
      };
      return;
    }
    const grant = await grantOfToken(token);
    admit(grant, scopes, who, request);
    (request.context as { auth?: AuthContext }).auth = {
      businessId: grant.businessId,
      scopes: grant.scopes,
      ...(grant.fields ? { grants: grant.fields } : {}),
      tokenHash: hash,
    };
  },
  after: async (request) => rateFields(request),
  onError: async (request) => rateFields(request),
});

/**
 * The 429 of a token this instance counts full, answered before anything else runs: no middy pipeline, no request
 * scope, no logger keys, no DynamoDB call. The answer the pipeline gives (authMiddleware's refusal with its
 * RateLimit fields, responseMiddleware's error answer), for a fraction of its CPU: a flood of refusals costs the
 * other tenants as little as it can (contract §18 isolation; docs/benchmarks-fairness.md).
 */
export function knownRefusalAnswer(
  event: APIGatewayProxyEventV2,
  route: string,
): APIGatewayProxyStructuredResultV2 | undefined {
  const token = /^Bearer[ ]+(\S+)\s*$/i.exec(event.headers?.authorization ?? '')?.[1];
  const known = token === undefined ? undefined : knownRefusal(hashToken(token));
  if (!known) return undefined;
  const startedAt = Date.now();
  const answer = errorResponse(rateRefusal(known), requestIdOf(event), languageOf(event.headers));
  recordRequest(route, 429, startedAt);
  return answer;
}

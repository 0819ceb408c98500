import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { SCOPES, type Scope } from '../domain/scopes';
import type { StoredRatePolicy } from '../domain/business';
import { DEFAULT_TOKEN_RATE_LIMIT, type RatePolicy } from '../domain/rate-window';
import { rateCounter, storedRatePolicy } from './entities/rate-counter';
import { db } from './dynamo/client';
import { tableName } from './config';
import { business } from './entities/business';
import { IF_ABSENT, IF_PRESENT, partitionQuery } from './entities/entity';
import { token as tokenEntity, type StoredToken } from './entities/token';
import type { Key } from './dynamo/keys';
import type { FieldGrants } from '../domain/token-view';
import { getItem, queryAll, type Item } from './dynamo/table-io';
import { transactWrite } from './dynamo/transact-write';

/**
 * `hr_` + 256 random bits (43 base64url characters) + `_` + the business id in
 * base64url. The prefix makes leaked tokens easy to spot by secret scanners; the
 * secret's fixed length makes the split unambiguous. The business part tells an
 * operator whose a leaked token is without a table read; it proves nothing by
 * itself: the stored hash is of the whole token, and the stored business must
 * be the one it names, so an altered business part is an unknown token.
 */
const BUSINESS_TOKEN_PATTERN = /^hr_[A-Za-z0-9_-]{43}_([A-Za-z0-9_-]{2,136})$/;
/** A business id as the fixture schema allows it (src/schemas/fixture.ts). */
const BUSINESS_ID_PATTERN = /^[A-Za-z0-9._~-]{1,100}$/;

/**
 * The business a token names, or undefined (not a token we issue). Only the canonical encoding of a possible
 * business id counts, so one token string names exactly one business.
 */
export function claimedBusinessOf(token: string): string | undefined {
  const encoded = BUSINESS_TOKEN_PATTERN.exec(token)?.[1];
  if (encoded === undefined) return undefined;
  const businessId = Buffer.from(encoded, 'base64url').toString('utf8');
  if (!BUSINESS_ID_PATTERN.test(businessId) || Buffer.from(businessId).toString('base64url') !== encoded)
    return undefined;
  return businessId;
}

const newToken = (businessId: string): string =>
  `hr_${randomBytes(32).toString('base64url')}_${Buffer.from(businessId).toString('base64url')}`;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** How much of a token's hash `token list` shows and `token revoke` accepts: names a token, reveals nothing. */
export const HASH_PREFIX_LENGTH = 12;

/** What a token grants (contract §15). */
export interface TokenGrant {
  readonly businessId: string;
  readonly scopes: readonly Scope[];
  /** Epoch milliseconds; undefined = never expires. */
  readonly expiresAt: number | undefined;
  /** The token's name (`token create --name`), which the change feed names as who made a write. */
  readonly name: string;
  /** The token's own rate limit (`token create --rate-limit`); undefined = its business's default (contract §18). */
  readonly rateLimit: RatePolicy | undefined;
  /** Field grants (contract §25), read with the token's item; undefined = every field. */
  readonly fields?: FieldGrants;
}

export interface TokenInfo {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly hash_prefix: string;
  /** The limit the token has: its own, else its business's default for tokens (contract §18). */
  readonly rate_limit: StoredRatePolicy;
  /** Its field grants per type (contract §25), when it has any. */
  readonly fields?: FieldGrants;
}

export interface IssueOptions {
  readonly name?: string;
  /** Default: every scope. */
  readonly scopes?: readonly Scope[];
  readonly expiresInDays?: number;
  /** Default: the business's default for its tokens, as it is when a request is counted. */
  readonly rateLimit?: RatePolicy;
  /** Field grants per type (contract §25); default: every field. */
  readonly fields?: FieldGrants;
}

export class UnknownBusiness extends Error {
  constructor(readonly businessId: string) {
    super(`No business ${businessId}: import its fixture first`);
    this.name = 'UnknownBusiness';
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a token for an existing business; only its hash is stored, the token
 * is returned once. Two items in one transaction: the token by its hash (what a
 * request reads) and its listing in the business's partition (what `token list`
 * reads), both expiring with the token.
 */
export async function createToken(
  businessId: string,
  options: IssueOptions = {},
): Promise<{ token: string; scopes: Scope[]; expires_at: string | null; fields?: FieldGrants }> {
  return storeToken(newToken(businessId), businessId, options);
}

/** Stores `token` (made by createToken; tests also store forged tokens this way). */
export async function storeToken(
  token: string,
  businessId: string,
  options: IssueOptions = {},
): Promise<{ token: string; scopes: Scope[]; expires_at: string | null; fields?: FieldGrants }> {
  const hash = hashToken(token);
  const wanted = new Set(options.scopes ?? SCOPES);
  const scopes = SCOPES.filter((s) => wanted.has(s));
  const now = Date.now();
  // Whole seconds (the TTL attribute's unit), so what is stored is exactly what list and lookup report.
  const expiresAt =
    options.expiresInDays === undefined ? undefined : Math.floor((now + options.expiresInDays * DAY_MS) / 1000);
  const stored: StoredToken = {
    businessId,
    name: options.name ?? 'admin',
    scopes,
    createdAt: new Date(now).toISOString(),
    expiresAt,
    rateLimit: options.rateLimit,
    ...(options.fields ? { fields: options.fields } : {}),
  };
  await transactWrite([
    {
      item: { ConditionCheck: { Key: business.configKey(businessId), ConditionExpression: IF_PRESENT } },
      onConditionFailed: () => new UnknownBusiness(businessId),
    },
    {
      item: { Put: { Item: tokenEntity.item(hash, stored), ConditionExpression: IF_ABSENT } },
      confirms: (stored) => stored !== undefined,
    },
    { item: { Put: { Item: tokenEntity.listingItem(hash, stored) } } },
  ]);
  return {
    token,
    scopes,
    expires_at: expiresAt === undefined ? null : new Date(expiresAt * 1000).toISOString(),
    ...(options.fields ? { fields: options.fields } : {}),
  };
}

/** A token with every scope that never expires (what `import`, `npm start` and the tests hand out). */
export async function issueToken(businessId: string, name = 'admin'): Promise<string> {
  return (await createToken(businessId, { name })).token;
}

/**
 * What a token grants, or undefined for an unknown (or revoked) one. The lookup
 * is by hash, so no comparison of secret bytes happens in our code (the key
 * equality inside DynamoDB does not leak timing a caller can use). Expiry is
 * the caller's to check: an expired token is told apart from an unknown one.
 */
export async function lookupToken(token: string): Promise<TokenGrant | undefined> {
  const claimed = claimedBusinessOf(token);
  if (claimed === undefined) return undefined;
  return grantOfItem(await getItem(tokenKeyOf(token)), claimed);
}

/** The key of a token's item (by its hash). */
export const tokenKeyOf = (token: string): Key => tokenEntity.key(hashToken(token));

/**
 * What the stored token item grants; undefined for none, or when the token
 * names a business (`claimed`) other than the one it was issued for.
 */
export function grantOfItem(item: Item | undefined, claimed: string | undefined): TokenGrant | undefined {
  const stored = tokenEntity.fromItem(item);
  if (!stored) return undefined;
  if (claimed !== undefined && stored.businessId !== claimed) return undefined;
  return {
    businessId: stored.businessId,
    scopes: stored.scopes,
    expiresAt: stored.expiresAt === undefined ? undefined : stored.expiresAt * 1000,
    name: stored.name,
    rateLimit: stored.rateLimit,
    ...(stored.fields ? { fields: stored.fields } : {}),
  };
}

/** The tokens of a business (never the token itself), oldest first. */
export async function listTokens(businessId: string): Promise<TokenInfo[]> {
  const [items, counter] = await Promise.all([
    queryAll(partitionQuery(tokenEntity.patterns.ofBusiness, { businessId })),
    getItem(rateCounter.businessKey(businessId)),
  ]);
  const businessDefault = rateCounter.limitsOf(counter).tokenLimit ?? DEFAULT_TOKEN_RATE_LIMIT;
  return items
    .flatMap((item) => {
      const stored = tokenEntity.fromItem(item);
      if (!stored) return [];
      return {
        name: stored.name,
        scopes: [...stored.scopes],
        created_at: stored.createdAt,
        expires_at: stored.expiresAt === undefined ? null : new Date(stored.expiresAt * 1000).toISOString(),
        hash_prefix: tokenEntity.hashOfListing(item).slice(0, HASH_PREFIX_LENGTH),
        rate_limit: storedRatePolicy(stored.rateLimit ?? businessDefault),
        ...(stored.fields ? { fields: stored.fields } : {}),
      };
    })
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.hash_prefix.localeCompare(b.hash_prefix));
}

async function revokeHash(hash: string): Promise<boolean> {
  // The token first: once it is gone the token is refused; the listing only tells operators it exists.
  const out = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: tokenEntity.key(hash), ReturnValues: 'ALL_OLD' }),
  );
  const businessId = out.Attributes?.business_id;
  if (typeof businessId === 'string')
    await db().send(new DeleteCommand({ TableName: tableName(), Key: tokenEntity.listingKey(businessId, hash) }));
  return out.Attributes !== undefined;
}

/** Revoked = deleted: a revoked token is exactly an unknown one. Returns whether it existed. */
export async function revokeToken(token: string): Promise<boolean> {
  return revokeHash(hashToken(token));
}

/**
 * Revokes the token of a business whose hash starts with `prefix` (as `token
 * list` shows it): how an operator revokes a token nobody kept. Refuses a
 * prefix that names no token or several.
 */
export async function revokeTokenByHashPrefix(
  businessId: string,
  prefix: string,
): Promise<'revoked' | 'unknown' | 'ambiguous'> {
  const p = prefix.toLowerCase();
  if (!/^[0-9a-f]{6,64}$/.test(p)) return 'unknown';
  const matches = (await queryAll(partitionQuery(tokenEntity.patterns.ofBusiness, { businessId }, p))).map(
    tokenEntity.hashOfListing,
  );
  if (matches.length > 1) return 'ambiguous';
  const [hash] = matches;
  if (!hash) return 'unknown';
  await revokeHash(hash);
  return 'revoked';
}

/**
 * What the token with this hash grants now (the creator of a webhook subscription or an import, contract §25):
 * undefined once it is revoked; expiry is the caller's to check. One GetItem.
 */
export async function grantOfHash(hash: string): Promise<TokenGrant | undefined> {
  return grantOfItem(await getItem(tokenEntity.key(hash)), undefined);
}

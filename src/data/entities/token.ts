/**
 * API tokens (src/data/token-store.ts): the token item by the SHA-256 of the
 * token (what authentication reads), and its listing copy in the business's
 * token partition (what `token list` and revoke-by-prefix read); both hold the
 * same metadata and expire with the token (`expires_at`, the table's TTL).
 */
import { SCOPES, type Scope } from '../../domain/scopes';
import type { RatePolicy } from '../../domain/rate-window';
import { GRANT_TYPES, type FieldGrants } from '../../domain/token-view';
import { keys, type Key } from '../dynamo/keys';
import { TABLE } from '../dynamo/table-definition';
import { pattern } from './entity';
import { ratePolicyOf, storedRatePolicy } from './rate-counter';

/** A token's metadata as stored (never the token itself). */
export interface StoredToken {
  readonly businessId: string;
  readonly name: string;
  /** In the order of SCOPES. */
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  /** Epoch seconds (the TTL attribute's unit); undefined = never expires. */
  readonly expiresAt: number | undefined;
  /** The token's own limit; undefined = its business's default. */
  readonly rateLimit: RatePolicy | undefined;
  /** Field grants per type (contract §25); undefined = every field of every type. */
  readonly fields?: FieldGrants;
}

const ofBusiness = pattern<{ readonly businessId: string }>('table', 'token hash (sha256 hex)', ({ businessId }) =>
  keys.tokenListings(businessId),
);

const metadata = (t: StoredToken): Record<string, unknown> => ({
  business_id: t.businessId,
  name: t.name,
  scopes: t.scopes,
  created_at: t.createdAt,
  ...(t.expiresAt === undefined ? {} : { expires_at: t.expiresAt }),
  ...(t.rateLimit ? { rate_limit: storedRatePolicy(t.rateLimit) } : {}),
  ...(t.fields ? { fields: t.fields } : {}),
});

/** Stored field grants: per known type, its field names (read with the token, so they cost no call). */
const fieldsOf = (value: unknown): FieldGrants | undefined => {
  if (value === null || typeof value !== 'object') return undefined;
  const stored = value as Record<string, unknown>;
  const grants = Object.fromEntries(
    GRANT_TYPES.filter((t) => Array.isArray(stored[t])).map((t) => [
      t,
      (stored[t] as unknown[]).filter((f): f is string => typeof f === 'string'),
    ]),
  );
  return Object.keys(grants).length > 0 ? grants : undefined;
};

/** Stored scopes in the order of SCOPES. */
const scopesOf = (value: unknown): Scope[] => {
  if (!Array.isArray(value)) return [];
  const stored = new Set(value.filter((s): s is string => typeof s === 'string'));
  return SCOPES.filter((s) => stored.has(s));
};

export const token = {
  entity: 'token',
  key: (tokenHash: string): Key => keys.token(tokenHash),
  listingKey: (businessId: string, tokenHash: string): Key => keys.tokenListing(businessId, tokenHash),
  patterns: { ofBusiness },
  /** The token item, by its hash. */
  item: (tokenHash: string, t: StoredToken): Record<string, unknown> => ({ ...keys.token(tokenHash), ...metadata(t) }),
  /** Its listing in the business's partition. */
  listingItem: (tokenHash: string, t: StoredToken): Record<string, unknown> => ({
    ...keys.tokenListing(t.businessId, tokenHash),
    ...metadata(t),
  }),
  /** The metadata of a token or listing item; undefined for none (or an item without a business). */
  fromItem: (item: Readonly<Record<string, unknown>> | undefined): StoredToken | undefined => {
    if (typeof item?.business_id !== 'string') return undefined;
    return {
      businessId: item.business_id,
      name: String(item.name ?? ''),
      scopes: scopesOf(item.scopes),
      createdAt: String(item.created_at ?? ''),
      expiresAt: typeof item.expires_at === 'number' ? item.expires_at : undefined,
      rateLimit: ratePolicyOf(item.rate_limit),
      ...(fieldsOf(item.fields) ? { fields: fieldsOf(item.fields) } : {}),
    };
  },
  /** The token hash a listing item is sorted by. */
  hashOfListing: (item: Readonly<Record<string, unknown>>): string => String(item[TABLE.sortKey]),
} as const;

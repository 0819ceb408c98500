/**
 * API tokens (src/data/token-store.ts): the token item by the SHA-256 of the
 * token (what authentication reads), and its listing copy in the business's
 * token partition (what `token list` and revoke-by-prefix read).
 */
import { keys, type Key } from '../keys';
import { pattern } from './entity';

const ofBusiness = pattern<{ readonly businessId: string }>('table', 'token hash (sha256 hex)', ({ businessId }) =>
  keys.tokenListings(businessId),
);

export const token = {
  entity: 'token',
  key: (tokenHash: string): Key => keys.token(tokenHash),
  listingKey: (businessId: string, tokenHash: string): Key => keys.tokenListing(businessId, tokenHash),
  patterns: { ofBusiness },
} as const;

/** `hr_` + the 43-character secret + `_`: what precedes a token's business part. */
const SECRET_END = 3 + 43 + 1;

/** `token` with its business part replaced by `encoded` (a forger's edit). */
export const withBusinessPart = (token: string, encoded: string): string => token.slice(0, SECRET_END) + encoded;

/** `token` claiming `businessId` instead of its own business. */
export const claimingBusiness = (token: string, businessId: string): string =>
  withBusinessPart(token, Buffer.from(businessId).toString('base64url'));

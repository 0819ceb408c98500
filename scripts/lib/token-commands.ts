/**
 * `npm run admin -- token ...` (contract §15): create tokens with scopes and
 * an expiry, list a business's tokens, revoke one by the hash prefix the list
 * shows. Parsing is pure (checked before the tool connects anywhere).
 */
import { say, type AdminIo } from './admin-io';
import { parseCommandArgs } from './parse-command';
import { SCOPES, isScope, type Scope } from '../../src/domain/scopes';
import { isValidRatePolicy, RATE_LIMIT_BOUNDS, type RatePolicy } from '../../src/domain/rate-window';
import {
  UnknownBusiness,
  createToken,
  listTokens,
  revokeTokenByHashPrefix,
  HASH_PREFIX_LENGTH,
} from '../../src/data/token-store';

export const MAX_TOKEN_NAME_LENGTH = 64;

/** `N/W` as `--rate-limit` takes it, or one line saying what is wrong. */
export function parseRatePolicy(text: string): RatePolicy | string {
  const m = /^(\d{1,7})\/(\d{1,5})$/.exec(text.trim());
  const { requests: n, windowSeconds: w } = RATE_LIMIT_BOUNDS;
  const expected = `N/W: N requests (${n.min}..${n.max}) per W seconds (${w.min}..${w.max}), e.g. 600/60`;
  if (!m) return `expected ${expected}, got ${JSON.stringify(text)}`;
  const policy = { requests: Number(m[1]), windowSeconds: Number(m[2]) };
  return isValidRatePolicy(policy) ? policy : `out of range: expected ${expected}, got ${text}`;
}

export const TOKEN_USAGE = [
  '       npm run admin -- token create BUSINESS_ID [--scopes S1,S2] [--expires-in-days N] [--name NAME] [--rate-limit N/W]',
  '       npm run admin -- token list BUSINESS_ID',
  '       npm run admin -- token revoke BUSINESS_ID HASH_PREFIX',
  `scopes: ${SCOPES.join(', ')} (default: all)`,
].join('\n');

/** Longest expiry accepted: beyond ten years "never" (no --expires-in-days) says it better. */
const MAX_EXPIRY_DAYS = 3650;

export type TokenCommand =
  | {
      readonly kind: 'create';
      readonly businessId: string;
      readonly scopes?: Scope[];
      readonly expiresInDays?: number;
      readonly name?: string;
      readonly rateLimit?: RatePolicy;
    }
  | { readonly kind: 'list'; readonly businessId: string }
  | { readonly kind: 'revoke'; readonly businessId: string; readonly hashPrefix: string };

/** The command, or one line saying what is wrong with the arguments. */
export function parseTokenCommand(argv: readonly string[]): TokenCommand | string {
  const parsed = parseCommandArgs(argv, {
    scopes: { type: 'string' },
    'expires-in-days': { type: 'string' },
    name: { type: 'string' },
    'rate-limit': { type: 'string' },
  });
  if (typeof parsed === 'string') return parsed;
  const { values, positionals } = parsed;
  const [sub, businessId, extra] = positionals;
  if (!businessId) return 'token: BUSINESS_ID is required';
  const hasOptions = Object.keys(values).length > 0;
  if (sub === 'list') {
    if (extra !== undefined || hasOptions) return 'token list takes only BUSINESS_ID';
    return { kind: 'list', businessId };
  }
  if (sub === 'revoke') {
    if (!extra || positionals.length > 3 || hasOptions) return 'token revoke takes BUSINESS_ID HASH_PREFIX';
    if (!/^[0-9a-f]{6,64}$/i.test(extra))
      return `token revoke: HASH_PREFIX is the hex hash prefix \`token list\` shows (${HASH_PREFIX_LENGTH} characters), not the token`;
    return { kind: 'revoke', businessId, hashPrefix: extra };
  }
  if (sub !== 'create') return `token: unknown subcommand ${sub ?? '(none)'}`;
  if (extra !== undefined) return `token create: unexpected argument ${extra}`;
  let scopes: Scope[] | undefined;
  if (values.scopes !== undefined) {
    const names = values.scopes.split(',').map((s) => s.trim());
    const unknown = names.filter((s) => !isScope(s));
    if (unknown.length > 0 || names.length === 0)
      return `token create: unknown scope ${unknown.join(', ') || '(empty)'}; scopes are ${SCOPES.join(', ')}`;
    scopes = names.filter(isScope);
  }
  let expiresInDays: number | undefined;
  if (values['expires-in-days'] !== undefined) {
    const raw = values['expires-in-days'];
    expiresInDays = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(expiresInDays >= 1 && expiresInDays <= MAX_EXPIRY_DAYS))
      return `token create: --expires-in-days must be a whole number from 1 to ${MAX_EXPIRY_DAYS}, got ${raw}`;
  }
  if (values.name !== undefined && values.name.trim() === '') return 'token create: --name must not be empty';
  // Every change-feed entry of the token's writes carries its name (contract §20): bounded, so entries stay small.
  if (values.name !== undefined && [...values.name].length > MAX_TOKEN_NAME_LENGTH)
    return `token create: --name must be at most ${MAX_TOKEN_NAME_LENGTH} characters`;
  let rateLimit: RatePolicy | undefined;
  if (values['rate-limit'] !== undefined) {
    const parsed = parseRatePolicy(values['rate-limit']);
    if (typeof parsed === 'string') return `token create: --rate-limit ${parsed}`;
    rateLimit = parsed;
  }
  return { kind: 'create', businessId, scopes, expiresInDays, name: values.name, rateLimit };
}

/** Runs a parsed command; stdout carries the result (last line JSON), stderr the human-readable notes. */
export async function tokenCommand(command: TokenCommand, io: AdminIo): Promise<number> {
  switch (command.kind) {
    case 'create': {
      try {
        const created = await createToken(command.businessId, {
          name: command.name ?? 'admin',
          scopes: command.scopes,
          expiresInDays: command.expiresInDays,
          rateLimit: command.rateLimit,
        });
        say(io.err, `Token for ${command.businessId} created; it is shown only this once`);
        say(io.out, JSON.stringify(created));
        return 0;
      } catch (error) {
        if (error instanceof UnknownBusiness) {
          say(io.err, error.message);
          return 1;
        }
        throw error;
      }
    }
    case 'list': {
      const tokens = await listTokens(command.businessId);
      say(io.err, `${tokens.length} token(s) of ${command.businessId}`);
      for (const token of tokens) say(io.out, JSON.stringify(token));
      return 0;
    }
    case 'revoke': {
      const outcome = await revokeTokenByHashPrefix(command.businessId, command.hashPrefix);
      say(
        io.err,
        outcome === 'revoked'
          ? 'Token revoked'
          : outcome === 'ambiguous'
            ? 'Several tokens start with this hash prefix; give more characters (nothing revoked)'
            : `No token of ${command.businessId} starts with this hash prefix (nothing to revoke)`,
      );
      say(io.out, JSON.stringify({ revoked: outcome === 'revoked' }));
      return outcome === 'revoked' ? 0 : 1;
    }
  }
}

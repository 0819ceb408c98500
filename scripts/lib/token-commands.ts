/**
 * `npm run admin -- token ...` (contract §15): create tokens with scopes and
 * an expiry, list a business's tokens, revoke one by the hash prefix the list
 * shows. Parsing is pure (checked before the tool connects anywhere).
 */
import { say, type AdminIo } from './admin-io';
import { parseCommandArgs } from './parse-command';
import { SCOPES, isScope, type Scope } from '../../src/domain/scopes';
import { isValidRatePolicy, RATE_LIMIT_BOUNDS, type RatePolicy } from '../../src/domain/rate-window';
import { GRANT_TYPES, isGrantType, type FieldGrants, type GrantType } from '../../src/domain/token-view';
import { isTypeField, TYPE_FIELDS } from '../../src/services/token-view';
import { readBusinessConfig } from '../../src/data/business-store';
import type { BusinessConfig } from '../../src/domain/business';
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
  '         [--fields TYPE=F1,F2 ...]   only these fields of TYPE (employees, employee_jobs, applications), cf_N included',
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
      readonly fields?: FieldGrants;
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
    fields: { type: 'string', multiple: true },
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
  let fields: FieldGrants | undefined;
  if (values.fields !== undefined) {
    const parsed = parseFieldGrants(values.fields);
    if (typeof parsed === 'string') return `token create: --fields ${parsed}`;
    fields = parsed;
  }
  return { kind: 'create', businessId, scopes, expiresInDays, name: values.name, rateLimit, fields };
}

/**
 * `--fields TYPE=F1,F2` (repeatable, one per type): the grants, or what is wrong. Fixed field names are checked
 * here; `cf_N` names against the business's field definitions before anything is written (unknownCustomField).
 */
export function parseFieldGrants(specs: readonly string[]): FieldGrants | string {
  const grants: Partial<Record<GrantType, string[]>> = {};
  for (const spec of specs) {
    const at = spec.indexOf('=');
    const type = at < 0 ? spec : spec.slice(0, at);
    if (!isGrantType(type)) return `unknown type ${type || '(empty)'} in ${spec}; types are ${GRANT_TYPES.join(', ')}`;
    if (grants[type]) return `names ${type} twice`;
    const names =
      at < 0
        ? []
        : spec
            .slice(at + 1)
            .split(',')
            .map((f) => f.trim())
            .filter((f) => f !== '');
    if (names.length === 0) return `${type} names no field (TYPE=F1,F2)`;
    const unknown = names.filter((f) => !TYPE_FIELDS[type].includes(f) && !/^cf_\d+$/.test(f));
    if (unknown.length > 0) return `unknown field ${unknown.join(', ')} of ${type}`;
    grants[type] = [...new Set(names)].sort();
  }
  return grants;
}

const CUSTOM_FIELDS_OF: Readonly<Record<GrantType, keyof BusinessConfig>> = {
  employees: 'employee_fields',
  employee_jobs: 'employee_job_fields',
  applications: 'application_fields',
};

/** The first `cf_N` of the grants that names no field definition of its type in the business, as one line. */
export function unknownCustomField(grants: FieldGrants, config: BusinessConfig): string | undefined {
  for (const type of GRANT_TYPES) {
    const ids = (config[CUSTOM_FIELDS_OF[type]] as { id: string }[]).map((d) => d.id);
    const unknown = (grants[type] ?? []).filter((f) => !isTypeField(type, f, ids));
    if (unknown.length > 0) return `token create: --fields unknown field ${unknown.join(', ')} of ${type}`;
  }
  return undefined;
}

/** Runs a parsed command; stdout carries the result (last line JSON), stderr the human-readable notes. */
export async function tokenCommand(command: TokenCommand, io: AdminIo): Promise<number> {
  switch (command.kind) {
    case 'create': {
      try {
        if (command.fields) {
          const config = await readBusinessConfig(command.businessId).catch((error: Error) => {
            throw error.message.startsWith('business config missing') ? new UnknownBusiness(command.businessId) : error;
          });
          const unknown = unknownCustomField(command.fields, config);
          if (unknown) {
            say(io.err, unknown);
            return 2;
          }
        }
        const created = await createToken(command.businessId, {
          name: command.name ?? 'admin',
          scopes: command.scopes,
          expiresInDays: command.expiresInDays,
          rateLimit: command.rateLimit,
          ...(command.fields ? { fields: command.fields } : {}),
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

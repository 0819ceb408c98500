import { COUNTRY_CODES } from '../domain/formats';

/** The page parameters of every list (contract §7); list queries with filters spread these properties. */
export const PageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: {
      type: 'integer',
      minimum: 1,
      maximum: 2147483647,
      description: 'Page number, default 1; plain decimal digits (contract §7)',
    },
    per_page: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Entries per page, default 30; plain decimal digits (contract §7)',
    },
  },
} as const;

export const ErrorBody = {
  type: 'object',
  additionalProperties: false,
  required: ['error', 'message', 'request_id'],
  properties: {
    error: { type: 'string', description: 'Machine-readable code, e.g. not_found' },
    message: { type: 'string' },
    request_id: { type: 'string' },
  },
} as const;

export const FieldErrors = {
  type: 'object',
  description:
    'Field name -> messages (Rails wording), every failing field at once (at most 100 fields, the fields of the resource before unknown keys; names longer than 100 characters are cut and end in …)',
  maxProperties: 100,
  additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
} as const;

export const date = { type: 'string', format: 'date' } as const;
export const nullableDate = { type: ['string', 'null'], format: 'date' } as const;
export const datetime = { type: 'string', format: 'date-time' } as const;
/** The key of a custom field value: `cf_{id}` of a definition of the business. */
export const CUSTOM_FIELD_KEY = '^cf_[0-9]+$';

/**
 * The keys an object may have: its named fields, or `cf_{id}` keys whose values
 * depend on the business's definitions. Stated with `propertyNames` rather than
 * `patternProperties` + `additionalProperties: false`: validators enforce both
 * the same, but generated clients (openapi-typescript) turn `patternProperties`
 * into a `[key: string]` index signature that accepts any misspelled field, while
 * `propertyNames` leaves the named fields a strict type (see the document's
 * "Custom fields" section).
 */
export const namedOrCustomKeys = (named: readonly string[]) =>
  ({ anyOf: [{ enum: [...named] }, { pattern: CUSTOM_FIELD_KEY }] }) as const;

/**
 * The `cf_{id}` values a record shows (text, date, time, number, checkbox, the ids of a multiple select, or null),
 * as `patternProperties` beside `propertyNames`: response types of generated clients read them, while request
 * bodies keep `propertyNames` alone, so a misspelled field there still fails to compile.
 */
export const customFieldValues = {
  [CUSTOM_FIELD_KEY]: {
    type: ['string', 'number', 'boolean', 'array', 'null'],
    items: { type: 'string' },
    description: 'A custom field value (`/employee_fields`, `/employee_job_fields`, `/application_fields` define them)',
  },
} as const;

/** The locales a business can have; `{name}_{locale}` fields exist for the business's locales only. */
export const LOCALES = ['de', 'it', 'en'] as const;

/** `{name}_{locale}` fields, one named (optional) property per possible locale, so typed clients stay strict. */
export const localeProperties = (...prefixes: string[]): Record<string, object> =>
  Object.fromEntries(
    prefixes.flatMap((p) =>
      LOCALES.map((l) => [
        `${p}_${l}`,
        { type: ['string', 'null'], description: `${p} in ${l}, if the business has this locale` },
      ]),
    ),
  );

/**
 * A mandatory text: null, '' and whitespace-only are "can't be blank" (`x-not-blank`,
 * the server's check). `pattern: '\S'` (ECMA-262: at least one character that
 * String.prototype.trim would keep) says the same to a generic validator.
 */
export const notBlank = { 'x-not-blank': true, pattern: '\\S' } as const;

export const pageEnvelope = (entry: object): object => ({
  type: 'object',
  additionalProperties: false,
  required: ['entries', 'current_page', 'per_page', 'total_entries'],
  properties: {
    entries: { type: 'array', items: entry },
    current_page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
    total_entries: { type: 'integer', minimum: 0 },
  },
});

/** One of the assigned country codes; `anyCase` also in lower case (a BIC's country, compared upper-cased). */
const countryAlternatives = (anyCase: boolean): string =>
  `(${COUNTRY_CODES.map((code) => (anyCase ? code.replace(/[A-Z]/g, (c) => `[${c}${c.toLowerCase()}]`) : code)).join('|')})`;
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';

/**
 * What a generic validator (or a generator of examples) can know of our own formats: a `pattern` (ECMA-262) beside
 * the `format` the server checks, admitting only values the server accepts. The server checks both, so a pattern
 * is also the rule: URLs with a DNS name (its last label starting with a letter) or a dotted-quad IPv4 host (a
 * WHATWG URL parser accepts more spellings, which this API does not), assigned country codes, a BIC's country.
 * What no pattern can say, the description says: the IBAN's country and mod-97 checksum.
 */
export const FORMAT_PATTERNS = {
  'http-url':
    `^[Hh][Tt][Tt][Pp][Ss]?://([^\\s/?#@\\\\]*@)?(([A-Za-z0-9_-]+\\.)*[A-Za-z][A-Za-z0-9_-]*\\.?|${OCTET}(\\.${OCTET}){3})` +
    `(:${PORT})?([/?#][\\s\\S]*)?$`,
  'country-code': `^${countryAlternatives(false)}$`,
  iban: '^\\s*[A-Za-z]\\s*[A-Za-z]\\s*[0-9]\\s*[0-9](\\s*[A-Za-z0-9]){10,30}\\s*$',
  bic: `^[A-Za-z]{4}${countryAlternatives(true)}[A-Za-z0-9]{2}([A-Za-z0-9]{3})?$`,
} as const;

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
/** A `cf_{id}` key: what its value may be depends on the business's definition. */
export const customFieldKeys = { '^cf_[0-9]+$': {} } as const;
/** `{name}_{locale}` keys for the business's locales. */
export const localeKeys = (...prefixes: string[]): Record<string, object> =>
  Object.fromEntries(prefixes.map((p) => [`^${p}_(de|it|en)$`, { type: ['string', 'null'] }]));

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

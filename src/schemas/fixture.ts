import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LOCALES, type Locale } from '../domain/business';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../domain/retention';
import { RATE_LIMIT_BOUNDS } from '../domain/rate-window';

/** N requests per W seconds (contract §18), in the ranges `token create --rate-limit` takes. */
const ratePolicy = {
  type: 'object',
  additionalProperties: false,
  required: ['requests', 'window_seconds'],
  properties: {
    requests: { type: 'integer', minimum: RATE_LIMIT_BOUNDS.requests.min, maximum: RATE_LIMIT_BOUNDS.requests.max },
    window_seconds: {
      type: 'integer',
      minimum: RATE_LIMIT_BOUNDS.windowSeconds.min,
      maximum: RATE_LIMIT_BOUNDS.windowSeconds.max,
    },
  },
} as const;
import { CUSTOM_FIELD_TYPES } from '../domain/custom-fields';
import { checkFixture, NAMED_PAYOUT_TYPES, type FixtureResult } from '../domain/fixture';

/**
 * The shape of a business fixture (admin import, tests, benchmarks). The schema
 * depends on the business's own locales, so it is compiled once per locale set; only
 * scripts and tests load it, never a Lambda bundle.
 */
type Json = Record<string, unknown>;

const nullableString = { type: ['string', 'null'] };
const id = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._~-]+$' };
const numericId = { type: 'string', pattern: '^[0-9]{1,18}$' };
/** Contract §22: 1..100 characters of A-Z a-z 0-9 . _ : - */
const externalId = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' };

/**
 * A record: what makes it a fixture entry (its external id; a job's employee and
 * supervisor by theirs). Its other keys are the body of its POST, checked by the
 * same request schema and rules as that POST (scripts/lib/fixture-records.ts).
 */
const record = (refs: Json = {}, required: string[] = []): Json => ({
  type: 'object',
  required: ['external_id', ...required],
  properties: { external_id: externalId, ...refs },
});

/** Locale-suffixed properties for exactly the business's locales: another locale's key is unknown. */
function localeProps(prefixes: readonly string[], locales: readonly Locale[], schema: object): Json {
  const props: Json = {};
  for (const p of prefixes) for (const l of locales) props[`${p}_${l}`] = schema;
  return props;
}

export function fixtureSchema(locales: readonly Locale[]): Json {
  const entry = (props: Json, required: string[] = ['id']): Json => ({
    type: 'object',
    additionalProperties: false,
    required,
    properties: { id, ...props },
  });
  const status = entry({ ...localeProps(['name'], locales, nullableString), default: { type: 'boolean' } });
  const valueObject = {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id, ...localeProps(['label'], locales, nullableString) },
  };
  const fieldProps = (types: readonly string[]): Json => ({
    type_of: { enum: types },
    ...localeProps(['name', 'hint', 'placeholder'], locales, nullableString),
    values: { anyOf: [{ type: 'null' }, { type: 'array', items: valueObject }] },
  });
  const customField = entry({ ...fieldProps(CUSTOM_FIELD_TYPES), id: numericId, required: { type: 'boolean' } }, [
    'id',
    'type_of',
  ]);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['business'],
    properties: {
      business: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'locales', 'timezone'],
        properties: {
          id,
          name: { type: 'string', minLength: 1 },
          locales: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: LOCALES } },
          timezone: { type: 'string' },
          // Contract §17: applications whose updated_at is older are erased (absent or null: kept).
          application_retention_days: {
            anyOf: [{ type: 'null' }, { type: 'integer', minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS }],
          },
          // Contract §18: the default limit of the business's tokens, and its limit over all of them.
          token_rate_limit: ratePolicy,
          rate_limit: ratePolicy,
        },
      },
      employee_statuses: { type: 'array', items: status },
      application_statuses: { type: 'array', items: status },
      departments: { type: 'array', items: entry(localeProps(['name'], locales, nullableString)) },
      job_openings: { type: 'array', items: entry(localeProps(['name'], locales, nullableString)) },
      locations: {
        type: 'array',
        items: entry({
          parent_id: { anyOf: [id, { type: 'null' }] },
          ...localeProps(['name'], locales, { type: ['string', 'null'], minLength: 1 }),
          ...localeProps(['public_name', 'region', 'city', 'street', 'sub_business_title'], locales, nullableString),
          country: nullableString,
          postal_code: nullableString,
          is_sub_business: { type: 'boolean' },
        }),
      },
      employee_payout_fields: {
        type: 'array',
        items: entry(fieldProps([...CUSTOM_FIELD_TYPES, ...NAMED_PAYOUT_TYPES]), ['id', 'type_of']),
      },
      employee_fields: { type: 'array', items: customField },
      employee_job_fields: { type: 'array', items: customField },
      application_fields: { type: 'array', items: customField },
      employees: { type: 'array', items: record() },
      employee_jobs: {
        type: 'array',
        items: record({ employee_external_id: externalId, supervisor_external_id: externalId }, [
          'employee_external_id',
        ]),
      },
      applications: { type: 'array', items: record() },
    },
  };
}

/** `locations[2] (id "hq")` — how a problem names the offending entry. */
function entryName(root: Json, path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return 'fixture';
  const [list, index] = parts;
  if (index === undefined || !/^\d+$/.test(index)) return parts.join('.');
  const entryValue = (root[list ?? ''] as Json[] | undefined)?.[Number(index)];
  const entryId =
    typeof entryValue?.id === 'string'
      ? ` (id "${entryValue.id}")`
      : typeof entryValue?.external_id === 'string'
        ? ` (external_id "${entryValue.external_id}")`
        : '';
  const rest = parts.slice(2).join('.');
  return `${list}[${index}]${entryId}${rest ? ` ${rest}` : ''}`;
}

function describe(root: Json, e: ErrorObject): string {
  const where = entryName(root, e.instancePath);
  if (e.keyword === 'additionalProperties')
    return `${where}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required')
    return `${where}: missing "${(e.params as { missingProperty: string }).missingProperty}"`;
  return `${where}: ${e.message ?? 'is invalid'}`;
}

/** Compiled fixture validators by locale set: a compile costs ~0.15 s of CPU, and a process (a test file, a
 * benchmark) parses many fixtures of the same few locale sets. */
const validators = new Map<string, ValidateFunction>();

function fixtureValidator(locales: readonly Locale[]): ValidateFunction {
  const key = [...new Set(locales)].sort().join(',');
  let validate = validators.get(key);
  if (!validate) {
    // Not checked against the meta-schema on every compile (~65 ms): test/unit/fixture.test.ts checks it.
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateSchema: false });
    validate = ajv.compile(fixtureSchema(locales));
    validators.set(key, validate);
  }
  return validate;
}

/** Checks a whole fixture; every problem names its entry. Nothing is written unless this says ok. */
export function parseFixture(input: unknown): FixtureResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, problems: ['fixture: must be a JSON object'] };
  const root = input as Json;
  const business = root.business as Json | undefined;
  const declared = Array.isArray(business?.locales) ? (business.locales as unknown[]) : [];
  const locales = declared.filter((l): l is Locale => (LOCALES as readonly unknown[]).includes(l));
  const validate = fixtureValidator(locales.length ? locales : [...LOCALES]);
  if (!validate(root)) return { ok: false, problems: (validate.errors ?? []).map((e) => describe(root, e)) };

  return checkFixture(root);
}

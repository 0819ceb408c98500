import { applicationFilterParams } from './application-filters';
import { customFieldValues, datetime, namedOrCustomKeys, notBlank, nullableDate, PageQuery } from './common';

/**
 * Applications (seed-api.md "Application", "List Applications"; contract §6, §7).
 * The schemas give shape and formats; what depends on the business (job
 * openings, statuses, locales, custom field definitions, today in its
 * timezone) is checked by src/services/applications.ts into the same
 * field-error collector, so one 422 lists every failing field.
 */

const text = (maxLength = 255) => ({ type: ['string', 'null'], maxLength }) as const;
const mandatoryText = (maxLength = 255) => ({ type: 'string', ...notBlank, maxLength }) as const;

export const APPLICATION_GENDERS = ['male', 'female', 'diverse'] as const;

/** Fields a PUT may change (contract §6): applicant fields, status, consent, language, campaign. */
const APPLICATION_UPDATABLE = {
  application_status_id: {
    type: 'string',
    ...notBlank,
    maxLength: 100,
    description: "An application status of the business (null or blank: `can't be blank`)",
  },
  accept_archivation: {
    type: ['boolean', 'null'],
    description: 'Whether the applicant accepted archivation; default false',
  },
  language: {
    description:
      "ISO 639-1 code, one of the business's locales. Absent or not a locale of the business: the preferred language is used (no error)",
  },
  campaign_id: {
    ...text(100),
    description: 'Campaign through which the application was created; free text up to 100 characters',
  },
  first_name: mandatoryText(),
  last_name: mandatoryText(),
  gender: { enum: [...APPLICATION_GENDERS, null] },
  email: { type: 'string', ...notBlank, format: 'email', maxLength: 255 },
  phone: text(100),
  birthday: { ...nullableDate, description: 'Not in the future (business timezone)' },
} as const;

/** Fields only a create sets. */
/** On create, null (like absent) means the business's default status. */
const STATUS_ON_CREATE = {
  type: ['string', 'null'],
  maxLength: 100,
  description: "An application status of the business; absent or null = the business's default status",
} as const;

const APPLICATION_CREATE_ONLY = {
  job_id: {
    type: ['string', 'null'],
    maxLength: 100,
    description: 'A job opening of the business; absent or null = a speculative application',
  },
  accept_terms_and_conditions: { const: true, description: 'Must be true to create an application' },
} as const;

/** Server-set fields: ignored when sent, so a client may PUT back what it read. */
export const APPLICATION_READ_ONLY = ['id', 'created_at', 'updated_at'] as const;
/** A PUT additionally ignores what only a create sets. */
export const APPLICATION_UPDATE_READ_ONLY = [
  ...APPLICATION_READ_ONLY,
  'job_id',
  'accept_terms_and_conditions',
] as const;

export const APPLICATION_UPDATABLE_FIELDS = Object.keys(
  APPLICATION_UPDATABLE,
) as (keyof typeof APPLICATION_UPDATABLE)[];

export const ApplicationCreate = {
  type: 'object',
  description:
    'accept_terms_and_conditions must be true; first_name, last_name and email are mandatory; cf_{id} keys for the custom application fields of the business',
  required: ['accept_terms_and_conditions', 'first_name', 'last_name', 'email'],
  properties: { ...APPLICATION_CREATE_ONLY, ...APPLICATION_UPDATABLE, application_status_id: STATUS_ON_CREATE },
  propertyNames: namedOrCustomKeys([
    ...Object.keys(APPLICATION_CREATE_ONLY),
    ...APPLICATION_UPDATABLE_FIELDS,
    ...APPLICATION_READ_ONLY,
  ]),
  'x-read-only-fields': APPLICATION_READ_ONLY,
} as const;

export const ApplicationUpdate = {
  type: 'object',
  description:
    'Partial update: keys present are changed, absent keys are left alone, null clears an optional field. job_id and accept_terms_and_conditions are fixed at creation (ignored here). Moves updated_at.',
  properties: APPLICATION_UPDATABLE,
  propertyNames: namedOrCustomKeys([...APPLICATION_UPDATABLE_FIELDS, ...APPLICATION_UPDATE_READ_ONLY]),
  'x-read-only-fields': APPLICATION_UPDATE_READ_ONLY,
} as const;

const stringOrNull = { type: ['string', 'null'] } as const;

export const Application = {
  type: 'object',
  required: [
    'id',
    'job_id',
    'application_status_id',
    'accept_terms_and_conditions',
    'accept_archivation',
    'language',
    'campaign_id',
    'first_name',
    'last_name',
    'gender',
    'email',
    'phone',
    'birthday',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string' },
    job_id: { ...stringOrNull, description: 'Job opening; null for a speculative application' },
    application_status_id: { type: 'string' },
    accept_terms_and_conditions: { type: 'boolean' },
    accept_archivation: { type: 'boolean' },
    language: { type: 'string' },
    campaign_id: stringOrNull,
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    gender: { enum: [...APPLICATION_GENDERS, null] },
    email: { type: 'string' },
    phone: stringOrNull,
    birthday: { type: ['string', 'null'], format: 'date' },
    created_at: datetime,
    updated_at: datetime,
  },
  patternProperties: customFieldValues,
  propertyNames: namedOrCustomKeys([
    ...Object.keys(APPLICATION_CREATE_ONLY),
    ...APPLICATION_UPDATABLE_FIELDS,
    ...APPLICATION_READ_ONLY,
  ]),
} as const;

export const ApplicationQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...PageQuery.properties, ...applicationFilterParams },
} as const;

import { MAX_DECIMAL_PLACES } from '../domain/numbers';
import {
  customFieldValues,
  date,
  datetime,
  FORMAT_PATTERNS,
  namedOrCustomKeys,
  notBlank,
  nullableDate,
  PageQuery,
} from './common';

/**
 * Employees and employee jobs (seed-api.md "Employee", "Employee job"; contract §4, §5).
 * Request schemas give the shape and the format checks; what depends on the
 * business (locales, statuses, referenced records, custom field definitions,
 * "today" in its timezone) is checked by the services and reported into the
 * same field-error collector.
 */

const text = (maxLength = 255) => ({ type: ['string', 'null'], maxLength }) as const;
const mandatoryText = (maxLength = 255) => ({ type: 'string', ...notBlank, maxLength }) as const;
const nullableString = { type: ['string', 'null'] } as const;
const nullableNumber = { type: ['number', 'null'] } as const;
/** A decimal field (contract §2): at most 6 digits after the point; each field adds its own range. */
const decimal = { 'x-max-decimals': MAX_DECIMAL_PLACES } as const;

const EMPLOYEE_WRITABLE = {
  employee_status_id: {
    type: ['string', 'null'],
    maxLength: 100,
    description: "An employee status of the business; absent or null = the business's default status",
  },
  first_name: mandatoryText(),
  last_name: mandatoryText(),
  language: {
    enum: ['de', 'it', 'en', null],
    description: "ISO 639-1, one of the business's locales; absent or null = the preferred language",
  },
  gender: { enum: ['male', 'female', 'diverse', null] },
  email: { type: ['string', 'null'], format: 'email', maxLength: 255 },
  company_email: { type: ['string', 'null'], format: 'email', maxLength: 255 },
  phone: text(100),
  company_phone: text(100),
  photo_url: {
    type: ['string', 'null'],
    format: 'http-url',
    pattern: FORMAT_PATTERNS['http-url'],
    maxLength: 2048,
    description: 'Absolute http(s) URL with a host (the server parses it as a WHATWG URL)',
  },
  birthday: { ...nullableDate, description: 'Not in the future (business timezone)' },
  tax_number: text(100),
  employee_number: { ...text(100), description: 'Unique within the business' },
  nationality: text(),
  birthplace: text(),
  street: text(),
  city: text(),
  postal_code: text(20),
  region: text(),
  country_code: {
    type: ['string', 'null'],
    format: 'country-code',
    pattern: FORMAT_PATTERNS['country-code'],
    description: 'ISO 3166-1 alpha-2, upper case; the server accepts assigned codes only',
  },
  iban: {
    type: ['string', 'null'],
    format: 'iban',
    pattern: FORMAT_PATTERNS.iban,
    maxLength: 50,
    description:
      'IBAN, spaces allowed, any case; the server also checks the ISO 13616 mod-97 checksum and the country code. Stored without spaces in upper case',
  },
  swift: {
    type: ['string', 'null'],
    format: 'bic',
    pattern: FORMAT_PATTERNS.bic,
    description: 'BIC, 8 or 11 characters, any case; the server also checks its country code. Stored upper case',
  },
} as const;

/** Derived and server-set fields: ignored when sent, so a client may PUT back what it read. */
export const EMPLOYEE_READ_ONLY = [
  'id',
  'supervisor_id',
  'location_id',
  'department_id',
  'has_active_employee_job',
  'has_active_or_future_employee_job',
  'first_employee_job_from',
  'first_employee_job_to',
  'last_employee_job_from',
  'last_employee_job_to',
  'current_employee_job_from',
  'current_employee_job_to',
  'current_or_last_employee_job_from',
  'current_or_last_employee_job_to',
  'created_at',
  'updated_at',
] as const;

/** Writable fixed fields of an employee, in response order. */
export const EMPLOYEE_WRITABLE_FIELDS = Object.keys(EMPLOYEE_WRITABLE) as (keyof typeof EMPLOYEE_WRITABLE)[];

export const EmployeeCreate = {
  type: 'object',
  description: 'first_name and last_name are mandatory; cf_{id} keys for the custom employee fields of the business',
  required: ['first_name', 'last_name'],
  properties: EMPLOYEE_WRITABLE,
  propertyNames: namedOrCustomKeys([...EMPLOYEE_WRITABLE_FIELDS, ...EMPLOYEE_READ_ONLY]),
  'x-read-only-fields': EMPLOYEE_READ_ONLY,
} as const;

export const EmployeeUpdate = {
  type: 'object',
  description:
    'Partial update: keys present are changed, absent keys are left alone, null clears an optional field (language and employee_status_id return to their defaults)',
  properties: EMPLOYEE_WRITABLE,
  propertyNames: namedOrCustomKeys([...EMPLOYEE_WRITABLE_FIELDS, ...EMPLOYEE_READ_ONLY]),
  'x-read-only-fields': EMPLOYEE_READ_ONLY,
} as const;

const dateOrNull = { type: ['string', 'null'], format: 'date' } as const;
const stringOrNull = { type: ['string', 'null'] } as const;

export const Employee = {
  type: 'object',
  required: ['id', ...EMPLOYEE_WRITABLE_FIELDS, ...EMPLOYEE_READ_ONLY.filter((f) => f !== 'id')],
  properties: {
    id: { type: 'string' },
    employee_status_id: stringOrNull,
    supervisor_id: { ...stringOrNull, description: 'Supervisor of the current or last job' },
    location_id: { ...stringOrNull, description: 'Location of the current or last job' },
    department_id: { ...stringOrNull, description: 'Department of the current or last job' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    language: { type: 'string' },
    gender: { enum: ['male', 'female', 'diverse', null] },
    email: stringOrNull,
    company_email: stringOrNull,
    phone: stringOrNull,
    company_phone: stringOrNull,
    photo_url: stringOrNull,
    birthday: dateOrNull,
    tax_number: stringOrNull,
    employee_number: stringOrNull,
    nationality: stringOrNull,
    birthplace: stringOrNull,
    street: stringOrNull,
    city: stringOrNull,
    postal_code: stringOrNull,
    region: stringOrNull,
    country_code: stringOrNull,
    iban: stringOrNull,
    swift: stringOrNull,
    has_active_employee_job: { type: 'boolean', description: 'Some job is active today (business timezone)' },
    has_active_or_future_employee_job: { type: 'boolean' },
    first_employee_job_from: dateOrNull,
    first_employee_job_to: dateOrNull,
    last_employee_job_from: dateOrNull,
    last_employee_job_to: dateOrNull,
    current_employee_job_from: dateOrNull,
    current_employee_job_to: dateOrNull,
    current_or_last_employee_job_from: dateOrNull,
    current_or_last_employee_job_to: dateOrNull,
    created_at: datetime,
    updated_at: datetime,
  },
  patternProperties: customFieldValues,
  propertyNames: namedOrCustomKeys([...EMPLOYEE_WRITABLE_FIELDS, ...EMPLOYEE_READ_ONLY]),
} as const;

export const TIME_TYPES = ['full_time', 'part_time', 'hourly'] as const;
export const JOB_TYPES = ['unlimited', 'limited', 'seasonal', 'apprenticeship', 'internship'] as const;

const EMPLOYEE_JOB_WRITABLE = {
  employee_id: { type: 'string', ...notBlank, maxLength: 100, description: 'An employee of the business' },
  name: mandatoryText(),
  from: { type: 'string', ...notBlank, format: 'date' },
  to: { ...nullableDate, description: 'Null if unlimited; not before from' },
  notes: text(10000),
  time_percentage: { ...nullableNumber, ...decimal, minimum: 0, maximum: 100 },
  time_hours: { ...nullableNumber, ...decimal, minimum: 0, maximum: 168, description: 'Weekly hours' },
  time_type: { enum: [...TIME_TYPES, null] },
  time_table: {
    anyOf: [
      { type: 'null' },
      { type: 'array', minItems: 7, maxItems: 7, items: { type: 'number', ...decimal, minimum: 0, maximum: 24 } },
    ],
    description: 'Hours Monday..Sunday',
  },
  classification: { ...text(255), description: 'Pay grade or collective-agreement level' },
  job_type: { enum: [...JOB_TYPES, null] },
  supervisor_id: {
    ...nullableString,
    maxLength: 100,
    description: "An employee of the business other than the job's employee",
  },
  department_id: { ...nullableString, maxLength: 100 },
  location_id: { ...nullableString, maxLength: 100 },
} as const;

export const EMPLOYEE_JOB_READ_ONLY = ['id', 'created_at', 'updated_at'] as const;
export const EMPLOYEE_JOB_WRITABLE_FIELDS = Object.keys(
  EMPLOYEE_JOB_WRITABLE,
) as (keyof typeof EMPLOYEE_JOB_WRITABLE)[];

export const EmployeeJobCreate = {
  type: 'object',
  description:
    'employee_id, name and from are mandatory; cf_{id} keys for the custom employee job fields of the business',
  required: ['employee_id', 'name', 'from'],
  properties: EMPLOYEE_JOB_WRITABLE,
  propertyNames: namedOrCustomKeys([...EMPLOYEE_JOB_WRITABLE_FIELDS, ...EMPLOYEE_JOB_READ_ONLY]),
  'x-read-only-fields': EMPLOYEE_JOB_READ_ONLY,
} as const;

export const EmployeeJob = {
  type: 'object',
  required: ['id', ...EMPLOYEE_JOB_WRITABLE_FIELDS, 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    employee_id: { type: 'string' },
    name: { type: 'string' },
    from: { type: 'string', format: 'date' },
    to: dateOrNull,
    notes: stringOrNull,
    time_percentage: nullableNumber,
    time_hours: nullableNumber,
    time_type: { enum: [...TIME_TYPES, null] },
    time_table: { anyOf: [{ type: 'null' }, { type: 'array', items: { type: 'number' } }] },
    classification: stringOrNull,
    job_type: { enum: [...JOB_TYPES, null] },
    supervisor_id: stringOrNull,
    department_id: stringOrNull,
    location_id: stringOrNull,
    created_at: datetime,
    updated_at: datetime,
  },
  patternProperties: customFieldValues,
  propertyNames: namedOrCustomKeys([...EMPLOYEE_JOB_WRITABLE_FIELDS, ...EMPLOYEE_JOB_READ_ONLY]),
} as const;

/** `as_of` (contract §26): the day an employee's derived job fields are answered for. */
const asOf = {
  as_of: {
    ...date,
    description:
      "A day (YYYY-MM-DD): the derived job fields (has_active_employee_job, the current and current-or-last job's dates, supervisor_id, location_id, department_id, ...) as they are or will be on that day by the jobs stored now; every other field is today's. Default: today in the business's timezone",
  },
} as const;

/** GET /employees/{id}. */
export const EmployeeShowQuery = {
  type: 'object',
  additionalProperties: false,
  properties: asOf,
} as const;

/** GET /employees. */
export const EmployeeQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...PageQuery.properties, ...asOf },
} as const;

export const EmployeeJobQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...PageQuery.properties,
    employee_id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Only the jobs of this employee (an unknown id gives an empty page)',
    },
  },
} as const;

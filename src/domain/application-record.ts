/**
 * The rules of an application's fields (contract §6, §9), pure: the service
 * supplies the business config, today's date in the business's timezone and
 * a `report` for field errors.
 */
import { preferredLanguage, type BusinessConfig } from './business';
import { renderCustomFields, validateCustomFields } from './custom-fields';

export type Report = (field: string, message: string) => void;

const MESSAGES = {
  blank: "can't be blank",
  invalid: 'is invalid',
  missingReference: 'does not exist',
  accepted: 'must be accepted',
} as const;

/** The fields an application stores (its response fields; custom values by accessor under `cf`). */
export interface ApplicationRecord {
  readonly id: string;
  readonly job_id: string | null;
  readonly application_status_id: string;
  readonly accept_terms_and_conditions: boolean;
  readonly accept_archivation: boolean;
  readonly language: string;
  readonly campaign_id: string | null;
  readonly first_name: string;
  readonly last_name: string;
  readonly gender: string | null;
  readonly email: string;
  readonly phone: string | null;
  readonly birthday: string | null;
  readonly cf: Readonly<Record<string, unknown>>;
  readonly created_at: string;
  readonly updated_at: string;
  /** Write counter; the ETag is derived from it. */
  readonly version: number;
}

/** The fields a body decides (everything but id, timestamps and version). */
export type ApplicationFields = Omit<ApplicationRecord, 'id' | 'created_at' | 'updated_at' | 'version'>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Language as stored: a locale of the business, else the preferred one (no error, contract §6). */
export function languageOf(config: BusinessConfig, value: unknown): string {
  return typeof value === 'string' && (config.locales as string[]).includes(value) ? value : preferredLanguage(config);
}

export interface InputContext {
  readonly config: BusinessConfig;
  /** YYYY-MM-DD in the business's timezone. */
  readonly today: string;
  readonly report: Report;
  /** Fields the schema already rejected: not checked again. */
  readonly failed: (field: string) => boolean;
}

/**
 * A create: the fields to store from a schema-checked body. Business rules
 * (terms accepted, job opening and status of the business, birthday not in
 * the future, custom fields) are reported through `ctx.report`; the caller
 * throws when anything was reported.
 */
export function fieldsForCreate(body: Record<string, unknown>, ctx: InputContext): ApplicationFields {
  const { config, report, failed } = ctx;
  if (body.accept_terms_and_conditions !== true) report('accept_terms_and_conditions', MESSAGES.accepted);

  const jobId = str(body.job_id);
  if (jobId !== null && !failed('job_id') && !config.job_opening_ids.includes(jobId))
    report('job_id', MESSAGES.missingReference);

  let status = str(body.application_status_id);
  if (status === null) {
    status = config.default_application_status_id;
    if (status === null && !failed('application_status_id')) report('application_status_id', MESSAGES.blank);
  } else if (!failed('application_status_id') && !config.application_status_ids.includes(status)) {
    report('application_status_id', MESSAGES.missingReference);
  }
  checkBirthday(body, ctx);

  return {
    job_id: jobId,
    application_status_id: status ?? '',
    accept_terms_and_conditions: true,
    accept_archivation: body.accept_archivation === true,
    language: languageOf(config, body.language),
    campaign_id: str(body.campaign_id),
    first_name: str(body.first_name) ?? '',
    last_name: str(body.last_name) ?? '',
    gender: str(body.gender),
    email: str(body.email) ?? '',
    phone: str(body.phone),
    birthday: str(body.birthday),
    cf: customValues(body, config, 'create', report),
  };
}

/**
 * A partial update: keys present change, absent keys stay, null clears an
 * optional field (mandatory ones are "can't be blank" by schema; a null
 * status too, here).
 */
export function fieldsForUpdate(
  body: Record<string, unknown>,
  before: ApplicationFields,
  ctx: InputContext,
): ApplicationFields {
  const { config, report, failed } = ctx;
  const has = (k: string): boolean => Object.hasOwn(body, k);
  const pick = <T>(k: string, old: T, map: (v: unknown) => T): T => (has(k) && !failed(k) ? map(body[k]) : old);

  let status = before.application_status_id;
  if (has('application_status_id') && !failed('application_status_id')) {
    const value = str(body.application_status_id);
    if (value === null) report('application_status_id', MESSAGES.blank);
    else if (!config.application_status_ids.includes(value)) report('application_status_id', MESSAGES.missingReference);
    else status = value;
  }
  checkBirthday(body, ctx);

  return {
    job_id: before.job_id,
    application_status_id: status,
    accept_terms_and_conditions: before.accept_terms_and_conditions,
    accept_archivation: pick('accept_archivation', before.accept_archivation, (v) => v === true),
    language: has('language') ? languageOf(config, body.language) : before.language,
    campaign_id: pick('campaign_id', before.campaign_id, str),
    first_name: pick('first_name', before.first_name, (v) => str(v) ?? before.first_name),
    last_name: pick('last_name', before.last_name, (v) => str(v) ?? before.last_name),
    gender: pick('gender', before.gender, str),
    email: pick('email', before.email, (v) => str(v) ?? before.email),
    phone: pick('phone', before.phone, str),
    birthday: pick('birthday', before.birthday, str),
    cf: { ...before.cf, ...customValues(body, config, 'update', report) },
  };
}

function checkBirthday(body: Record<string, unknown>, { today, report, failed }: InputContext): void {
  const birthday = str(body.birthday);
  if (birthday !== null && !failed('birthday') && birthday > today) report('birthday', MESSAGES.invalid);
}

function customValues(
  body: Record<string, unknown>,
  config: BusinessConfig,
  mode: 'create' | 'update',
  report: Report,
): Record<string, unknown> {
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (key.startsWith('cf_')) custom[key] = value;
  return validateCustomFields(config.application_fields, custom, mode, report);
}

/** The public form (seed-api.md field order; every defined custom field, null where unset). */
export function renderApplication(config: BusinessConfig, app: ApplicationRecord): Record<string, unknown> {
  return {
    id: app.id,
    job_id: app.job_id,
    application_status_id: app.application_status_id,
    accept_terms_and_conditions: app.accept_terms_and_conditions,
    accept_archivation: app.accept_archivation,
    language: app.language,
    campaign_id: app.campaign_id,
    first_name: app.first_name,
    last_name: app.last_name,
    gender: app.gender,
    email: app.email,
    phone: app.phone,
    birthday: app.birthday,
    ...renderCustomFields(config.application_fields, app.cf),
    created_at: app.created_at,
    updated_at: app.updated_at,
  };
}

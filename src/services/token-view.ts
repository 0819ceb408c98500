/**
 * The projection step (contract §25): the one place that turns what the service holds into what a token
 * sees. Every way a record leaves the service goes through it: the response step of every route
 * (src/http/handler.ts: single records and list pages, by the route's response schema), the change-feed
 * page (src/services/changes.ts), the webhook dispatcher (src/services/webhook-dispatcher.ts) and the export
 * writer (src/services/exports.ts). The rules are src/domain/token-view.ts; this binds them to the records'
 * schemas and to the API's shapes (page envelope, feed entry, export line, headers).
 */
import { APPLICATION_FILTERS } from '../schemas/application-filters';
import { Application } from '../schemas/applications';
import { Employee, EmployeeCreate, EmployeeJob, EmployeeJobCreate } from '../schemas/employees';
import { ApplicationCreate } from '../schemas/applications';
import { FieldError, MESSAGES } from '../domain/errors';
import { grantOfHash } from '../data/token-store';
import type { ApiResult } from '../domain/result';
import {
  GRANT_TYPES,
  RECORD_SCHEMAS,
  notPermitted,
  projectEntry,
  projectRecord,
  withheldOf,
  type GrantType,
  type TokenView,
} from '../domain/token-view';

/** The fixed fields of each type's GET (custom fields `cf_N` come on top, per business). */
export const TYPE_FIELDS: Readonly<Record<GrantType, readonly string[]>> = {
  employees: Object.keys(Employee.properties),
  employee_jobs: Object.keys(EmployeeJob.properties),
  applications: Object.keys(Application.properties),
};

/** The mandatory fields of each type's create (a create without all of them granted cannot succeed). */
const CREATE_REQUIRED: Readonly<Record<GrantType, readonly string[]>> = {
  employees: EmployeeCreate.required,
  employee_jobs: EmployeeJobCreate.required,
  applications: ApplicationCreate.required,
};

const typeFields = (type: GrantType): readonly string[] => TYPE_FIELDS[type];

/** The sorted fields of a type a token is denied, over the type's fixed fields and those of `records`. */
export function restrictedFieldsOf(view: TokenView, type: GrantType, records: readonly unknown[]): string[] {
  const keys = records.flatMap((r) => (r !== null && typeof r === 'object' ? Object.keys(r) : []));
  return withheldOf(view, type, [...TYPE_FIELDS[type], ...keys]);
}

/** One record as the token sees it. */
export const projectOne = <T extends Record<string, unknown>>(
  view: TokenView,
  type: GrantType,
  record: T,
): Partial<T> => projectRecord(view, type, record);

/**
 * A route's answer as the token sees it: its record, or each record of its page envelope, projected, with
 * `Restricted-Fields` when the token's grant of that type withholds any field. Error and empty bodies pass.
 */
export function projectResult(view: TokenView, type: GrantType, list: boolean, result: ApiResult): ApiResult {
  if (view.grants?.[type] === undefined) return result;
  const body = result.body;
  if (body === null || typeof body !== 'object') return result;
  const records = list ? (body as { entries?: unknown[] }).entries : [body];
  if (!Array.isArray(records)) return result;
  const projected = records.map((r) => projectRecord(view, type, r as Record<string, unknown>));
  const restricted = restrictedFieldsOf(view, type, records);
  return {
    ...result,
    body: list ? { ...body, entries: projected } : projected[0],
    headers: restricted.length > 0 ? { ...result.headers, 'Restricted-Fields': restricted.join(', ') } : result.headers,
  };
}

/** A change-feed entry (or webhook body) as the token sees it. */
export const projectFeedEntry = <E extends { readonly type: string; readonly data: unknown }>(
  view: TokenView,
  entry: E,
): E & { readonly restricted_fields?: string[] } => projectEntry(view, entry, typeFields);

/** An export line's record and what it withholds (undefined: the token has no grant of that type). */
export function projectExportRecord(
  view: TokenView,
  type: GrantType,
  record: Record<string, unknown>,
): { data: Record<string, unknown>; restricted_fields?: string[] } {
  if (view.grants?.[type] === undefined) return { data: record };
  return { data: projectRecord(view, type, record), restricted_fields: restrictedFieldsOf(view, type, [record]) };
}

/** The record field a list filter compares (400 `is not permitted` when it is withheld). */
const filteredField = (type: GrantType, param: string): string =>
  type === 'applications' && param in APPLICATION_FILTERS
    ? APPLICATION_FILTERS[param as keyof typeof APPLICATION_FILTERS].field
    : param;

/** Query parameters that are not filters on a record field. */
const NOT_FILTERS = new Set(['page', 'per_page']);

/** 400 `{"<filter>": ["is not permitted"]}` for a list filter on a field withheld from the token (contract §25). */
export function checkFilters(view: TokenView, type: GrantType, rawQuery: Readonly<Record<string, string>>): void {
  if (view.grants?.[type] === undefined) return;
  const refused = Object.keys(rawQuery).filter(
    (param) => !NOT_FILTERS.has(param) && withheldOf(view, type, [filteredField(type, param)]).length > 0,
  );
  if (refused.length > 0) throw new FieldError(400, notPermitted(view, type, refused));
}

/**
 * The fields of a body outside the token's grant, and (a create) the mandatory fields the grant lacks: each is
 * answered 422 `is not permitted`, and nothing is written (contract §25).
 */
export function deniedBodyFields(view: TokenView, type: GrantType, body: unknown, create: boolean): string[] {
  if (view.grants?.[type] === undefined) return [];
  const named = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  return withheldOf(view, type, [...named, ...(create ? CREATE_REQUIRED[type] : [])]);
}

/**
 * A create's field errors with "can't be blank" of a field the token may not send (a mandatory custom field
 * outside its grant) said as `is not permitted`: the create cannot succeed for this token (contract §25).
 */
export function ungrantedAsNotPermitted(view: TokenView, type: GrantType, error: unknown): unknown {
  if (!(error instanceof FieldError) || view.grants?.[type] === undefined) return error;
  const withheld = new Set(withheldOf(view, type, Object.keys(error.fields)));
  if (withheld.size === 0) return error;
  const fields = Object.fromEntries(
    Object.entries(error.fields).map(([f, messages]) =>
      withheld.has(f) && messages.includes(MESSAGES.blank) ? [f, [MESSAGES.notPermitted]] : [f, messages],
    ),
  );
  return new FieldError(error.status, fields);
}

/** Whether a field name is one of a type's GET (a fixed field, or a custom field's `cf_N`). */
export const isTypeField = (type: GrantType, field: string, customIds: readonly string[]): boolean =>
  TYPE_FIELDS[type].includes(field) || (/^cf_\d+$/.test(field) && customIds.includes(field.slice(3)));

/**
 * What the token with this hash may see now (the creator of a webhook subscription or an import acts with its
 * token's rights as they are, contract §25): 'revoked' once it is revoked or expired. One GetItem.
 */
export async function rightsOfToken(hash: string, now = Date.now()): Promise<TokenView | 'revoked'> {
  const grant = await grantOfHash(hash);
  if (!grant || (grant.expiresAt !== undefined && grant.expiresAt <= now)) return 'revoked';
  return { scopes: grant.scopes, ...(grant.fields ? { grants: grant.fields } : {}) };
}

export { GRANT_TYPES, RECORD_SCHEMAS };

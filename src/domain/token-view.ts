/**
 * What a token may see (contract §25): its read scopes decide which types of
 * record reach it at all, its field grants which fields of a record. Pure: the
 * one projection every way out of the service applies (src/services/token-view.ts
 * binds it to the record schemas; the response step, the change-feed page, the
 * webhook dispatcher and the export writer call that).
 */
import { MESSAGES } from './errors';
import type { Scope } from './scopes';

/** The record types a token may carry field grants for (`token create --fields TYPE=...`). */
export const GRANT_TYPES = ['employees', 'employee_jobs', 'applications'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

export const isGrantType = (value: string): value is GrantType => (GRANT_TYPES as readonly string[]).includes(value);

/** Per type, the fields granted; a type without an entry keeps every field. */
export type FieldGrants = Readonly<Partial<Record<GrantType, readonly string[]>>>;

/**
 * The record type of a route's response schema (src/http/routes.ts `response`): the answers the response step
 * projects and the OpenAPI document says may carry `Restricted-Fields`. Other schemas hold no such record.
 */
export const RECORD_SCHEMAS: Readonly<Record<string, GrantType>> = {
  Employee: 'employees',
  EmployeeJob: 'employee_jobs',
  Application: 'applications',
};

/** Granted whatever the grant says: a record is not addressable without them (and a job not placeable). */
export const ALWAYS_GRANTED: Readonly<Record<GrantType, readonly string[]>> = {
  employees: ['id', 'created_at', 'updated_at'],
  employee_jobs: ['id', 'created_at', 'updated_at', 'employee_id'],
  applications: ['id', 'created_at', 'updated_at'],
};

/** The read scope of each grant type's records. */
export const READ_SCOPE_OF: Readonly<Record<GrantType, Scope>> = {
  employees: 'employees:read',
  employee_jobs: 'employees:read',
  applications: 'applications:read',
};

/** What one token may see: the scopes it grants and its field grants (none: every field). */
export interface TokenView {
  readonly scopes: readonly Scope[];
  readonly grants?: FieldGrants;
}

/** Whether the view has any field grant (a token without one is served exactly as without this module). */
export const hasGrants = (view: TokenView): boolean =>
  view.grants !== undefined && GRANT_TYPES.some((t) => view.grants?.[t] !== undefined);

/** Whether `field` of a `type` record reaches the token. */
export function isGranted(view: TokenView, type: GrantType, field: string): boolean {
  const granted = view.grants?.[type];
  return granted === undefined || granted.includes(field) || ALWAYS_GRANTED[type].includes(field);
}

/** The sorted fields of `fields` withheld from the token. */
export const withheldOf = (view: TokenView, type: GrantType, fields: Iterable<string>): string[] =>
  [...new Set(fields)].filter((f) => !isGranted(view, type, f)).sort();

/** A record as the token sees it: the granted fields only (a withheld one is absent, never null). */
export function projectRecord<T extends Record<string, unknown>>(
  view: TokenView,
  type: GrantType,
  record: T,
): Partial<T> {
  if (view.grants?.[type] === undefined) return record;
  return Object.fromEntries(Object.entries(record).filter(([k]) => isGranted(view, type, k))) as Partial<T>;
}

/**
 * Whether the token sees every field of `type` that a reader with `other` grants saw (an export written for
 * another token: a narrower grant must not download what it was denied).
 */
export function seesAllOf(view: TokenView, other: FieldGrants | undefined, type: GrantType): boolean {
  const mine = view.grants?.[type];
  if (mine === undefined) return true;
  const theirs = other?.[type];
  return theirs !== undefined && theirs.every((f) => isGranted(view, type, f));
}

/** `{"<field>": ["is not permitted"]}` for each named field outside the grant (none: an empty map). */
export function notPermitted(view: TokenView, type: GrantType, fields: Iterable<string>): Record<string, string[]> {
  return Object.fromEntries(withheldOf(view, type, fields).map((f) => [f, [MESSAGES.notPermitted]]));
}

/**
 * The grant type and read scope of a change-feed entry (contract §25): a record's entries its type's; an
 * attachment's the applications' read scope; an import's that of the type it imports.
 */
export function entryTypeOf(
  type: string,
  data: unknown,
): { readonly scope: Scope; readonly grantType?: GrantType } | undefined {
  const kind = type.slice(0, type.indexOf('.'));
  if (kind === 'employee') return { scope: 'employees:read', grantType: 'employees' };
  if (kind === 'employee_job') return { scope: 'employees:read', grantType: 'employee_jobs' };
  if (kind === 'application') return { scope: 'applications:read', grantType: 'applications' };
  if (kind === 'attachment') return { scope: 'applications:read' };
  if (kind === 'import') {
    const imported = (data as { type?: unknown } | null)?.type;
    return { scope: imported === 'applications' ? 'applications:read' : 'employees:read' };
  }
  return undefined;
}

/** Whether the token may read entries of a feed `type` (of an import: the type of `data`). */
export function readsEntry(view: TokenView, type: string, data: unknown): boolean {
  const of = entryTypeOf(type, data);
  return of === undefined || view.scopes.includes(of.scope);
}

/** The read scope a change type needs, for the `types` filter (an import's entries: either record scope). */
export function scopesForChangeType(type: string): readonly Scope[] {
  if (type.startsWith('import.')) return ['employees:read', 'applications:read'];
  const of = entryTypeOf(type, null);
  return of ? [of.scope] : [];
}

/**
 * A feed entry (or webhook body) as the token sees it: its record projected, `restricted_fields` beside
 * `data` when the grant withholds any field of that type, `changed_fields` naming granted fields only.
 * `typeFields` names every field a record of the type may hold beside those of `data` (the schema's).
 */
export function projectEntry<
  E extends { readonly type: string; readonly data: unknown; readonly changed_fields?: readonly string[] },
>(
  view: TokenView,
  entry: E,
  typeFields: (type: GrantType) => readonly string[],
): E & { readonly restricted_fields?: string[] } {
  const grantType = entryTypeOf(entry.type, entry.data)?.grantType;
  if (grantType === undefined || view.grants?.[grantType] === undefined) return entry;
  const data = entry.data as Record<string, unknown> | null;
  const restricted = withheldOf(view, grantType, [...typeFields(grantType), ...Object.keys(data ?? {})]);
  const changed = entry.changed_fields;
  // The entry's own keys keep their places; `restricted_fields` comes right after `data`.
  return {
    ...entry,
    ...(changed === undefined ? {} : { changed_fields: changed.filter((f) => isGranted(view, grantType, f)) }),
    data: data === null ? null : projectRecord(view, grantType, data),
    restricted_fields: restricted,
  } as unknown as E & { readonly restricted_fields?: string[] };
}

import type { ApplicationRecord } from '../domain/application-record';

/**
 * The filters of GET /applications (seed-api.md "List Applications", contract
 * §7), each declared once: its query parameter (JSON Schema: the query
 * validator and the OpenAPI document follow from ApplicationQuery) and how it
 * selects a stored application. Everything else is derived: the filter type,
 * the http layer's parsing (src/http/application-query.ts), the
 * FilterExpression where DynamoDB applies it (src/data/lists/store.ts) and what
 * the filtered indexes project (src/data/dynamo/table-definition.ts). The entity's
 * `listOf` must read every filter (the compiler checks it) to pick its list.
 */
export interface ListFilterRule {
  /** The application field compared (stored under the same name). */
  readonly field: keyof ApplicationRecord;
  /** `=`: equal to the value; `since`: a timestamp, at or after the value (normalised to the stored form). */
  readonly match: '=' | 'since';
  /** The filter value that selects applications without the field (null). */
  readonly absentAs?: string;
}

const idParam = (description: string) => ({ type: 'string', minLength: 1, maxLength: 100, description }) as const;

const timestampParam = (what: string) =>
  ({
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: `Only applications ${what} at or after this instant (inclusive): ISO 8601 with Z or an offset, optional fractional seconds, or a bare date (its start in UTC)`,
  }) as const;

export const APPLICATION_FILTERS = {
  application_status_id: {
    param: idParam('Only applications with this status'),
    field: 'application_status_id',
    match: '=',
  },
  job_id: {
    param: idParam('Only applications of this job opening; the literal `null` selects speculative applications'),
    field: 'job_id',
    match: '=',
    absentAs: 'null',
  },
  created_at_since: { param: timestampParam('created'), field: 'created_at', match: 'since' },
  updated_at_since: { param: timestampParam('last updated'), field: 'updated_at', match: 'since' },
} as const satisfies Record<string, ListFilterRule & { readonly param: object }>;

export type ApplicationFilterName = keyof typeof APPLICATION_FILTERS;

/**
 * The filters of one GET /applications: one optional string per filter (the
 * `since` values normalised to the stored form by the http layer).
 */
export type ApplicationListFilter = { readonly [K in ApplicationFilterName]?: string };

/** The query parameters of the filters (ApplicationQuery's properties besides page and per_page). */
export const applicationFilterParams = Object.fromEntries(
  Object.entries(APPLICATION_FILTERS).map(([name, f]) => [name, f.param]),
) as { readonly [K in ApplicationFilterName]: (typeof APPLICATION_FILTERS)[K]['param'] };

/** The fields the filters compare: what an index read with DynamoDB-applied filters must project. */
export const APPLICATION_FILTER_FIELDS = Object.values(APPLICATION_FILTERS).map((f) => f.field);

/**
 * The query of GET /applications as typed filters: the http layer parses
 * (schema-validated values, then the `*_since` timestamps), the service
 * receives the filter of the query (its parameters but page and per_page).
 */
import { sinceOf } from '../domain/application-pages';
import { FieldErrorCollector, MESSAGES } from '../domain/errors';
import type { ApplicationListFilter } from '../schemas/applications';
import type { PageParams } from './paging';

export type ApplicationListQuery = ApplicationListFilter & PageParams;

/** Query parameters -> filters; malformed timestamps are 400 field errors (all at once). */
export function listFilterOf(q: ApplicationListQuery): ApplicationListFilter {
  const errors = new FieldErrorCollector();
  const since = (name: 'created_at_since' | 'updated_at_since'): string | undefined => {
    const raw = q[name];
    if (raw === undefined) return undefined;
    const value = sinceOf(raw);
    if (value === undefined) errors.add(name, MESSAGES.invalid);
    return value;
  };
  const filter: ApplicationListFilter = {
    ...(q.application_status_id !== undefined ? { application_status_id: q.application_status_id } : {}),
    ...(q.job_id !== undefined ? { job_id: q.job_id } : {}),
    ...(q.created_at_since !== undefined ? { created_at_since: since('created_at_since') } : {}),
    ...(q.updated_at_since !== undefined ? { updated_at_since: since('updated_at_since') } : {}),
  };
  errors.throwIfAny(400);
  return filter;
}

/**
 * The query of GET /applications as typed filters: the http layer parses
 * (schema-validated values, then the `*_since` timestamps), the service
 * receives ListFilters.
 */
import { sinceOf } from '../domain/application-pages';
import { FieldErrorCollector, MESSAGES } from '../domain/errors';
import type { ListFilters } from '../services/applications';
import type { PageParams } from './paging';

export interface ApplicationListQuery extends PageParams {
  application_status_id?: string;
  job_id?: string;
  created_at_since?: string;
  updated_at_since?: string;
}

/** Query parameters -> filters; malformed timestamps are 400 field errors (all at once). */
export function listFiltersOf(q: ApplicationListQuery): ListFilters {
  const errors = new FieldErrorCollector();
  const since = (name: 'created_at_since' | 'updated_at_since'): string | undefined => {
    const raw = q[name];
    if (raw === undefined) return undefined;
    const value = sinceOf(raw);
    if (value === undefined) errors.add(name, MESSAGES.invalid);
    return value;
  };
  const filters: ListFilters = {
    ...(q.application_status_id !== undefined ? { statusId: q.application_status_id } : {}),
    ...(q.job_id !== undefined ? { jobId: q.job_id === 'null' ? null : q.job_id } : {}),
    ...(q.created_at_since !== undefined ? { createdSince: since('created_at_since') } : {}),
    ...(q.updated_at_since !== undefined ? { updatedSince: since('updated_at_since') } : {}),
  };
  errors.throwIfAny(400);
  return filters;
}

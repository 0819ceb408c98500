/**
 * The query of GET /applications as typed filters: the http layer parses
 * (schema-validated values, then the `since` timestamps normalised to the
 * stored form), the service receives the filter of the query (its parameters
 * but page and per_page). Every filter of APPLICATION_FILTERS is read here,
 * by its declaration: none is listed by hand.
 */
import { sinceOf } from '../domain/application-pages';
import { FieldErrorCollector, MESSAGES } from '../domain/errors';
import {
  APPLICATION_FILTERS,
  type ApplicationFilterName,
  type ApplicationListFilter,
} from '../schemas/application-filters';
import type { PageParams } from './paging';

export type ApplicationListQuery = ApplicationListFilter & PageParams;

/** Query parameters -> filters; malformed timestamps are 400 field errors (all at once). */
export function listFilterOf(q: ApplicationListQuery): ApplicationListFilter {
  const errors = new FieldErrorCollector();
  const filter: { [K in ApplicationFilterName]?: string } = {};
  for (const name of Object.keys(APPLICATION_FILTERS) as ApplicationFilterName[]) {
    const raw = q[name];
    if (raw === undefined) continue;
    const value = APPLICATION_FILTERS[name].match === 'since' ? sinceOf(raw) : raw;
    if (value === undefined) errors.add(name, MESSAGES.invalid);
    else filter[name] = value;
  }
  errors.throwIfAny(400);
  return filter;
}

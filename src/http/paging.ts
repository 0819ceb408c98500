import { DEFAULT_PER_PAGE, envelope, linkHeader, type PageRequest } from '../domain/pagination';
import { ok, type ApiResult } from '../domain/result';

export interface PageParams {
  page?: number;
  per_page?: number;
}

export const pageRequestOf = (q: PageParams): PageRequest => ({
  page: q.page ?? 1,
  perPage: q.per_page ?? DEFAULT_PER_PAGE,
});

/** The page envelope (contract §7) with its RFC 8288 Link header. */
export function pageResult(
  request: { path: string; rawQuery: Record<string, string> },
  page: PageRequest,
  entries: unknown[],
  total: number,
): ApiResult {
  const keep = Object.fromEntries(Object.entries(request.rawQuery).filter(([k]) => k !== 'page' && k !== 'per_page'));
  const link = linkHeader(request.path, keep, page, total, request.rawQuery.per_page !== undefined);
  return ok(envelope(entries, page, total), link ? { Link: link } : {});
}

/** Page arithmetic shared by every list (contract §7). No I/O here. */

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

export interface PageRequest {
  /** 1-based. */
  page: number;
  perPage: number;
}

export interface PageEnvelope<T> {
  entries: T[];
  current_page: number;
  per_page: number;
  total_entries: number;
}

/**
 * 1-based inclusive positions of the requested page inside a list of `total`
 * items that starts after `offset` positions (a sub-range of a longer
 * sequence, e.g. the matches after a since-cut). Null when the page starts
 * past the end: the caller answers an empty page without reading anything.
 */
export function pagePositions(req: PageRequest, total: number, offset = 0): { first: number; last: number } | null {
  const skipped = (req.page - 1) * req.perPage;
  if (skipped >= total) return null;
  return { first: offset + skipped + 1, last: offset + Math.min(total, skipped + req.perPage) };
}

/** The response body of a list; current_page echoes the request even past the end. */
export function envelope<T>(entries: T[], req: PageRequest, total: number): PageEnvelope<T> {
  return { entries, current_page: req.page, per_page: req.perPage, total_entries: total };
}

/** Number of pages; an empty list still has its (empty) first page. */
export function totalPages(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/**
 * RFC 8288 Link header: `first` and `last` always, `prev` from page 2 on
 * (pointing at the last page when the request is past the end, so a client
 * that overshot can step back onto data), `next` while there is a later page.
 * `query` holds the other parameters to keep, in their order; page comes
 * after them, then per_page only when the client chose it, so the links
 * look like what the client sent.
 */
export function linkHeader(
  path: string,
  query: Record<string, string>,
  req: PageRequest,
  total: number,
  perPageExplicit: boolean,
): string {
  const lastPage = totalPages(total, req.perPage);
  const kept = Object.entries(query).filter(([key]) => key !== 'page' && key !== 'per_page');
  const url = (page: number): string => {
    const params: [string, string][] = [...kept, ['page', String(page)]];
    if (perPageExplicit) params.push(['per_page', String(req.perPage)]);
    const search = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    return `<${path}?${search}>`;
  };

  const links: string[] = [`${url(1)}; rel="first"`];
  if (req.page > 1) links.push(`${url(Math.min(req.page - 1, lastPage))}; rel="prev"`);
  if (req.page < lastPage) links.push(`${url(req.page + 1)}; rel="next"`);
  links.push(`${url(lastPage)}; rel="last"`);
  return links.join(', ');
}

/**
 * Locates the k-th (1-based) match in a list split into blocks, knowing only
 * how many matches each block holds (blocks in list order): the block to read
 * and how many of its matches to skip first. Null when there are fewer than k
 * matches. Negative counts (a counter mid-repair) count as none.
 */
export function locateInBlocks(
  blockCounts: readonly number[],
  k: number,
): { block: number; skipInBlock: number } | null {
  if (!(k >= 1)) return null;
  let before = 0;
  for (let block = 0; block < blockCounts.length; block++) {
    const count = Math.max(0, blockCounts[block] ?? 0);
    if (k <= before + count) return { block, skipInBlock: k - before - 1 };
    before += count;
  }
  return null;
}

/**
 * The one page locator of the position-mapped lists (docs/pagination.md),
 * pure: from a list's summary (its counter) and the position maps read so
 * far, either the positions a page spans and the exact total, or the maps
 * still needed to know them. Every application list (business, job, status,
 * status + job, created since, updated since) is paged through it; the same
 * call with no maps names the maps a page needs, so the data layer can send
 * them with the summary (page hints) and locate the page in one pass.
 */
import {
  countBefore,
  countOlderInMap,
  countsOf,
  isFull,
  locate,
  positionInMap,
  positionOf,
  straddlingSuperblocks,
  totalOf,
  type ListSummary,
} from './list-map';

/** What a page of a list asks for. */
export interface PageAsk {
  /** Status code the page filters by (-1: a status the business does not have, which matches nothing). */
  readonly code?: number;
  /** Only entries created (for the order of writes: written) at/after this time (epoch ms). */
  readonly sinceMs?: number;
  /** Entries before the page (`(page - 1) * per_page`). */
  readonly skipped: number;
  readonly perPage: number;
  /**
   * The list's index partition holds every status, so a page filtered by
   * status is read as the key range between its first and last entry with the
   * status as a filter (status + job, status + updated since); otherwise the
   * page's first position and a Limit suffice.
   */
  readonly wholeRange: boolean;
}

/** Positions of a page in its list: from `from` on, `take` matching entries, all of them at or before `to` if given. */
export interface PageRange {
  readonly from: number;
  readonly to?: number;
  readonly take: number;
}

export type PageLocation =
  /** Read these superblocks' maps (one BatchGetItem), then locate again: the second call always answers. */
  | { readonly kind: 'maps'; readonly superblocks: readonly number[] }
  /**
   * The exact total of matches and the page's positions (none past the last page); with a since-cut, `cut` is how
   * many matches precede it (what the next page's guess of its maps starts from: `mapsForPage`).
   */
  | { readonly kind: 'page'; readonly total: number; readonly range?: PageRange; readonly cut?: number };

/** Superblocks holding the k-th .. (k+take-1)-th counted entries. */
function pageSuperblocks(counts: readonly number[], k: number, take: number): number[] {
  const first = locate(counts, k);
  if (!first) return [];
  const last = locate(counts, k + take - 1);
  const end = last ? last.superblock : counts.length - 1;
  return Array.from({ length: end - first.superblock + 1 }, (_, i) => first.superblock + i);
}

/**
 * With a since-cut in the straddling superblocks, how many of their matches
 * precede the cut is known only from their maps: every superblock between the
 * earliest and the latest possible place of the page goes with them, so one
 * read suffices.
 */
function candidateSuperblocks(
  counts: readonly number[],
  straddling: readonly number[],
  skipped: number,
  take: number,
): number[] {
  const before = countBefore(counts, straddling[0]!);
  const inStraddling = straddling.reduce((sum, sb) => sum + Math.max(0, counts[sb] ?? 0), 0);
  const out = new Set<number>(straddling);
  const first = locate(counts, before + skipped + 1);
  if (!first) return [...out].sort((a, b) => a - b);
  const last = locate(counts, before + inStraddling + skipped + take);
  const end = last ? last.superblock : counts.length - 1;
  for (let sb = first.superblock; sb <= end; sb++) out.add(sb);
  return [...out].sort((a, b) => a - b);
}

/** Where a page's matches lie once the matches before its since-cut (`before`) are known. */
function pagePlace(summary: ListSummary, counts: readonly number[], before: number, ask: PageAsk) {
  const total = totalOf(counts) - before;
  if (ask.skipped >= total) return { total, needed: [] as number[], withoutMap: true, take: 0 };
  const take = Math.min(ask.perPage, total - ask.skipped);
  const needed = pageSuperblocks(counts, before + ask.skipped + 1, ask.wholeRange ? take : 1);
  const withoutMap = ask.code === undefined && needed.every((sb) => isFull(summary, sb));
  return { total, needed, withoutMap, take };
}

/**
 * Locates a page: summary -> exact total (minus the matches before a
 * since-cut, counted in the straddling superblock's map) -> the superblocks
 * of the page's first (and, for a whole range, last) entry -> their maps ->
 * exact positions. A superblock without a hole needs no map when the page
 * does not filter by status (its k-th entry is its k-th position).
 */
export function locatePage(
  summary: ListSummary,
  maps: ReadonlyMap<number, readonly number[]>,
  ask: PageAsk,
): PageLocation {
  if (ask.code === -1) return { kind: 'page', total: 0 };
  const { code, sinceMs, skipped, perPage } = ask;
  const counts = countsOf(summary, code);
  const missing = (superblocks: readonly number[]): PageLocation | undefined => {
    const absent = superblocks.filter((sb) => !maps.has(sb));
    return absent.length ? { kind: 'maps', superblocks: absent } : undefined;
  };

  const straddling = sinceMs === undefined ? [] : straddlingSuperblocks(summary, sinceMs);
  let before = 0;
  if (straddling.length) {
    if (straddling.some((sb) => !maps.has(sb)))
      return missing(candidateSuperblocks(counts, straddling, skipped, perPage))!;
    before =
      countBefore(counts, straddling[0]!) +
      straddling.reduce((sum, sb) => sum + countOlderInMap(maps.get(sb)!, sinceMs!, code), 0);
  }
  const cut = straddling.length ? { cut: before } : {};
  const { total, needed, withoutMap, take } = pagePlace(summary, counts, before, ask);
  if (skipped >= total) return { kind: 'page', total, ...cut };
  const absent = withoutMap ? undefined : missing(needed);
  if (absent) return absent;

  const at = (rank: number): number => {
    const loc = locate(counts, rank)!;
    return withoutMap
      ? positionOf(loc.superblock, loc.rank - 1)
      : positionInMap(maps.get(loc.superblock)!, loc.superblock, loc.rank, code)!;
  };
  const k = before + skipped + 1;
  const from = at(k);
  return {
    kind: 'page',
    total,
    range: ask.wholeRange ? { from, to: at(k + take - 1), take } : { from, take },
    ...cut,
  };
}

/**
 * The maps a page needs, from the summary alone (a page hint's, sent with the
 * fresh summary). A since-cut page needs the maps of the superblocks
 * straddling the cut and of its own first (and last) entry; where the page
 * lies depends on how many matches precede the cut, which only those maps
 * tell: with `cut` (what an earlier page of the same cut counted) the page's
 * own superblocks are named exactly, without it every superblock the page
 * may fall in. Either way a since-cut page reads at least as many maps as a
 * page away from its cut does (the straddling ones and one, two for a whole
 * range), padded with the superblocks after the cut: so what a page costs
 * does not depend on where it falls from the cut (docs/pagination.md).
 */
export function mapsForPage(summary: ListSummary, ask: PageAsk, cut?: number): readonly number[] {
  const straddling = ask.sinceMs === undefined || ask.code === -1 ? [] : straddlingSuperblocks(summary, ask.sinceMs);
  if (!straddling.length) {
    const location = locatePage(summary, new Map(), ask);
    return location.kind === 'maps' ? location.superblocks : [];
  }
  const counts = countsOf(summary, ask.code);
  const place = cut === undefined ? undefined : pagePlace(summary, counts, cut, ask);
  const page = place
    ? place.withoutMap
      ? []
      : place.needed
    : candidateSuperblocks(counts, straddling, ask.skipped, ask.perPage);
  const chosen = new Set([...straddling, ...page]);
  const want = straddling.length + (ask.wholeRange ? 2 : 1);
  for (let sb = straddling.at(-1)! + 1; chosen.size < want && sb < summary.live.length; sb++) chosen.add(sb);
  for (let sb = straddling[0]! - 1; chosen.size < want && sb >= 0; sb--) chosen.add(sb);
  return [...chosen].sort((a, b) => a - b);
}

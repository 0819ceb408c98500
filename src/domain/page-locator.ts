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
   * The exact total of matches and the page's positions (none past the last page); with a since-cut, `cut` is what
   * the straddling maps said (a next page of that cut may use it: `KnownCut`).
   */
  | { readonly kind: 'page'; readonly total: number; readonly range?: PageRange; readonly cut?: KnownCut };

/**
 * What the maps of the superblocks straddling a since-cut said: how many of their matches precede the cut, and
 * those superblocks' versions when their maps were read. While a later summary shows the same superblocks
 * straddling the cut at the same versions, nothing in them was created, erased or moved since (every such write
 * moves the version of its superblock on, in the transaction that makes it), so the count still holds and their
 * maps need not be read again: exact, not a guess.
 */
export interface KnownCut {
  readonly straddling: readonly number[];
  readonly versions: readonly number[];
  readonly older: number;
}

/** `known`, if it still holds for this summary's straddling superblocks. */
function stillHolds(summary: ListSummary, straddling: readonly number[], known: KnownCut | undefined) {
  if (!known || known.straddling.length !== straddling.length) return undefined;
  const same = straddling.every(
    (sb, i) => known.straddling[i] === sb && known.versions[i] === (summary.versions[sb] ?? 0),
  );
  return same ? known : undefined;
}

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
  known?: KnownCut,
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
  let cut: { cut?: KnownCut } = {};
  if (straddling.length) {
    const holds = stillHolds(summary, straddling, known);
    if (!holds && straddling.some((sb) => !maps.has(sb)))
      return missing(candidateSuperblocks(counts, straddling, skipped, perPage))!;
    const older =
      holds?.older ?? straddling.reduce((sum, sb) => sum + countOlderInMap(maps.get(sb)!, sinceMs!, code), 0);
    before = countBefore(counts, straddling[0]!) + older;
    cut = { cut: { straddling, versions: straddling.map((sb) => summary.versions[sb] ?? 0), older } };
  }
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
 * straddling the cut, unless what they said (`known`) still holds, and of its
 * own first (and last) entry, whose place depends on how many matches precede
 * the cut: with `known` the page's own superblocks exactly, without it every
 * superblock the page may fall in.
 */
export function mapsForPage(summary: ListSummary, ask: PageAsk, known?: KnownCut): readonly number[] {
  const location = locatePage(summary, new Map(), ask, known);
  return location.kind === 'maps' ? location.superblocks : [];
}

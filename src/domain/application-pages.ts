/**
 * Pure maths of the application lists (docs/pagination.md): dense positions,
 * creation times that follow them, per-block status counts and the plan that
 * turns (filters, page) into bounded key ranges. No I/O here.
 */
import { parseTimestamp, toIsoMillis } from './formats';
import { locateInBlocks, type PageRequest } from './pagination';

/**
 * Positions per status block. Block b covers business positions
 * [b*B + 1, (b+1)*B]. A status page reads every block item of the business
 * (N/B small items) plus at most B-1 skipped entries of one block, so B near
 * sqrt(N * entry size / block item size) balances both; 64 keeps the skipped
 * part below a quarter of the skip+page read at per_page 30 for most mixes
 * and the block partition small up to ~10^5 applications (docs/pagination.md).
 */
export const STATUS_BLOCK_SIZE = 64;

/** Block of a 1-based business position. */
export const blockOf = (position: number, size = STATUS_BLOCK_SIZE): number => Math.floor((position - 1) / size);

/** First and last business position of a block. */
export const blockBounds = (block: number, size = STATUS_BLOCK_SIZE): { first: number; last: number } => ({
  first: block * size + 1,
  last: (block + 1) * size,
});

/** Attribute of a block item holding the count of one status (top level, so ADD works on a missing item). */
export const STATUS_COUNT_PREFIX = 'n#';
export const statusCountAttribute = (statusId: string): string => `${STATUS_COUNT_PREFIX}${statusId}`;

/** One block as read from the table. */
export interface StatusBlock {
  readonly block: number;
  /** statusId -> number of applications of the block with that status. */
  readonly counts: Readonly<Record<string, number>>;
  /** created_at of the block's first position (positions are created in order, so the smallest). */
  readonly firstCreatedAt: string | null;
}

/** Parses stored block items (attributes `block`, `first_created_at`, `n#<status>`). */
export function statusBlocksOf(items: readonly Record<string, unknown>[]): StatusBlock[] {
  return items
    .map((item) => {
      const counts: Record<string, number> = {};
      for (const [name, value] of Object.entries(item)) {
        if (name.startsWith(STATUS_COUNT_PREFIX)) counts[name.slice(STATUS_COUNT_PREFIX.length)] = Number(value);
      }
      return {
        block: Number(item.block),
        counts,
        firstCreatedAt: typeof item.first_created_at === 'string' ? item.first_created_at : null,
      };
    })
    .sort((a, b) => a.block - b.block);
}

/** Count of one status per block, dense from block `from` (missing blocks count 0). */
export function countsOfStatus(blocks: readonly StatusBlock[], statusId: string, from = 0): number[] {
  const last = blocks.reduce((m, b) => Math.max(m, b.block), -1);
  const counts = new Array<number>(Math.max(0, last - from + 1)).fill(0);
  for (const b of blocks) if (b.block >= from) counts[b.block - from] = Math.max(0, b.counts[statusId] ?? 0);
  return counts;
}

/**
 * With created_at_since: the one block that can hold applications on both
 * sides of `since` — the last block whose first entry is older than `since`.
 * Every later block lies entirely at or after `since`; earlier ones entirely
 * before. -1: no block starts before `since` (everything matches).
 */
export function straddlingBlock(blocks: readonly StatusBlock[], since: string): number {
  let found = -1;
  for (const b of blocks) if ((b.firstCreatedAt ?? '') < since && b.block > found) found = b.block;
  return found;
}

/**
 * The entries of one status (optionally at/after `since`) as a sequence of
 * block counts to locate a page in: counts from `fromBlock` on, of which the
 * first `skipBefore` entries precede `since`. total = sum(counts) - skipBefore.
 */
export interface StatusSequence {
  readonly fromBlock: number;
  readonly counts: number[];
  readonly skipBefore: number;
  readonly total: number;
}

/**
 * `matchingInStraddling`: how many entries of the status in the straddling
 * block are at/after `since` (one COUNT query), ignored when there is none.
 */
export function statusSequence(
  blocks: readonly StatusBlock[],
  statusId: string,
  since?: { readonly block: number; readonly matchingInStraddling: number },
): StatusSequence {
  const fromBlock = since && since.block >= 0 ? since.block : 0;
  const counts = countsOfStatus(blocks, statusId, fromBlock);
  const inFirst = counts[0] ?? 0;
  const skipBefore =
    since && since.block >= 0 ? Math.max(0, inFirst - Math.min(inFirst, since.matchingInStraddling)) : 0;
  const total = counts.reduce((a, b) => a + b, 0) - skipBefore;
  return { fromBlock, counts, skipBefore, total };
}

/** How to read one page of a status sequence: total, and the one Query (if any) that holds the page. */
export interface StatusPagePlan {
  readonly total: number;
  /** Query the status partition from business position `from`, Limit `skip + take`, drop the first `skip`. */
  readonly read: { readonly from: number; readonly skip: number; readonly take: number } | null;
}

/**
 * Page n of a status sequence: prefix sums over the block counts find the
 * block holding the page's first entry and how many of the status's entries
 * in that block come before it (skip < B), so one bounded Query reads it.
 */
export function statusPagePlan(sequence: StatusSequence, page: PageRequest, size = STATUS_BLOCK_SIZE): StatusPagePlan {
  const skipped = (page.page - 1) * page.perPage;
  if (skipped >= sequence.total) return { total: sequence.total, read: null };
  const located = locateInBlocks(sequence.counts, sequence.skipBefore + skipped + 1);
  if (!located) return { total: sequence.total, read: null };
  return {
    total: sequence.total,
    read: {
      from: blockBounds(sequence.fromBlock + located.block, size).first,
      skip: located.skipInBlock,
      take: Math.min(page.perPage, sequence.total - skipped),
    },
  };
}

/**
 * created_at of a new entry: now, but strictly after the previous entry of
 * the business list, so creation order = position order = created_at order
 * (contract §7) even with clock skew between Lambda instances.
 */
export function nextCreatedAt(nowMs: number, lastCreatedAt: string | null | undefined): string {
  const last = lastCreatedAt ? Date.parse(lastCreatedAt) : Number.NEGATIVE_INFINITY;
  return toIsoMillis(Math.max(nowMs, Number.isFinite(last) ? last + 1 : nowMs));
}

/** updated_at of a write: now, but after the previous value so every write moves it. */
export const nextUpdatedAt = nextCreatedAt;

/**
 * A `*_since` query value as the stored form (UTC ISO with milliseconds), or
 * undefined when malformed. Sub-millisecond digits round up: stored times
 * have millisecond precision, so `>= 10.0005` means `>= 10.001`.
 */
export function sinceOf(value: string): string | undefined {
  const ms = parseTimestamp(value);
  if (ms === undefined) return undefined;
  const frac = /\.(\d+)/.exec(value.replace(/^[^T]*T/, ''))?.[1] ?? '';
  const roundUp = frac.length > 3 && /[1-9]/.test(frac.slice(3)) ? 1 : 0;
  const result = ms + roundUp;
  if (!Number.isFinite(result) || result < -62167219200000 || result > 253402300799999) return undefined;
  return toIsoMillis(result);
}

/** The job-list name of an application's job opening (speculative = no job). */
export const jobListName = (jobId: string | null): string =>
  jobId === null ? 'applications-speculative' : `applications-of-job:${jobId}`;

/** What an entry of a filtered scan needs (the `updated` index projects exactly this). */
export interface ApplicationRow {
  readonly position: number;
  readonly application_status_id: string;
  readonly job_id: string | null;
  readonly created_at: string;
}

export interface ApplicationFilters {
  readonly statusId?: string;
  /** undefined = any job; null = speculative applications only. */
  readonly jobId?: string | null;
  readonly createdSince?: string;
}

/** The rows that match every filter, in list order (position = created_at order, ties by id). */
export function matchingRows<R extends ApplicationRow>(rows: readonly R[], filters: ApplicationFilters): R[] {
  return rows
    .filter(
      (r) =>
        (filters.statusId === undefined || r.application_status_id === filters.statusId) &&
        (filters.jobId === undefined || r.job_id === filters.jobId) &&
        (filters.createdSince === undefined || r.created_at >= filters.createdSince),
    )
    .sort((a, b) => a.position - b.position);
}

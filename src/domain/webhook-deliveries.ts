/**
 * The delivery log of a subscription (contract §26), pure: which attempts a
 * page shows and how many there are. Every attempt of a subscription gets the
 * next number of a dense sequence (taken with the delivery lease, so attempts
 * are numbered in the order they were made); the first number of each UTC day
 * is marked. The log shows the attempts from 00:00 UTC of the day
 * DELIVERY_LOG_DAYS ago on, as the feed keeps its entries (docs/change-feed.md),
 * so a page is a key range counted back from the newest number: its cost does
 * not depend on the page number or the log's length.
 */
import { pagePositions, type PageRequest } from './pagination';

export const DELIVERY_LOG_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** An attempt's item lives past the last day the log can show it (then TTL removes it). */
export const DELIVERY_TTL_SECONDS = (DELIVERY_LOG_DAYS + 1) * 24 * 60 * 60;
/** A day mark lives as long as the attempts of its day can be shown. */
export const DAY_MARK_TTL_SECONDS = (DELIVERY_LOG_DAYS + 2) * 24 * 60 * 60;

/** One attempt as the log shows it: never a body, never an answer's body. */
export interface DeliveryAttempt {
  readonly id: string;
  readonly webhook_id: string;
  readonly cursor: string | null;
  readonly type: string;
  readonly attempt: number;
  readonly attempted_at: string;
  readonly result: string;
  readonly duration_ms: number;
}

/** The day of an epoch ms as the marks name it: `d` + YYYYMMDD (UTC). */
export const dayOf = (ms: number): string => `d${new Date(ms).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** The first day the log shows at `now`. */
export const firstShownDay = (now: number): string => dayOf(now - DELIVERY_LOG_DAYS * DAY_MS);

/** Epoch seconds at which the mark of the day `ms` falls in expires. */
export const dayMarkExpiry = (ms: number): number =>
  Math.floor(Date.parse(new Date(ms).toISOString().slice(0, 10)) / 1000) + DAY_MARK_TTL_SECONDS;

/** An attempt's public id: the subscription's attempt number. */
export const attemptId = (seq: number): string => `att_${seq}`;

/**
 * The attempt numbers page `page` shows, newest first: counted back from `last`
 * (the newest attempt) down to `first` (the first shown; null: none shown).
 * `total` is exact: every number from `first` to `last` was taken by an attempt.
 */
export function logPage(
  page: PageRequest,
  last: number,
  first: number | null,
): { total: number; range: { from: number; to: number } | undefined } {
  const total = first === null || first > last ? 0 : last - first + 1;
  const positions = pagePositions(page, total);
  if (!positions) return { total, range: undefined };
  return { total, range: { from: last - positions.last + 1, to: last - positions.first + 1 } };
}

/**
 * Where an application's change-feed entries are (contract §13, §17): every
 * entry of one application lies in its own lane, so its record keeps the
 * lane sequences of its entries, each with the entry's expiry, and an erasure
 * redacts exactly those entries in place (never deletes them: a hole after a
 * cursor reads as 410). Pure; src/data/feed-redaction.ts does the writes.
 */
import { ENTRY_TTL_SECONDS } from './change-feed';

/** `[sequence in the lane, expires_at of the entry (epoch seconds)]`. */
export type FeedRef = readonly [seq: number, expiresAt: number];

/**
 * TTL removes an entry some time after expires_at (DynamoDB: usually within
 * days). A reference is kept this long past expiry, so an entry TTL has not
 * removed yet is still found and redacted.
 */
export const TTL_LAG_SECONDS = 14 * 24 * 60 * 60;

/** An entry this close to its expiry may vanish any moment: it is redacted outside the transaction. */
export const EXPIRY_MARGIN_SECONDS = 15 * 60;

/** The most redactions an erasure puts into its own transaction (the rest of it is ~10 items of 100). */
export const MAX_REDACTIONS_IN_TRANSACTION = 80;

export const expiresAtOf = (occurredAt: string): number =>
  Math.floor(Date.parse(occurredAt) / 1000) + ENTRY_TTL_SECONDS;

/** The stored references (anything malformed is dropped: it cannot name an entry). */
export function feedRefsOf(value: unknown): FeedRef[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) =>
    Array.isArray(v) && v.length === 2 && Number.isInteger(Number(v[0])) && Number.isFinite(Number(v[1]))
      ? [[Number(v[0]), Number(v[1])] as const]
      : [],
  );
}

/**
 * The references after a write appended the entry `seq` at `occurredAt`:
 * references whose entries TTL has certainly removed are dropped, so the
 * list stays bounded by the writes of the last ~45 days.
 */
export function withFeedRef(refs: readonly FeedRef[], seq: number, occurredAt: string, nowMs: number): FeedRef[] {
  const nowS = Math.floor(nowMs / 1000);
  return [...refs.filter(([, exp]) => exp + TTL_LAG_SECONDS > nowS), [seq, expiresAtOf(occurredAt)]];
}

export interface RedactionPlan {
  /** Entries that surely exist until the transaction commits (conditioned on existing there). */
  readonly inTransaction: number[];
  /** Entries redacted one by one before the transaction: near expiry (may be gone: ignored) or over the cap. */
  readonly before: number[];
}

/**
 * Splits an erasure's redactions: entries safely before their expiry go into
 * the delete transaction (the newest first, up to `cap`); entries near or past
 * expiry, and the oldest beyond the cap, are redacted first, each on its own.
 */
export function redactionPlan(
  refs: readonly FeedRef[],
  nowMs: number,
  cap = MAX_REDACTIONS_IN_TRANSACTION,
): RedactionPlan {
  const nowS = Math.floor(nowMs / 1000);
  const live = refs.filter(([, exp]) => exp + TTL_LAG_SECONDS > nowS);
  const safe = live.filter(([, exp]) => exp > nowS + EXPIRY_MARGIN_SECONDS).map(([s]) => s);
  const risky = live.filter(([, exp]) => exp <= nowS + EXPIRY_MARGIN_SECONDS).map(([s]) => s);
  const unique = (xs: number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);
  const sortedSafe = unique(safe);
  const overflow = Math.max(0, sortedSafe.length - cap);
  return {
    inTransaction: sortedSafe.slice(overflow),
    before: unique([...risky, ...sortedSafe.slice(0, overflow)]).filter((s) => !sortedSafe.slice(overflow).includes(s)),
  };
}

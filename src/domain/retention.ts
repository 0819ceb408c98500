/**
 * Retention of applications (contract §17): a business may set
 * `application_retention_days`; an application whose `updated_at` is older
 * than that many days is erased. Unset means kept until erased by DELETE.
 * Pure: the scheduled job and `npm run admin -- retention run` decide with it.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** Bounds of the fixture key (src/schemas/fixture.ts): at least a day, at most 100 years. */
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 36_500;

/** The configured number of days, or undefined when the business keeps applications (absent, null, malformed). */
export function retentionDaysOf(value: unknown): number | undefined {
  return typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= MIN_RETENTION_DAYS &&
    value <= MAX_RETENTION_DAYS
    ? value
    : undefined;
}

/** The first instant that is not due: an application is due when updated_at is strictly before it. */
export const retentionCutoff = (nowMs: number, days: number): number => nowMs - days * DAY_MS;

/** Whether an application last written at `updatedAt` is due for erasure at `cutoffMs`. */
export const isDue = (updatedAt: string, cutoffMs: number): boolean => Date.parse(updatedAt) < cutoffMs;

/** What erasing one application of a retention batch found. */
export type RetentionOutcome =
  | { readonly kind: 'erased' }
  /** Already gone: another run or a DELETE erased it (not counted). */
  | { readonly kind: 'gone' }
  /** Not due; `updatePosition` is where the record is in the order of writes now. */
  | { readonly kind: 'kept'; readonly updatePosition: number };

/**
 * Whether the walk along the order of writes (updated_at ascending) can stop
 * at an application that was not due: only if it still sits where the walk
 * saw it. Every later position was written later, so nothing after it is due.
 * One that a concurrent PUT moved to the end says nothing about its old neighbours.
 */
export const endsWalk = (outcome: RetentionOutcome, seenAt: number): boolean =>
  outcome.kind === 'kept' && outcome.updatePosition === seenAt;

/** The businesses of a run, starting at a different one each day so a long first business cannot starve the rest. */
export function runOrder<T>(businesses: readonly T[], nowMs: number): T[] {
  if (businesses.length === 0) return [];
  const start = Math.floor(nowMs / DAY_MS) % businesses.length;
  return [...businesses.slice(start), ...businesses.slice(0, start)];
}

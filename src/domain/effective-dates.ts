/**
 * Effective dates (contract §26): which days an effective-date run has to
 * write, and what a day changes of an employee's derived job fields (§4). Pure:
 * the caller supplies the days, the jobs and what the employee item records of
 * its last write.
 *
 * A day's changes come only from jobs that start that day or ended the day
 * before: deriveJobFields depends on the day only through `from <= day`,
 * `day <= to` and `from > day`, which flip exactly there.
 */
import { deriveJobFields, todayIn, type DerivedJobFields, type JobSpan } from './job-dates';

/** The employee fields derived from the jobs and the day (the ones an effective-date entry may name). */
export const DERIVED_JOB_FIELDS: readonly (keyof DerivedJobFields)[] = Object.keys(
  deriveJobFields([], '2000-01-01'),
).sort() as (keyof DerivedJobFields)[];

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The calendar day `n` days after `day` (before, for a negative n). */
export function addDays(day: string, n: number): string {
  const m = DAY.exec(day);
  if (!m) throw new RangeError(`not a day: ${day}`);
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + n));
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`day out of range: ${day} + ${n}`);
  return `${String(year).padStart(4, '0')}-${date.toISOString().slice(5, 10)}`;
}

/**
 * The days a run at `today` writes, in order: those after `through` (the last
 * day done) up to `today`; only `today` for a business never run before; none
 * when `through` is today or later (a run told it is earlier than one before).
 */
export function daysToRun(through: string | undefined, today: string): string[] {
  if (through === undefined) return [today];
  const days: string[] = [];
  for (let day = addDays(through, 1); day <= today; day = addDays(day, 1)) days.push(day);
  return days;
}

/** What an employee item records of its last write (`effective_*`: set by effective-date writes only). */
export interface LastWrite {
  /** updated_at of the last write (ISO 8601). */
  readonly updatedAt: string;
  /** The day of the last effective-date write. */
  readonly effectiveDay: string | undefined;
  /** The updated_at that effective-date write set. */
  readonly effectiveAt: string | undefined;
}

/**
 * The day whose derived fields the employee's last feed entry shows: the day
 * of its last effective-date write if that was the last write, else the
 * business day of its last write (every write's entry shows that day's
 * derived fields), or the later effective day if there is one.
 */
export function shownDay(last: LastWrite, timezone: string): string {
  if (last.effectiveDay !== undefined && last.effectiveAt === last.updatedAt) return last.effectiveDay;
  const written = todayIn(timezone, new Date(last.updatedAt));
  return last.effectiveDay !== undefined && last.effectiveDay > written ? last.effectiveDay : written;
}

/**
 * The derived fields that `day` changes for an employee whose last entry
 * shows `shown`, sorted; empty when that day changes none, or is already
 * shown (`day <= shown`: a write on or after that day, or an earlier run).
 */
export function effectiveChanges(jobs: readonly JobSpan[], shown: string, day: string): string[] {
  if (day <= shown) return [];
  const before = deriveJobFields(jobs, shown);
  const after = deriveJobFields(jobs, day);
  return DERIVED_JOB_FIELDS.filter((field) => before[field] !== after[field]);
}

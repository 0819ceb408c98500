/**
 * Effective dates (contract §26): when a day begins in a business's timezone,
 * each employee whose derived job fields (§4) that day changes gets a system
 * write: its updated_at and version move and the feed gets one
 * `employee.updated` entry naming the derived fields that changed, made by
 * `{"type": "system", "name": "effective_date"}` (webhooks deliver it like any
 * entry). Run by the scheduled function (functions/apply-effective-dates.ts),
 * `npm start` (startLocalEffectiveDates) and `npm run admin -- effective run`.
 *
 * Finding them: the employees of jobs that start that day or ended the day
 * before, by key in the day indexes (src/data/entities/employee.ts
 * `startingOn`, `endingOn`; docs/decisions/028): a run costs in proportion to
 * those employees, not to the business.
 *
 * Exactly once per employee and day: an employee's write is conditioned on the
 * version read and records the day it wrote (`effective_day`) and the
 * updated_at it set, so a run that finds the day already shown (written by
 * another run, or by a request on or after that day, whose entry showed that
 * day's fields) writes nothing. A business's registry entry records the last
 * day done (`effective_through`) once every employee of it is written; a run
 * that crashed, or one that finds days missed, does the days after it in order.
 * So runs may repeat, overlap or stop anywhere.
 *
 * A day's entry shows the employee with that day's derived fields (as
 * `GET /employees/{id}?as_of=<day>` does): a run that catches up missed days
 * writes one entry per day, oldest first, and the last one matches today's GET.
 */
import { inCallScope } from '../data/dynamo/call-scope';
import {
  markEffectiveThrough,
  readBusinessConfig,
  readRegistry,
  type RegisteredBusiness,
} from '../data/business-store';
import {
  effectiveDateWrite,
  lastWriteOf,
  readEmployeesChangingOn,
  readForEffectiveWrite,
} from '../data/employee-store';
import { feedAppendWrites, type NewFeedEntry } from '../data/feed-store';
import type { Item } from '../data/dynamo/table-io';
import { transactWrite, type TxWrite } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';
import { runWithOrigin } from '../data/write-origin';
import { EFFECTIVE_DATE_ORIGIN } from '../domain/audit';
import type { BusinessConfig } from '../domain/business';
import { laneOf } from '../domain/change-feed';
import { addDays, daysToRun, effectiveChanges, shownDay } from '../domain/effective-dates';
import { todayIn } from '../domain/job-dates';
import { employeeView, jobSpansOf } from './employees';

/** The scheduled function: its DynamoDB calls are checked against WORKER_GRANTS of src/http/grants.ts. */
export const EFFECTIVE_JOB_NAME = 'apply-effective-dates';

/** Runs `run` with its DynamoDB calls attributed to the effective-date job (Lambda, tests). */
export const asEffectiveJob = <T>(run: () => Promise<T>): Promise<T> => inCallScope(EFFECTIVE_JOB_NAME, run);

/**
 * Employees of one feed lane written in one transaction: each takes its Update and its entry's Put, the lane one
 * counter Update, well within DynamoDB's 100 items; a concurrent writer of one of them re-runs the group.
 */
const GROUP_SIZE = 25;

export interface EffectiveRun {
  /** What time it is (admin `--now`): each business's days up to its date at this instant. */
  readonly nowMs: number;
  /** Only this business (admin `--business`). */
  readonly businessId?: string;
  /** Epoch ms after which no new group starts (Lambda: its remaining time less a margin). */
  readonly deadline?: number;
  /** After each day of a business is done. */
  readonly onDay?: (progress: { businessId: string; day: string; updated: number }) => void;
}

export interface EffectiveResult {
  /** Employees written (entries appended) by this run, all businesses and days. */
  readonly updated: number;
  /** False when the deadline stopped the run before every due day was done. */
  readonly complete: boolean;
}

/** A run that stopped on an error after writing `updated`; the next run resumes (the days after effective_through). */
export class EffectiveRunFailed extends Error {
  constructor(
    readonly updated: number,
    cause: unknown,
  ) {
    super(
      `effective-date run failed after ${updated} updated: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'EffectiveRunFailed';
  }
}

/** Its writes' feed entries name the effective-date job (contract §20, §26), whoever started the run. */
export const runEffectiveDates = (run: EffectiveRun): Promise<EffectiveResult> =>
  runWithOrigin(EFFECTIVE_DATE_ORIGIN, () => applyDue(run));

async function applyDue(run: EffectiveRun): Promise<EffectiveResult> {
  const outOfTime = (): boolean => run.deadline !== undefined && Date.now() >= run.deadline;
  const tally = { updated: 0 };
  // A business that fails (a fault its retries did not absorb, a broken config) does not hold up the others: the
  // run goes on and fails at its end, so the alarm still says so and the next run tries that business again.
  let failure: { error: unknown } | undefined;
  const registered = await readRegistry(run.businessId).catch((error: unknown) => {
    throw new EffectiveRunFailed(0, error);
  });
  for (const business of registered) {
    try {
      if (!(await applyBusiness(business, run, tally, outOfTime))) return { updated: tally.updated, complete: false };
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw new EffectiveRunFailed(tally.updated, failure.error);
  return { updated: tally.updated, complete: true };
}

/** The days of one business not done yet, in order; false when the deadline stopped it. */
async function applyBusiness(
  business: RegisteredBusiness,
  run: EffectiveRun,
  tally: { updated: number },
  outOfTime: () => boolean,
): Promise<boolean> {
  const { businessId } = business;
  // Read once a day of it has an employee to write (most runs of most businesses read nothing but the registry).
  let config: Promise<BusinessConfig> | undefined;
  const configOnce = (): Promise<BusinessConfig> => (config ??= readBusinessConfig(businessId));
  const timezone = business.timezone ?? (await configOnce()).timezone;
  for (const day of daysToRun(business.effectiveThrough, todayIn(timezone, new Date(run.nowMs)))) {
    const before = tally.updated;
    const ids = await readEmployeesChangingOn(businessId, day, addDays(day, -1));
    for (const group of laneGroups(ids)) {
      if (outOfTime()) return false;
      const cfg = await configOnce();
      tally.updated += await withRetries(() => writeGroup(businessId, cfg, day, group));
    }
    await markEffectiveThrough(businessId, day);
    run.onDay?.({ businessId, day, updated: tally.updated - before });
  }
  return true;
}

/** The ids by feed lane (an employee's entries go to its lane), in groups of at most GROUP_SIZE. */
function laneGroups(ids: readonly string[]): { lane: number; ids: string[] }[] {
  const byLane = new Map<number, string[]>();
  for (const id of ids) {
    const lane = laneOf('employee', id);
    byLane.set(lane, [...(byLane.get(lane) ?? []), id]);
  }
  return [...byLane].flatMap(([lane, all]) =>
    Array.from({ length: Math.ceil(all.length / GROUP_SIZE) }, (_, i) => ({
      lane,
      ids: all.slice(i * GROUP_SIZE, (i + 1) * GROUP_SIZE),
    })),
  );
}

/**
 * One group's writes from one BatchGetItem (the employees and their lane's counter): each employee whose last
 * entry does not show `day` yet and whose derived fields `day` changes. Returns how many were written.
 */
async function writeGroup(
  businessId: string,
  config: BusinessConfig,
  day: string,
  group: { lane: number; ids: readonly string[] },
): Promise<number> {
  const { employees, feed } = await readForEffectiveWrite(businessId, group.ids, group.lane);
  const writes: TxWrite[] = [];
  const entries: NewFeedEntry[] = [];
  for (const stored of employees) {
    const change = effectiveChange(stored, config, day);
    if (!change) continue;
    writes.push(effectiveDateWrite(businessId, change.employee, day));
    entries.push(change.entry);
  }
  if (entries.length === 0) return 0;
  await transactWrite([...writes, ...feedAppendWrites(businessId, feed, entries)]);
  return entries.length;
}

/** The write of one employee as read, or undefined when `day` changes nothing it does not already show. */
function effectiveChange(
  stored: Item | undefined,
  config: BusinessConfig,
  day: string,
): { employee: { id: string; version: number; updatedAt: string }; entry: NewFeedEntry } | undefined {
  if (!stored) return undefined;
  const last = lastWriteOf(stored);
  const changed = effectiveChanges(jobSpansOf(stored), shownDay(last, config.timezone), day);
  if (changed.length === 0) return undefined;
  const id = String(stored.id);
  const version = Number(stored.version ?? 1);
  // Never backwards: a clock behind the last write's still moves updated_at on.
  const updatedAt = new Date(Math.max(Date.now(), Date.parse(last.updatedAt) + 1 || 0)).toISOString();
  const data = employeeView({ ...stored, version: version + 1, updated_at: updatedAt }, config, day);
  return {
    employee: { id, version, updatedAt },
    entry: { type: 'employee.updated', id, occurred_at: updatedAt, data, changed_fields: changed },
  };
}

/**
 * `npm start`'s effective-date runs: one now and one every `intervalMs`, never two at once (a run that is still
 * going skips the tick). Returns the function that stops it and waits for a run in progress.
 */
export function startLocalEffectiveDates(
  intervalMs = 60_000,
  onError: (error: unknown) => void = (error) => console.error('effective-date run:', error),
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running) return;
    running = runEffectiveDates({ nowMs: Date.now() })
      .then(() => undefined, onError)
      .finally(() => (running = undefined));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/**
 * Access patterns of employees and employee jobs. Services decide; this module
 * names every read and every transaction item they use, so the key layout and
 * the conditions that make concurrent writers safe live in one place.
 *
 * Items:
 * - employee `B#<bid>#employee#<id>`/`R`: public fields as top-level attributes
 *   (a PUT sets only the attributes it changes), `version`, `job_count`,
 *   `job_summary` (job id -> dates and references of that job: the derived
 *   fields are computed from it at read time, without a query over the jobs),
 *   its position in the business list (src/data/entities/employee.ts).
 * - employee job `B#<bid>#employee_job#<id>`/`R`: fields top-level, its business
 *   list position and its position within its employee's jobs.
 * - counters `employees`, `employee_jobs`: `n` (dense list length) and
 *   `last_created_at`, so created_at order equals list position order.
 * - unique `employee_number` values: `owner` = employee id.
 */
import type { BusinessConfig } from '../domain/business';
import { nextCreatedAt as nextAfterLast } from '../domain/application-pages';
import { configOf, requireConfig } from './business-store';
import { keys, type Key } from './keys';
import { business } from './entities/business';
import { employee as employeeEntity, employeeJob } from './entities/employee';
import { appendToList } from './list-counter';
import { readPositions } from './list-store';
import { feedCounterKey, feedLaneCounterKey, feedLaneStateAt, feedLaneStateOf, type FeedLaneState } from './feed-store';
import { batchGet, type Item } from './table-io';
import { carries, exists, type TxWrite } from './transact-write';
import { IF_ABSENT, IF_PRESENT } from './entities/entity';
import { updateOf } from './update-expression';

export const EMPLOYEE_LIST = employeeEntity.list;
export const EMPLOYEE_JOB_LIST = employeeJob.list;
const EMPLOYEE_NUMBER = employeeEntity.numberField;

/** A dense list's counter as read: its length and the created_at of its last entry (null before the first). */
export interface CounterState {
  readonly n: number;
  readonly lastCreatedAt: string | null;
}

const counterStateOf = (item: Item | undefined): CounterState => ({
  n: Number(item?.n ?? 0),
  lastCreatedAt: typeof item?.last_created_at === 'string' ? item.last_created_at : null,
});

/**
 * The created_at of the next entry: now, but strictly after the previous
 * entry's, so ordering by created_at (contract §7) equals position order
 * (src/domain/application-pages.ts; application writes follow it through their reservation).
 */
export const nextCreatedAt = (counter: CounterState, now = Date.now()): string =>
  nextAfterLast(now, counter.lastCreatedAt);

// ---------------------------------------------------------------------------
// Reads (each one BatchGetItem round trip)
// ---------------------------------------------------------------------------

export interface EmployeeWriteContext {
  readonly config: BusinessConfig;
  /** The employee being updated or the job's employee, when asked for. */
  readonly employee: Item | undefined;
  /** The owner record of the requested employee_number, if that value is taken. */
  readonly numberOwner: Item | undefined;
  /** The supervisor employee, when asked for. */
  readonly supervisor: Item | undefined;
  /** The stored first response of the Idempotency-Key, when asked for. */
  readonly idempotency: Item | undefined;
  /** The counter of the list the write appends to, when asked for. */
  readonly counter: CounterState;
  /** The write's lane of the change feed (every write appends to it in its transaction). */
  readonly feed: FeedLaneState;
  /** The lane of each candidate id, when asked for (a new employee chooses among them). */
  readonly candidateFeeds: readonly FeedLaneState[];
}

/**
 * Everything a create or update needs, in one BatchGetItem: business config,
 * the employee, the employee_number's unique item, the supervisor, the
 * idempotency record, the list counter and the change feed's employees lane
 * (or lanes: a new employee's candidate ids).
 */
export async function readForEmployeeWrite(
  businessId: string,
  wanted: {
    employeeId?: string;
    employeeNumber?: string;
    supervisorId?: string;
    idempotencyKey?: Key;
    counter?: typeof EMPLOYEE_LIST | typeof EMPLOYEE_JOB_LIST;
    /** The record whose change-feed lane the write appends to (a job's changes go to its employee's lane). */
    feedRecordId: string;
    /** More ids a new record may take instead: their lanes are read too. */
    feedCandidateIds?: readonly string[];
  },
): Promise<EmployeeWriteContext> {
  const slots: Record<string, Key> = { config: business.configKey(businessId) };
  if (wanted.employeeId !== undefined) slots.employee = employeeEntity.key(businessId, wanted.employeeId);
  if (wanted.employeeNumber !== undefined)
    slots.unique = keys.unique(businessId, EMPLOYEE_NUMBER, wanted.employeeNumber);
  if (wanted.supervisorId !== undefined) slots.supervisor = employeeEntity.key(businessId, wanted.supervisorId);
  if (wanted.idempotencyKey) slots.idempotency = wanted.idempotencyKey;
  if (wanted.counter) slots.counter = keys.counter(businessId, wanted.counter);
  slots.feed = feedCounterKey(businessId, 'employee', wanted.feedRecordId);
  const candidates = wanted.feedCandidateIds ?? [];
  candidates.forEach((id, i) => (slots[`candidate${i}`] = feedCounterKey(businessId, 'employee', id)));
  const names = Object.keys(slots);
  const items = await batchGet(Object.values(slots));
  const got = (name: string): Item | undefined => items[names.indexOf(name)];
  return {
    config: requireConfig(configOf(got('config')), businessId),
    employee: got('employee'),
    numberOwner: got('unique'),
    supervisor: got('supervisor'),
    idempotency: got('idempotency'),
    counter: counterStateOf(got('counter')),
    feed: feedLaneStateOf('employee', wanted.feedRecordId, got('feed')),
    candidateFeeds: candidates.map((id, i) => feedLaneStateOf('employee', id, got(`candidate${i}`))),
  };
}

/** What a chunk of employee creates reads (a bulk import): config, list counter, one feed lane, number owners. */
export interface EmployeeChunkContext {
  readonly config: BusinessConfig;
  readonly counter: CounterState;
  readonly feed: FeedLaneState;
  /** The owner (record id) of each taken employee_number among those asked for. */
  readonly numberOwners: ReadonlyMap<string, string>;
}

/**
 * Everything a chunk of employee creates needs, in one BatchGetItem (parts
 * of 100 keys at once): config, the employees list counter, the counter of
 * the feed lane every new employee of the chunk takes, the unique items of
 * the employee_numbers, and `more` keys the caller reads with them (a bulk
 * import's external ids), in their order.
 */
export async function readForEmployeeCreates(
  businessId: string,
  wanted: { lane: number; employeeNumbers: readonly string[]; more?: readonly Key[] },
): Promise<EmployeeChunkContext & { more: (Item | undefined)[] }> {
  const numbers = [...new Set(wanted.employeeNumbers)];
  const more = wanted.more ?? [];
  const items = await batchGet([
    business.configKey(businessId),
    keys.counter(businessId, EMPLOYEE_LIST),
    feedLaneCounterKey(businessId, wanted.lane),
    ...more,
    ...numbers.map((n) => keys.unique(businessId, EMPLOYEE_NUMBER, n)),
  ]);
  const [config, counter, feed] = items;
  const numberOwners = new Map<string, string>();
  items.slice(3 + more.length).forEach((item, i) => {
    if (item) numberOwners.set(numbers[i] ?? '', String(item.owner));
  });
  return {
    config: requireConfig(configOf(config), businessId),
    counter: counterStateOf(counter),
    feed: feedLaneStateAt(wanted.lane, feed),
    numberOwners,
    more: items.slice(3, 3 + more.length),
  };
}

/** The counter once `employees` appended by createEmployeesWrites are committed. */
export const counterAfter = (counter: CounterState, employees: readonly NewEmployee[]): CounterState => {
  const last = employees[employees.length - 1];
  return last ? { n: counter.n + employees.length, lastCreatedAt: last.createdAt } : counter;
};

/** A single record with the business config: one BatchGetItem. */
export async function readRecordWithConfig(
  businessId: string,
  kind: 'employee' | 'employee_job',
  id: string,
): Promise<{ config: BusinessConfig; record: Item | undefined }> {
  const [config, record] = await batchGet([business.configKey(businessId), keys.record(businessId, kind, id)]);
  return { config: requireConfig(configOf(config), businessId), record };
}

/**
 * A page of a list together with the config and the list length. The page's
 * key range does not depend on the total, so the Query and the BatchGetItem
 * go out at once (two calls, one round-trip latency).
 */
export async function readListPage(
  businessId: string,
  list: { kind: 'employee' | 'employee_job' } | { jobsOfEmployee: string },
  range: { first: number; last: number } | null,
): Promise<{ config: BusinessConfig; total: number; items: Item[] }> {
  const countKey =
    'kind' in list
      ? keys.counter(businessId, list.kind === 'employee' ? EMPLOYEE_LIST : EMPLOYEE_JOB_LIST)
      : employeeEntity.key(businessId, list.jobsOfEmployee);
  const [[config, countItem], items] = await Promise.all([
    batchGet([business.configKey(businessId), countKey]),
    !range
      ? Promise.resolve([])
      : 'kind' in list
        ? readPositions(
            (list.kind === 'employee' ? employeeEntity : employeeJob).patterns.byPosition,
            { businessId },
            {
              from: range.first,
              to: range.last,
            },
          )
        : readPositions(
            employeeJob.patterns.byEmployee,
            { businessId, employeeId: list.jobsOfEmployee },
            { from: range.first, to: range.last },
          ),
  ]);
  // An employee's job list is as long as its job_count; the business lists have counters.
  const total = 'kind' in list ? counterStateOf(countItem).n : Number(countItem?.job_count ?? 0);
  return { config: requireConfig(configOf(config), businessId), total, items };
}

// ---------------------------------------------------------------------------
// Writes (transaction items)
// ---------------------------------------------------------------------------

/** The condition failure of an employee_number unique item: the value is taken. */
export type TakenError = () => Error | 'retry';

function claimEmployeeNumber(businessId: string, value: string, ownerId: string, taken: TakenError): TxWrite {
  return {
    item: {
      Put: {
        Item: { ...keys.unique(businessId, EMPLOYEE_NUMBER, value), owner: ownerId, field: EMPLOYEE_NUMBER, value },
        ConditionExpression: `${IF_ABSENT} OR #owner = :owner`,
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': ownerId },
      },
    },
    onConditionFailed: () => taken(),
  };
}

function releaseEmployeeNumber(businessId: string, value: string, ownerId: string): TxWrite {
  return {
    item: {
      Delete: {
        Key: keys.unique(businessId, EMPLOYEE_NUMBER, value),
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': ownerId },
      },
    },
    onConditionFailed: () => 'retry',
  };
}

/** A new employee as its create writes it: `fields` are the public fields. */
export interface NewEmployee {
  readonly id: string;
  readonly createdAt: string;
  readonly fields: Record<string, unknown>;
  readonly employeeNumber: string | null;
}

/**
 * Creating an employee: the list position (counter), the record, the
 * employee_number claim; all or nothing.
 */
export function createEmployeeWrites(
  businessId: string,
  counter: CounterState,
  employee: NewEmployee,
  taken: TakenError,
): TxWrite[] {
  return createEmployeesWrites(businessId, counter, [employee], taken);
}

/**
 * Creating a chunk of employees in one transaction (a bulk import): they take
 * the next positions in the order given with one counter write
 * (`appendToList`), each its record and employee_number claim. Their
 * created_at must increase along the chunk (nextCreatedAt from the one before).
 */
export function createEmployeesWrites(
  businessId: string,
  counter: CounterState,
  employees: readonly NewEmployee[],
  taken: TakenError,
): TxWrite[] {
  const last = employees[employees.length - 1];
  if (!last) return [];
  const writes: TxWrite[] = [
    appendToList(employeeEntity.counter(businessId), counter.n, employees.length, { last_created_at: last.createdAt }),
  ];
  employees.forEach((employee, i) => {
    writes.push({
      item: {
        Put: {
          Item: employeeEntity.newItem(businessId, employee, counter.n + 1 + i),
          ConditionExpression: IF_ABSENT,
        },
      },
      onConditionFailed: () => 'retry',
      confirms: exists,
    });
    if (employee.employeeNumber !== null)
      writes.push(claimEmployeeNumber(businessId, employee.employeeNumber, employee.id, taken));
  });
  return writes;
}

/**
 * A partial update of an employee: sets exactly `changes`, bumps version and
 * updated_at, conditioned on the version that was read (a concurrent write
 * makes it fail: `onStale` says whether to re-run or answer 412). A changed
 * employee_number releases the old unique item and claims the new one.
 */
export function updateEmployeeWrites(
  businessId: string,
  employee: { id: string; version: number; updatedAt: string },
  changes: Record<string, unknown>,
  number: { from: string | null; to: string | null } | undefined,
  handlers: { taken: TakenError; onStale: () => Error | 'retry' },
): TxWrite[] {
  const writes: TxWrite[] = [
    {
      item: {
        Update: {
          Key: employeeEntity.key(businessId, employee.id),
          ...updateOf(
            { set: { ...changes, updated_at: employee.updatedAt }, add: { version: 1 } },
            { expression: `${IF_PRESENT} AND version = :v`, values: { ':v': employee.version } },
          ),
        },
      },
      onConditionFailed: handlers.onStale,
      confirms: carries(employee.version + 1, employee.updatedAt),
    },
  ];
  if (number && number.from !== number.to) {
    if (number.from !== null) writes.push(releaseEmployeeNumber(businessId, number.from, employee.id));
    if (number.to !== null) writes.push(claimEmployeeNumber(businessId, number.to, employee.id, handlers.taken));
  }
  return writes;
}

/** What the employee item keeps of each of its jobs (contract §4 derived fields). */
export interface StoredJobSpan {
  readonly seq: number;
  readonly from: string;
  readonly to: string | null;
  readonly supervisor_id: string | null;
  readonly location_id: string | null;
  readonly department_id: string | null;
}

/**
 * Creating a job: its business list position (counter), its position among
 * the employee's jobs (job_count, conditioned), the job summary on the
 * employee (which moves the employee's updated_at and version), the job record,
 * and a check that the supervisor still exists.
 */
export function createEmployeeJobWrites(
  businessId: string,
  counter: CounterState,
  employee: { id: string; jobCount: number; version: number; updatedAt: string },
  job: { id: string; createdAt: string; fields: Record<string, unknown>; span: StoredJobSpan },
  supervisor: { id: string; missing: () => Error } | undefined,
): TxWrite[] {
  const writes: TxWrite[] = [
    appendToList(employeeJob.counter(businessId), counter.n, 1, { last_created_at: job.createdAt }),
    {
      item: {
        Update: {
          Key: employeeEntity.key(businessId, employee.id),
          ...updateOf(
            {
              set: [
                [['job_summary', job.id], job.span],
                ['job_count', employee.jobCount + 1],
                ['updated_at', employee.updatedAt],
              ],
              add: { version: 1 },
            },
            // The version too: the change feed records the employee as read plus this job, so nothing else may have moved it.
            {
              expression: `${IF_PRESENT} AND job_count = :count AND version = :v`,
              values: { ':count': employee.jobCount, ':v': employee.version },
            },
          ),
        },
      },
      onConditionFailed: () => 'retry',
    },
    {
      item: {
        Put: {
          Item: employeeJob.newItem(businessId, employee.id, job, { position: counter.n + 1, seq: job.span.seq }),
          ConditionExpression: IF_ABSENT,
        },
      },
      onConditionFailed: () => 'retry',
      confirms: exists,
    },
  ];
  if (supervisor) {
    writes.push({
      item: {
        ConditionCheck: {
          Key: employeeEntity.key(businessId, supervisor.id),
          ConditionExpression: IF_PRESENT,
        },
      },
      onConditionFailed: () => supervisor.missing(),
    });
  }
  return writes;
}

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
 *   list position and its position within its employee's jobs (dense: 1..job_count).
 * - the business lists `employees`, `employee_jobs`: positions and created_at
 *   reserved per business before the transaction (`employees-sequence`,
 *   `employee_jobs-sequence`: `reserveEntries`), the entries placed in their
 *   list in the transaction with no condition (`placeInList`), so position
 *   order = created_at order and concurrent creates never refuse each other on
 *   a list; a reservation whose create does not commit is a hole. The list
 *   engine (src/data/lists, docs/pagination.md) does both.
 * - unique `employee_number` values: `owner` = employee id.
 */
import type { BusinessConfig } from '../domain/business';
import { configOf, requireConfig } from './business-store';
import { keys, type Key } from './dynamo/keys';
import { business } from './entities/business';
import { employee as employeeEntity, employeeJob } from './entities/employee';
import { placeInList, readPage, readPositions, reserveEntries, type Reservation } from './lists';
import {
  feedCounterKey,
  feedLaneCounterKey,
  feedLaneStateAt,
  feedLaneStateOf,
  readKindLanes,
  type FeedLaneState,
} from './feed-store';
import { laneOf, laneOfTicket } from '../domain/change-feed';
import type { LastWrite } from '../domain/effective-dates';
import { batchGet, queryAll, readWithAlong, type Item, type ReadAlong } from './dynamo/table-io';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { carries, exists, type TxWrite } from './dynamo/transact-write';
import { IF_ABSENT, IF_PRESENT, partitionQuery, sortOf } from './entities/entity';
import { updateOf } from './dynamo/update-expression';

const EMPLOYEE_NUMBER = employeeEntity.numberField;

/** The kinds whose creates take a position in their business list. */
export type ListedKind = 'employee' | 'employee_job';
const entityOf = (kind: ListedKind) => (kind === 'employee' ? employeeEntity : employeeJob);

/**
 * Reserves the positions and created_at of `count` creates of `kind` in the
 * business list (one UpdateItem, no transaction, no condition on the count):
 * the i-th create takes `position + i` and `ms + i`.
 */
export const reserveListPositions = (businessId: string, kind: ListedKind, count: number): Promise<Reservation> =>
  reserveEntries(businessId, entityOf(kind).sequence, count, 0);

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
  /** The position and created_at reserved for a create in its business list, when asked for. */
  readonly reserved: Reservation | undefined;
  /**
   * The write's lane of the change feed (every write appends to it in its
   * transaction): its record's lane, or for a new employee the lane its
   * reserved position takes (laneOfTicket), whose id the service picks there.
   */
  readonly feed: FeedLaneState;
}

/**
 * Everything a create or update needs, in one BatchGetItem: business config,
 * the employee, the employee_number's unique item, the supervisor, the
 * idempotency record and the change feed's lane of the write (a new
 * employee: every employee lane, as its lane is known only with its
 * position); beside it, a create's reservation of its list position (unless
 * an earlier run of the same operation holds one).
 */
export async function readForEmployeeWrite(
  businessId: string,
  wanted: {
    employeeId?: string;
    employeeNumber?: string;
    supervisorId?: string;
    idempotencyKey?: Key;
    /** A create: the list it takes a position in, and the reservation an earlier run of it holds. */
    reserve?: { readonly kind: ListedKind; readonly held: Reservation | undefined };
    /**
     * The record whose change-feed lane the write appends to (a job's changes go to its employee's lane);
     * absent for a new employee (`reserve.kind` 'employee'), whose reserved position picks its lane.
     */
    feedRecordId?: string;
  },
): Promise<EmployeeWriteContext> {
  const { reserve, feedRecordId } = wanted;
  if (feedRecordId === undefined && reserve?.kind !== 'employee')
    throw new Error('readForEmployeeWrite: a feed record id, unless creating an employee');
  const slots: Record<string, Key> = { config: business.configKey(businessId) };
  if (wanted.employeeId !== undefined) slots.employee = employeeEntity.key(businessId, wanted.employeeId);
  if (wanted.employeeNumber !== undefined)
    slots.unique = keys.unique(businessId, EMPLOYEE_NUMBER, wanted.employeeNumber);
  if (wanted.supervisorId !== undefined) slots.supervisor = employeeEntity.key(businessId, wanted.supervisorId);
  if (wanted.idempotencyKey) slots.idempotency = wanted.idempotencyKey;
  const names = Object.keys(slots);
  // A new employee's lane is picked by the position reserved beside this read: it reads every employee lane.
  const feedKeys = feedRecordId === undefined ? [] : [feedCounterKey(businessId, 'employee', feedRecordId)];
  const [items, lanes, reserved] = await Promise.all([
    batchGet([...Object.values(slots), ...feedKeys]),
    feedRecordId === undefined ? readKindLanes(businessId, 'employee') : [],
    reserve ? (reserve.held ?? reserveListPositions(businessId, reserve.kind, 1)) : undefined,
  ]);
  const got = (name: string): Item | undefined => items[names.indexOf(name)];
  const feeds = items.slice(names.length);
  return {
    config: requireConfig(configOf(got('config')), businessId),
    employee: got('employee'),
    numberOwner: got('unique'),
    supervisor: got('supervisor'),
    idempotency: got('idempotency'),
    reserved,
    feed:
      feedRecordId === undefined
        ? (lanes.find((f) => f.lane === laneOfTicket('employee', (reserved as Reservation).position)) as FeedLaneState)
        : feedLaneStateOf('employee', feedRecordId, feeds[0]),
  };
}

/** What a chunk of employee creates reads (a bulk import): config, one feed lane, number owners. */
export interface EmployeeChunkContext {
  readonly config: BusinessConfig;
  readonly feed: FeedLaneState;
  /** The owner (record id) of each taken employee_number among those asked for. */
  readonly numberOwners: ReadonlyMap<string, string>;
}

/**
 * Everything a chunk of employee creates needs, in one BatchGetItem (parts
 * of 100 keys at once): config, the counter of
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
    feedLaneCounterKey(businessId, wanted.lane),
    ...more,
    ...numbers.map((n) => keys.unique(businessId, EMPLOYEE_NUMBER, n)),
  ]);
  const [config, feed] = items;
  const numberOwners = new Map<string, string>();
  items.slice(2 + more.length).forEach((item, i) => {
    if (item) numberOwners.set(numbers[i] ?? '', String(item.owner));
  });
  return {
    config: requireConfig(configOf(config), businessId),
    feed: feedLaneStateAt(wanted.lane, feed),
    numberOwners,
    more: items.slice(2, 2 + more.length),
  };
}

/** What a chunk of job creates reads (a bulk import): config, the jobs' employees and supervisors, their feed lanes. */
export interface JobChunkContext {
  readonly config: BusinessConfig;
  /** The employees asked for that exist, by id. */
  readonly employees: ReadonlyMap<string, Item>;
  /** The supervisors asked for that exist. */
  readonly supervisors: ReadonlySet<string>;
  /** The change-feed lane of each employee asked for (a job's entries go to its employee's lane). */
  readonly feeds: ReadonlyMap<number, FeedLaneState>;
}

/**
 * Everything a chunk of job creates needs, in one BatchGetItem (parts of
 * 100 keys at once): config, the jobs' employees, their supervisors, and
 * the feed lane counter of each employee (one per lane).
 */
export async function readForEmployeeJobCreates(
  businessId: string,
  wanted: { employeeIds: readonly string[]; supervisorIds: readonly string[] },
): Promise<JobChunkContext> {
  const employeeIds = [...new Set(wanted.employeeIds)];
  const supervisorIds = [...new Set(wanted.supervisorIds)];
  const lanes = [...new Set(employeeIds.map((id) => laneOf('employee', id)))];
  const items = await batchGet([
    business.configKey(businessId),
    ...employeeIds.map((id) => employeeEntity.key(businessId, id)),
    ...supervisorIds.map((id) => employeeEntity.key(businessId, id)),
    ...lanes.map((lane) => feedLaneCounterKey(businessId, lane)),
  ]);
  const at = (i: number): Item | undefined => items[i];
  const employees = new Map<string, Item>();
  employeeIds.forEach((id, i) => {
    const item = at(1 + i);
    if (item) employees.set(id, item);
  });
  const supervisors = new Set(supervisorIds.filter((_, i) => at(1 + employeeIds.length + i) !== undefined));
  const first = 1 + employeeIds.length + supervisorIds.length;
  return {
    config: requireConfig(configOf(at(0)), businessId),
    employees,
    supervisors,
    feeds: new Map(lanes.map((lane, i) => [lane, feedLaneStateAt(lane, at(first + i))])),
  };
}

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
 * A page of the business's employees or jobs (a list with holes, read by the
 * list engine's `readPage`, docs/pagination.md), or of one employee's jobs: that
 * list is dense (1..job_count, the employee item counts it), so the employee
 * item and the config (and `along`, a read's token) go out beside the page's
 * Query and its records follow (2 round trips).
 */
export async function readListPage(
  businessId: string,
  list: { kind: ListedKind } | { jobsOfEmployee: string },
  page: PageRequest,
  along?: ReadAlong,
): Promise<{ config: BusinessConfig; total: number; items: Item[] }> {
  if ('kind' in list) return readPage(businessId, entityOf(list.kind).listOf(businessId), page, {}, { along });
  const range = pagePositions(page, Number.MAX_SAFE_INTEGER);
  const [[config, employee], items] = await Promise.all([
    readWithAlong(
      batchGet,
      [business.configKey(businessId), employeeEntity.key(businessId, list.jobsOfEmployee)],
      along,
    ),
    range
      ? readPositions(
          employeeJob.patterns.byEmployee,
          { businessId, employeeId: list.jobsOfEmployee },
          { from: range.first, to: range.last },
        )
      : Promise.resolve([]),
  ]);
  return { config: requireConfig(configOf(config), businessId), total: Number(employee?.job_count ?? 0), items };
}

/**
 * The employees whose derived job fields may change when `day` begins (contract §26): those with a job starting
 * on `day` or one whose last day is the day before, each once, in id order. Two Queries of the keys-only day
 * indexes, as many pages as that day has such jobs: nothing else of the business is read.
 */
export async function readEmployeesChangingOn(businessId: string, day: string, dayBefore: string): Promise<string[]> {
  const { startingOn, endingOn } = employeeJob.patterns;
  const [starting, ending] = await Promise.all([
    queryAll(partitionQuery(startingOn, { businessId, day })),
    queryAll(partitionQuery(endingOn, { businessId, day: dayBefore })),
  ]);
  const ids = new Set([
    ...starting.map((item) => String(sortOf(startingOn, item))),
    ...ending.map((item) => String(sortOf(endingOn, item))),
  ]);
  return [...ids].sort();
}

/** What an effective-date write of some employees of one feed lane reads: them and the lane's counter (one BatchGetItem). */
export async function readForEffectiveWrite(
  businessId: string,
  employeeIds: readonly string[],
  lane: number,
): Promise<{ employees: (Item | undefined)[]; feed: FeedLaneState }> {
  const items = await batchGet([
    ...employeeIds.map((id) => employeeEntity.key(businessId, id)),
    feedLaneCounterKey(businessId, lane),
  ]);
  return { employees: items.slice(0, employeeIds.length), feed: feedLaneStateAt(lane, items[employeeIds.length]) };
}

/** What a stored employee records of its last write, for the effective-date run (src/domain/effective-dates.ts). */
export function lastWriteOf(item: Item): LastWrite {
  const { day, at } = employeeEntity.effectiveAttributes;
  return {
    updatedAt: String(item.updated_at),
    effectiveDay: typeof item[day] === 'string' ? item[day] : undefined,
    effectiveAt: typeof item[at] === 'string' ? item[at] : undefined,
  };
}

/**
 * An effective-date write of an employee (contract §26): updated_at and version move, and the employee records the
 * day written and that updated_at; conditioned on the version read, so of two runs (or a run and a request) one
 * writes and the other re-reads.
 */
export function effectiveDateWrite(
  businessId: string,
  employee: { readonly id: string; readonly version: number; readonly updatedAt: string },
  day: string,
): TxWrite {
  const { day: dayAttribute, at } = employeeEntity.effectiveAttributes;
  return {
    item: {
      Update: {
        Key: employeeEntity.key(businessId, employee.id),
        ...updateOf(
          {
            set: { updated_at: employee.updatedAt, [dayAttribute]: day, [at]: employee.updatedAt },
            add: { version: 1 },
          },
          { expression: `${IF_PRESENT} AND version = :v`, values: { ':v': employee.version } },
        ),
      },
    },
    onConditionFailed: () => 'retry',
    confirms: carries(employee.version + 1, employee.updatedAt),
  };
}

// ---------------------------------------------------------------------------
// Writes (transaction items)
// ---------------------------------------------------------------------------

/** Creates at consecutive reserved positions from `first` on in a list without statuses: placeInList's items. */
const placeCreated = (
  businessId: string,
  list: string,
  first: number,
  created: readonly { readonly createdAt: string }[],
): TxWrite[] =>
  placeInList(
    businessId,
    list,
    first,
    created.map((c) => ({ code: 0, createdAtMs: Date.parse(c.createdAt) })),
  );

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
 * Creating employees (one, or a bulk import's chunk) in one transaction at
 * the positions reserved for them from `first` on (reserveListPositions), in
 * the order given: each its record and employee_number claim, all of them
 * placed in the list (placeInList: a few list items, no condition).
 * Their created_at must be the reserved ones (reservedTime), so
 * created_at order is position order.
 */
export function createEmployeesWrites(
  businessId: string,
  first: number,
  employees: readonly NewEmployee[],
  taken: TakenError,
): TxWrite[] {
  if (!employees.length) return [];
  const writes = placeCreated(businessId, employeeEntity.list, first, employees);
  employees.forEach((employee, i) => {
    writes.push({
      item: {
        Put: {
          Item: employeeEntity.newItem(businessId, employee, first + i),
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

/** A new job as its create writes it: its employee, fields, span (its `seq` among the employee's jobs). */
export interface NewEmployeeJob {
  readonly id: string;
  readonly employeeId: string;
  readonly createdAt: string;
  readonly fields: Record<string, unknown>;
  readonly span: StoredJobSpan;
}

/** An employee that new jobs are added to: as read (`jobCount`, `version`), and its updated_at after them. */
export interface JobsEmployee {
  readonly id: string;
  readonly jobCount: number;
  readonly version: number;
  readonly updatedAt: string;
}

/**
 * Creating jobs (one, or a bulk import's chunk) in one transaction at the
 * business list positions reserved for them from `first` on, in the order
 * given: placed in the list (placeInList, no condition); each job's
 * record; per employee one Update adding its jobs' summaries (from which the
 * derived job dates are computed), job_count and version by their number and
 * the employee's updated_at, conditioned on the job_count and version read;
 * and a check that each supervisor still exists (none for an employee the
 * transaction updates: its Update's condition checks that, and a transaction
 * may not name an item twice).
 */
export function createEmployeeJobWrites(
  businessId: string,
  first: number,
  employees: readonly JobsEmployee[],
  jobs: readonly NewEmployeeJob[],
  supervisors: readonly { readonly id: string; readonly missing: () => Error }[],
): TxWrite[] {
  if (!jobs.length) return [];
  const writes = placeCreated(businessId, employeeJob.list, first, jobs);
  for (const employee of employees) {
    const own = jobs.filter((job) => job.employeeId === employee.id);
    writes.push({
      item: {
        Update: {
          Key: employeeEntity.key(businessId, employee.id),
          ...updateOf(
            {
              set: [
                ...own.map((job): [string[], StoredJobSpan] => [['job_summary', job.id], job.span]),
                ['job_count', employee.jobCount + own.length],
                ['updated_at', employee.updatedAt],
              ],
              add: { version: own.length },
            },
            // The version too: the change feed records the employee as read plus these jobs, so nothing else may have moved it.
            {
              expression: `${IF_PRESENT} AND job_count = :count AND version = :v`,
              values: { ':count': employee.jobCount, ':v': employee.version },
            },
          ),
        },
      },
      onConditionFailed: () => 'retry',
    });
  }
  jobs.forEach((job, i) =>
    writes.push({
      item: {
        Put: {
          Item: employeeJob.newItem(businessId, job.employeeId, job, { position: first + i, seq: job.span.seq }),
          ConditionExpression: IF_ABSENT,
        },
      },
      onConditionFailed: () => 'retry',
      confirms: exists,
    }),
  );
  const updated = new Set(employees.map((e) => e.id));
  const checked = new Set<string>();
  for (const supervisor of supervisors) {
    if (updated.has(supervisor.id) || checked.has(supervisor.id)) continue;
    checked.add(supervisor.id);
    writes.push({
      item: { ConditionCheck: { Key: employeeEntity.key(businessId, supervisor.id), ConditionExpression: IF_PRESENT } },
      onConditionFailed: () => supervisor.missing(),
    });
  }
  return writes;
}

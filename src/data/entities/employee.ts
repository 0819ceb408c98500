/**
 * The employee and employee job entities: item keys, lists and access
 * patterns. An employee sits in the business's employee list by position; a
 * job in the business's job list by position and in its employee's job list
 * by its sequence among that employee's jobs (the employee's `job_count`
 * counts that list). employee_number values are claimed by unique items.
 */
import { keys, lists, type Key } from '../dynamo/keys';
import { partitionOf, pattern, placeAt, recordBase, type MappedList } from './entity';
import { LIST } from './list-names';

type OfBusiness = { readonly businessId: string };
type OfEmployee = OfBusiness & { readonly employeeId: string };
type OfDay = OfBusiness & { readonly day: string };

const EMPLOYEE_NUMBER = 'employee_number';

const employeesByPosition = pattern<OfBusiness>(
  'list-keys',
  'position reserved per business (holes)',
  ({ businessId }) => lists.all(businessId, 'employee'),
);
/** Every employee of the business, by id, in its record partition (exports). */
const employeesById = pattern<OfBusiness>('table', 'employee id', ({ businessId }) =>
  keys.records(businessId, 'employee'),
);

export const employee = {
  entity: 'employee',
  key: (businessId: string, id: string): Key => keys.record(businessId, 'employee', id),
  patterns: { byPosition: employeesByPosition, byId: employeesById },
  list: LIST.employees,
  /** The business's reservation item of employee positions and creation times (src/data/lists/sequence.ts). */
  sequence: `${LIST.employees}-sequence`,
  /** GET /employees: the business list, positions reserved per business, holes where a create did not commit. */
  listOf: (businessId: string): MappedList => ({
    kind: 'mapped',
    list: LIST.employees,
    entries: partitionOf(employeesByPosition, { businessId }),
    wholeRange: false,
  }),
  /**
   * What an effective-date write (src/services/effective-dates.ts) records on the employee: the day it wrote and
   * the updated_at it set, so the next run knows which day the employee's last feed entry shows.
   */
  effectiveAttributes: { day: 'effective_day', at: 'effective_at' },
  /** The unique item that holds an employee_number for its owner. */
  numberKey: (businessId: string, value: string): Key => keys.unique(businessId, EMPLOYEE_NUMBER, value),
  numberField: EMPLOYEE_NUMBER,
  indexKeys: (businessId: string, position: number): Record<string, string | number> =>
    placeAt(employeesByPosition, { businessId }, position),
  /**
   * A new employee's item at `position`: its public fields as top-level
   * attributes, no jobs yet (`job_count`, `job_summary`, moved by each job create).
   */
  newItem: (
    businessId: string,
    e: { readonly id: string; readonly createdAt: string; readonly fields: Readonly<Record<string, unknown>> },
    position: number,
  ): Record<string, unknown> => ({
    ...recordBase(businessId, 'employee', e.id),
    ...e.fields,
    id: e.id,
    created_at: e.createdAt,
    updated_at: e.createdAt,
    version: 1,
    job_count: 0,
    job_summary: {},
    ...placeAt(employeesByPosition, { businessId }, position),
  }),
} as const;

const jobsByPosition = pattern<OfBusiness>('list-keys', 'position reserved per business (holes)', ({ businessId }) =>
  lists.all(businessId, 'employee_job'),
);
/** Every employee job of the business, by id, in its record partition (exports). */
const jobsById = pattern<OfBusiness>('table', 'employee job id', ({ businessId }) =>
  keys.records(businessId, 'employee_job'),
);
const jobsByEmployee = pattern<OfEmployee>(
  'sublist-keys',
  "position among the employee's jobs 1..job_count",
  ({ businessId, employeeId }) => lists.jobsOfEmployee(businessId, employeeId),
);

/**
 * The jobs that start on a day and those whose last day is a day, by their employee (keys only): the employees whose
 * derived job fields may change when a day begins (src/services/effective-dates.ts). A job's dates never change
 * after its create, which writes both entries (an open-ended job has no end entry).
 */
const jobsStartingOn = pattern<OfDay>('jobstart-keys', 'employee id', ({ businessId, day }) =>
  lists.jobsByDay(businessId, 'from', day),
);
const jobsEndingOn = pattern<OfDay>('jobend-keys', 'employee id', ({ businessId, day }) =>
  lists.jobsByDay(businessId, 'to', day),
);

export const employeeJob = {
  entity: 'employee_job',
  key: (businessId: string, id: string): Key => keys.record(businessId, 'employee_job', id),
  patterns: {
    byPosition: jobsByPosition,
    byEmployee: jobsByEmployee,
    byId: jobsById,
    startingOn: jobsStartingOn,
    endingOn: jobsEndingOn,
  },
  list: LIST.employeeJobs,
  /** The business's reservation item of job positions and creation times (src/data/lists/sequence.ts). */
  sequence: `${LIST.employeeJobs}-sequence`,
  /** GET /employee_jobs: the business list, positions reserved per business (an employee's own list stays dense). */
  listOf: (businessId: string): MappedList => ({
    kind: 'mapped',
    list: LIST.employeeJobs,
    entries: partitionOf(jobsByPosition, { businessId }),
    wholeRange: false,
  }),
  indexKeys: (
    businessId: string,
    employeeId: string,
    at: { readonly position: number; readonly seq: number },
  ): Record<string, string | number> => ({
    ...placeAt(jobsByPosition, { businessId }, at.position),
    ...placeAt(jobsByEmployee, { businessId, employeeId }, at.seq),
  }),
  /** The entries of a job under the day it starts and the day it ends (none for an open end). */
  dayKeys: (businessId: string, employeeId: string, from: string, to: string | null): Record<string, string> => ({
    ...(placeAt(jobsStartingOn, { businessId, day: from }, employeeId) as Record<string, string>),
    ...(to === null ? {} : (placeAt(jobsEndingOn, { businessId, day: to }, employeeId) as Record<string, string>)),
  }),
  /**
   * A new job's item: its fields top-level, at its business position and its sequence among the employee's jobs,
   * and under the days it starts and ends.
   */
  newItem: (
    businessId: string,
    employeeId: string,
    job: { readonly id: string; readonly createdAt: string; readonly fields: Readonly<Record<string, unknown>> },
    at: { readonly position: number; readonly seq: number },
  ): Record<string, unknown> => ({
    ...recordBase(businessId, 'employee_job', job.id),
    ...job.fields,
    id: job.id,
    created_at: job.createdAt,
    updated_at: job.createdAt,
    version: 1,
    ...employeeJob.indexKeys(businessId, employeeId, at),
    ...employeeJob.dayKeys(businessId, employeeId, String(job.fields.from), (job.fields.to as string | null) ?? null),
  }),
} as const;

import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import { changedFields } from '../domain/audit';
import {
  createEmployeeJobWrites,
  readForEmployeeJobCreates,
  readForEmployeeWrite,
  readListPage,
  readRecordWithConfig,
  reserveListPositions,
  type JobChunkContext,
  type JobsEmployee,
  type NewEmployeeJob,
  type StoredJobSpan,
} from '../data/employee-store';
import { feedAppendWrites, type FeedLaneState, type NewFeedEntry } from '../data/feed-store';
import { reservedTime, type Reservation } from '../data/lists';
import { idempotentCreate } from '../data/idempotency';
import type { RequestContext } from './request-context';
import { MAX_TRANSACTION_ITEMS } from '../data/dynamo/transact-write';
import { laneOf } from '../domain/change-feed';
import { createChunk, type ChunkHooks, type ChunkOutcome, type CreateRow } from './create-chunk';
import { todayIn } from '../domain/job-dates';
import { employeeView, lastShownView } from './employees';
import type { Item, ReadAlong } from '../data/dynamo/table-io';
import type { BusinessConfig } from '../domain/business';
import { renderCustomFields, validateCustomFields } from '../domain/custom-fields';
import type { PageRequest } from '../domain/pagination';
import { FieldError, HttpError, MESSAGES, notFound, type FieldErrorCollector } from '../domain/errors';
import { created, etagOf, ok, type ApiResult } from '../domain/result';
import { EMPLOYEE_JOB_WRITABLE_FIELDS } from '../schemas/employees';

export type Body = Record<string, unknown>;
type Report = (field: string, message: string) => void;

/** Parallel job creations for one employee race for its job_count; each round lets one through. */
const JOB_WRITE_ATTEMPTS = 40;

export const employeeJobLocation = (id: string): string => `${API_PREFIX}/employee_jobs/${encodeURIComponent(id)}`;

// ---------------------------------------------------------------------------
// Pure rules
// ---------------------------------------------------------------------------

/** What the references of a job resolve to, as read in the request's one BatchGetItem. */
export interface JobReferences {
  readonly employeeId: string | undefined;
  /** The supervisor_id sent names an employee of this business. */
  readonly supervisorExists: boolean;
}

/**
 * The fields of a new job from a schema-checked body (every fixed field, null
 * where not given) with the business-dependent checks reported: departments,
 * locations and the supervisor must exist in the business, the supervisor is
 * not the job's own employee, `to` is not before `from`, custom fields.
 */
export function jobFields(
  body: Body,
  config: BusinessConfig,
  refs: JobReferences,
  report: Report,
  failed: (field: string) => boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of EMPLOYEE_JOB_WRITABLE_FIELDS) out[field] = body[field] ?? null;
  const ok = (field: string): boolean => !failed(field) && out[field] !== null;

  if (ok('department_id') && !config.department_ids.includes(out.department_id as string))
    report('department_id', MESSAGES.missingReference);
  if (ok('location_id') && !config.location_ids.includes(out.location_id as string))
    report('location_id', MESSAGES.missingReference);
  if (ok('supervisor_id')) {
    if (out.supervisor_id === refs.employeeId) report('supervisor_id', MESSAGES.invalid);
    else if (!refs.supervisorExists) report('supervisor_id', MESSAGES.missingReference);
  }
  if (ok('from') && ok('to') && (out.to as string) < (out.from as string)) report('to', MESSAGES.toBeforeFrom);

  const custom: Body = {};
  for (const [key, value] of Object.entries(body)) if (/^cf_/.test(key)) custom[key] = value;
  Object.assign(out, validateCustomFields(config.employee_job_fields, custom, 'create', report));
  return out;
}

/** The public form of a stored job (seed-api.md field order). */
export function employeeJobView(item: Item, config: BusinessConfig): Record<string, unknown> {
  return {
    id: item.id,
    ...Object.fromEntries(EMPLOYEE_JOB_WRITABLE_FIELDS.map((f) => [f, item[f] ?? null])),
    ...renderCustomFields(config.employee_job_fields, item),
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

// ---------------------------------------------------------------------------
// Use cases
// ---------------------------------------------------------------------------

/** What a new job changes: its 201, the employee after it, both feed entries (the job's, then the employee's). */
interface JobCreated {
  readonly result: ApiResult;
  readonly job: NewEmployeeJob;
  /** The employee as the job leaves it (the next job of the same employee in a chunk starts from it). */
  readonly employeeAfter: Item;
  readonly entries: readonly NewFeedEntry[];
}

/**
 * A new job `id` of `employee` (as stored, or as the jobs before it in the
 * same transaction leave it) created at `createdAt`: its span on the employee
 * (the next seq of its own list), the employee's job summary, job_count,
 * version and updated_at after it (never backwards), and both changes for the
 * feed, in commit order.
 */
function jobCreated(
  config: BusinessConfig,
  employee: Item,
  id: string,
  createdAt: string,
  fields: Record<string, unknown>,
): JobCreated {
  const employeeId = String(employee.id);
  const jobCount = Number(employee.job_count ?? 0);
  const employeeUpdatedAt = new Date(
    Math.max(Date.parse(createdAt), Date.parse(String(employee.updated_at)) + 1 || 0),
  ).toISOString();
  const span: StoredJobSpan = {
    seq: jobCount + 1,
    from: fields.from as string,
    to: (fields.to as string | null) ?? null,
    supervisor_id: (fields.supervisor_id as string | null) ?? null,
    location_id: (fields.location_id as string | null) ?? null,
    department_id: (fields.department_id as string | null) ?? null,
  };
  const item: Item = { ...fields, id, created_at: createdAt, updated_at: createdAt };
  const result = created(employeeJobView(item, config), employeeJobLocation(id), { ETag: etagOf(id, 1) });
  const employeeAfter: Item = {
    ...employee,
    job_summary: { ...((employee.job_summary as Record<string, unknown> | undefined) ?? {}), [id]: span },
    job_count: jobCount + 1,
    version: Number(employee.version ?? 1) + 1,
    updated_at: employeeUpdatedAt,
  };
  const today = todayIn(config.timezone);
  const employeeAfterView = employeeView(employeeAfter, config, today);
  return {
    result,
    job: { id, employeeId, createdAt, fields, span },
    employeeAfter,
    entries: [
      { type: 'employee_job.created', id, occurred_at: createdAt, data: result.body },
      {
        type: 'employee.updated',
        id: employeeId,
        occurred_at: employeeUpdatedAt,
        data: employeeAfterView,
        changed_fields: changedFields(lastShownView(employee, config, today), employeeAfterView),
      },
    ],
  };
}

/** An employee as read, with its updated_at as the jobs a transaction adds leave it (`after`). */
const jobsEmployee = (before: Item, after: Item): JobsEmployee => ({
  id: String(before.id),
  jobCount: Number(before.job_count ?? 0),
  version: Number(before.version ?? 1),
  updatedAt: String(after.updated_at),
});

/** A body's employee_id and supervisor_id to look up: those its schema check passed (a supervisor other than the employee). */
function jobRefsOf(body: Body, fieldErrors: FieldErrorCollector): { employeeId?: string; supervisorId?: string } {
  const employeeId =
    typeof body.employee_id === 'string' && !fieldErrors.has('employee_id') ? body.employee_id : undefined;
  const supervisorId =
    typeof body.supervisor_id === 'string' && !fieldErrors.has('supervisor_id') && body.supervisor_id !== employeeId
      ? body.supervisor_id
      : undefined;
  return { employeeId, supervisorId };
}

/**
 * The checks of POST /employee_jobs against what was read: the job's fields,
 * or the request's FieldError with everything `fieldErrors` collected; a
 * well-formed body whose employee_id names no employee of this business: 404.
 */
function checkedNewJob(
  body: Body,
  fieldErrors: FieldErrorCollector,
  config: BusinessConfig,
  employeeId: string | undefined,
  found: { readonly employee: Item | undefined; readonly supervisorExists: boolean },
): { fields: Record<string, unknown>; employee: Item } {
  const fields = jobFields(
    body,
    config,
    { employeeId, supervisorExists: found.supervisorExists },
    (f, m) => fieldErrors.add(f, m),
    (f) => fieldErrors.has(f),
  );
  fieldErrors.throwIfAny();
  if (!employeeId || !found.employee) throw notFound('employee', String(body.employee_id));
  return { fields, employee: found.employee };
}

const supervisorMissing = (): FieldError => new FieldError(422, { supervisor_id: [MESSAGES.missingReference] });

/**
 * POST /employee_jobs: one BatchGetItem (config, employee, supervisor,
 * idempotency record, feed lane) with the reservation of its business list
 * position and created_at beside it, the checks, one transaction (its count
 * in the list's summary and map, employee summary + job_count, job record,
 * supervisor check, idempotency, feed entries).
 *
 * Field errors come first (422, all at once); a well-formed body whose
 * employee_id names no employee of this business is a 404 naming that id.
 */
export async function createEmployeeJob(
  context: RequestContext,
  body: Body,
  fieldErrors: FieldErrorCollector,
): Promise<ApiResult> {
  const { businessId } = context;
  const idem = context.idempotency(body);
  const { employeeId, supervisorId } = jobRefsOf(body, fieldErrors);
  const id = randomUUID();
  let held: Reservation | undefined;
  return idempotentCreate(
    idem,
    // A re-run (the employee moved, the lane moved) keeps the position reserved by the first run.
    async (recordKey) => {
      const read = await readForEmployeeWrite(businessId, {
        employeeId,
        supervisorId,
        idempotencyKey: recordKey,
        reserve: { kind: 'employee_job', held },
        // The job's entries go to its employee's lane: one counter, and the employee's changes stay in order.
        feedRecordId: employeeId ?? id,
      });
      held = read.reserved;
      return read;
    },
    (ctx) => {
      const { config } = ctx;
      const { fields, employee } = checkedNewJob(body, fieldErrors, config, employeeId, {
        employee: ctx.employee,
        supervisorExists: ctx.supervisor !== undefined,
      });
      const reserved = ctx.reserved as Reservation;
      const made = jobCreated(config, employee, id, reservedTime(reserved), fields);
      const writes = createEmployeeJobWrites(
        businessId,
        reserved.position,
        [jobsEmployee(employee, made.employeeAfter)],
        [made.job],
        supervisorId ? [{ id: supervisorId, missing: supervisorMissing }] : [],
      );
      writes.push(...feedAppendWrites(businessId, ctx.feed, made.entries));
      return { result: made.result, writes };
    },
    JOB_WRITE_ATTEMPTS,
  );
}

/**
 * The most bodies of one createEmployeeJobs chunk: each takes up to 7
 * transaction items (job record, its employee's Update, its supervisor's
 * check, its two feed entries, its employee's feed lane counter, and a bulk
 * import's external id), the chunk 4 more (the list's 3 items for the
 * chunk's entries, docs/pagination.md "Positions, holes and position maps";
 * the import's result item), within DynamoDB's 100. Bodies of one employee share its Update and lane,
 * but the limit counts each body's own.
 */
export const EMPLOYEE_JOB_CHUNK = Math.floor((MAX_TRANSACTION_ITEMS - 4) / 7);

/**
 * POST /employee_jobs for a chunk of bodies (a bulk import; at most
 * EMPLOYEE_JOB_CHUNK unless dry; src/services/create-chunk.ts): each checked
 * exactly as its single POST, in order, against one BatchGetItem (config,
 * the bodies' employees and supervisors, their employees' feed lanes); the
 * k that pass are created in one transaction at k business list positions
 * reserved in one UpdateItem. Bodies of one employee follow each other as
 * single creates would (its job list 1..job_count, derived job dates,
 * updated_at, version, one `employee.updated` entry per job), each employee
 * updated once, conditioned on what was read: a concurrent job create for it
 * makes the chunk re-run from the read (keeping its reservation). Each body's
 * outcome, in order: the job's id (dry: of the job it would be), its
 * FieldError, or the 404 of an employee_id that names no employee.
 */
export async function createEmployeeJobs(
  businessId: string,
  rows: readonly CreateRow[],
  hooks: ChunkHooks,
): Promise<ChunkOutcome[]> {
  if (!hooks.dryRun && rows.length > EMPLOYEE_JOB_CHUNK)
    throw new Error(`createEmployeeJobs: ${rows.length} bodies in one transaction`);
  const ids = rows.map(() => randomUUID());
  const refs = rows.map((row) => jobRefsOf(row.body, row.fieldErrors));
  type Passed = { readonly id: string; readonly fields: Record<string, unknown>; readonly employeeId: string };
  const done = await createChunk<JobChunkContext, Passed>({
    hooks,
    attempts: JOB_WRITE_ATTEMPTS,
    read: () =>
      readForEmployeeJobCreates(businessId, {
        employeeIds: refs.flatMap((r) => (r.employeeId === undefined ? [] : [r.employeeId])),
        supervisorIds: refs.flatMap((r) => (r.supervisorId === undefined ? [] : [r.supervisorId])),
      }),
    check: (ctx) => {
      const passed: Passed[] = [];
      const outcomes = rows.map((row, i): ChunkOutcome => {
        const { employeeId, supervisorId } = refs[i] ?? {};
        try {
          const { fields } = checkedNewJob(row.body, row.fieldErrors.copy(), ctx.config, employeeId, {
            employee: employeeId === undefined ? undefined : ctx.employees.get(employeeId),
            supervisorExists: supervisorId !== undefined && ctx.supervisors.has(supervisorId),
          });
          passed.push({ id: ids[i] ?? '', fields, employeeId: employeeId ?? '' });
          return ids[i] ?? '';
        } catch (error) {
          if (error instanceof FieldError || error instanceof HttpError) return error;
          throw error;
        }
      });
      return { outcomes, passed };
    },
    reserve: (count) => reserveListPositions(businessId, 'employee_job', count),
    writes: (ctx, passed, reserved, now) => {
      // Each employee as the jobs before this one leave it; each lane's entries in commit order.
      const current = new Map(ctx.employees);
      const made = passed.map((p, i) => {
        const job = jobCreated(
          ctx.config,
          current.get(p.employeeId) as Item,
          p.id,
          reservedTime(reserved, i),
          p.fields,
        );
        current.set(p.employeeId, job.employeeAfter);
        return job;
      });
      const employees = [...new Set(passed.map((p) => p.employeeId))].map((id) =>
        jobsEmployee(ctx.employees.get(id) as Item, current.get(id) as Item),
      );
      const byLane = new Map<number, NewFeedEntry[]>();
      for (const job of made) {
        const lane = laneOf('employee', job.job.employeeId);
        byLane.set(lane, [...(byLane.get(lane) ?? []), ...job.entries]);
      }
      return [
        ...createEmployeeJobWrites(
          businessId,
          reserved.position,
          employees,
          made.map((m) => m.job),
          passed.flatMap((p) => {
            const supervisor = p.fields.supervisor_id;
            return typeof supervisor === 'string' ? [{ id: supervisor, missing: supervisorMissing }] : [];
          }),
        ),
        ...[...byLane].flatMap(([lane, entries]) =>
          feedAppendWrites(businessId, ctx.feeds.get(lane) as FeedLaneState, entries, now),
        ),
      ];
    },
  });
  return done.outcomes;
}

/** GET /employee_jobs/{id}: config and record in one BatchGetItem. */
export async function showEmployeeJob(businessId: string, id: string): Promise<ApiResult> {
  const { config, record } = await readRecordWithConfig(businessId, 'employee_job', id);
  if (!record) throw notFound('employee_job', id);
  return ok(employeeJobView(record, config), { ETag: etagOf(id, Number(record.version ?? 1)) });
}

/**
 * GET /employee_jobs[?employee_id=]: the business-wide job list, or one
 * employee's jobs (its own dense list, same order). An employee_id that names
 * no employee of this business is a filter that matches nothing: an empty page.
 */
export async function listEmployeeJobs(
  businessId: string,
  page: PageRequest,
  employeeId: string | undefined,
  along?: ReadAlong,
) {
  const { config, total, items } = await readListPage(
    businessId,
    employeeId === undefined ? { kind: 'employee_job' } : { jobsOfEmployee: employeeId },
    page,
    along,
  );
  return { entries: items.map((item) => employeeJobView(item, config)), total };
}

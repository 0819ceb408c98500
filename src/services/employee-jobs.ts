import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import { changedFields } from '../domain/audit';
import {
  createEmployeeJobWrites,
  readForEmployeeWrite,
  readListPage,
  readRecordWithConfig,
  type StoredJobSpan,
} from '../data/employee-store';
import { feedAppendWrites } from '../data/feed-store';
import { dryReservation, reservedTime, type Reservation } from '../data/list-sequence';
import { idempotencyOf, idempotentCreate, type RequestTarget } from '../data/idempotency';
import type { WriteHooks } from '../data/transact-write';
import { todayIn } from '../domain/job-dates';
import { employeeView } from './employees';
import type { Item } from '../data/table-io';
import type { BusinessConfig } from '../domain/business';
import { renderCustomFields, validateCustomFields } from '../domain/custom-fields';
import type { PageRequest } from '../domain/pagination';
import { FieldError, MESSAGES, notFound, type FieldErrorCollector } from '../domain/errors';
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
  businessId: string,
  body: Body,
  fieldErrors: FieldErrorCollector,
  idempotencyKey: string | undefined,
  target: RequestTarget,
  hooks?: WriteHooks,
): Promise<ApiResult> {
  const idem = idempotencyOf(businessId, idempotencyKey, body, target);
  const employeeId =
    typeof body.employee_id === 'string' && !fieldErrors.has('employee_id') ? body.employee_id : undefined;
  const supervisorId =
    typeof body.supervisor_id === 'string' && !fieldErrors.has('supervisor_id') && body.supervisor_id !== employeeId
      ? body.supervisor_id
      : undefined;
  const id = randomUUID();
  // Validating (a bulk import's validate mode) writes nothing, a reservation neither: the job is never sent.
  let held: Reservation | undefined = hooks?.dryRun ? dryReservation() : undefined;
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
      const fields = jobFields(
        body,
        config,
        { employeeId, supervisorExists: ctx.supervisor !== undefined },
        (f, m) => fieldErrors.add(f, m),
        (f) => fieldErrors.has(f),
      );
      fieldErrors.throwIfAny();
      if (!employeeId || !ctx.employee) throw notFound('employee', String(body.employee_id));

      const reserved = ctx.reserved as Reservation;
      const createdAt = reservedTime(reserved);
      const jobCount = Number(ctx.employee.job_count ?? 0);
      const employeeVersion = Number(ctx.employee.version ?? 1);
      // The job's creation moves the employee's updated_at, never backwards.
      const employeeUpdatedAt = new Date(
        Math.max(Date.parse(createdAt), Date.parse(String(ctx.employee.updated_at)) + 1 || 0),
      ).toISOString();
      const span: StoredJobSpan = {
        seq: jobCount + 1,
        from: fields.from as string,
        to: (fields.to as string | null) ?? null,
        supervisor_id: (fields.supervisor_id as string | null) ?? null,
        location_id: (fields.location_id as string | null) ?? null,
        department_id: (fields.department_id as string | null) ?? null,
      };
      const writes = createEmployeeJobWrites(
        businessId,
        reserved.position,
        { id: employeeId, jobCount, version: employeeVersion, updatedAt: employeeUpdatedAt },
        { id, createdAt, fields, span },
        supervisorId
          ? {
              id: supervisorId,
              missing: () => new FieldError(422, { supervisor_id: [MESSAGES.missingReference] }),
            }
          : undefined,
      );
      const item: Item = { ...fields, id, created_at: createdAt, updated_at: createdAt };
      const result = created(employeeJobView(item, config), employeeJobLocation(id), { ETag: etagOf(id, 1) });
      // The employee changes too (job summary, derived fields, updated_at): both changes, in commit order.
      const employeeAfter: Item = {
        ...ctx.employee,
        job_summary: { ...((ctx.employee.job_summary as Record<string, unknown> | undefined) ?? {}), [id]: span },
        job_count: jobCount + 1,
        version: employeeVersion + 1,
        updated_at: employeeUpdatedAt,
      };
      const today = todayIn(config.timezone);
      const employeeAfterView = employeeView(employeeAfter, config, today);
      writes.push(
        ...feedAppendWrites(businessId, ctx.feed, [
          { type: 'employee_job.created', id, occurred_at: createdAt, data: result.body },
          {
            type: 'employee.updated',
            id: employeeId,
            occurred_at: employeeUpdatedAt,
            data: employeeAfterView,
            changed_fields: changedFields(employeeView(ctx.employee, config, today), employeeAfterView),
          },
        ]),
      );
      return { result, writes };
    },
    JOB_WRITE_ATTEMPTS,
    hooks,
  );
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
export async function listEmployeeJobs(businessId: string, page: PageRequest, employeeId: string | undefined) {
  const { config, total, items } = await readListPage(
    businessId,
    employeeId === undefined ? { kind: 'employee_job' } : { jobsOfEmployee: employeeId },
    page,
  );
  return { entries: items.map((item) => employeeJobView(item, config)), total };
}

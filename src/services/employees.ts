import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import {
  createEmployeesWrites,
  readForEmployeeCreates,
  reserveListPositions,
  type EmployeeChunkContext,
  type NewEmployee,
  readForEmployeeWrite,
  readListPage,
  readRecordWithConfig,
  updateEmployeeWrites,
  lastWriteOf,
  type StoredJobSpan,
} from '../data/employee-store';
import { feedAppendWrites, feedLaneStateAfter, type NewFeedEntry } from '../data/feed-store';
import { dryReservation, reservedTime, type Reservation } from '../data/lists';
import { idsInLane } from '../domain/change-feed';
import { changedFields } from '../domain/audit';
import { idempotentCreate } from '../data/idempotency';
import type { RequestContext } from './request-context';
import type { Item, ReadAlong } from '../data/dynamo/table-io';
import { MAX_TRANSACTION_ITEMS, commitWrite, type WriteHooks } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';
import { createChunk, type ChunkHooks, type ChunkOutcome, type CreateRow } from './create-chunk';
import { preferredLanguage, type BusinessConfig } from '../domain/business';
import { renderCustomFields, validateCustomFields } from '../domain/custom-fields';
import { normalizeIban } from '../domain/formats';
import { deriveJobFields, todayIn, type JobSpan } from '../domain/job-dates';
import { shownDay } from '../domain/effective-dates';
import type { PageRequest } from '../domain/pagination';
import { FieldError, MESSAGES, notFound, preconditionFailed, type FieldErrorCollector } from '../domain/errors';
import { created, etagOf, ifMatchAllows, ok, type ApiResult } from '../domain/result';
import { EMPLOYEE_WRITABLE_FIELDS } from '../schemas/employees';

export type Body = Record<string, unknown>;
type Report = (field: string, message: string) => void;

/** Optimistic writes of one employee race with job creations for it; each round lets one writer through. */
const EMPLOYEE_WRITE_ATTEMPTS = 40;

export const employeeLocation = (id: string): string => `${API_PREFIX}/employees/${encodeURIComponent(id)}`;

// ---------------------------------------------------------------------------
// Pure rules
// ---------------------------------------------------------------------------

/** employee_number as stored: trimmed; blank means none. */
export function normalizeEmployeeNumber(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * The attributes a create or update writes, from a schema-checked body: the
 * business-dependent checks (locale, status, birthday in the business's today,
 * custom fields) report into `report`, fields that already failed the schema
 * are not checked again. On create every fixed field gets a value (null where
 * not given, defaults for language and status); on update only the keys sent.
 */
export function employeeChanges(
  body: Body,
  config: BusinessConfig,
  mode: 'create' | 'update',
  today: string,
  report: Report,
  failed: (field: string) => boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of EMPLOYEE_WRITABLE_FIELDS) {
    if (!(field in body)) {
      if (mode === 'create') out[field] = null;
      continue;
    }
    if (failed(field)) continue;
    const value = body[field] ?? null;
    switch (field) {
      case 'language':
        if (value !== null && !(config.locales as string[]).includes(value as string))
          report(field, MESSAGES.inclusion);
        break;
      case 'employee_status_id':
        if (value !== null && !config.employee_status_ids.includes(value as string))
          report(field, MESSAGES.missingReference);
        break;
      case 'birthday':
        if (value !== null && (value as string) > today) report(field, MESSAGES.invalid);
        break;
    }
    out[field] = normalizeEmployeeField(field, value);
  }
  // Defaults: absent on create, or null (cleared) on either.
  if (mode === 'create' || 'language' in out) out.language ??= preferredLanguage(config);
  if (mode === 'create' || 'employee_status_id' in out) out.employee_status_id ??= config.default_employee_status_id;

  const custom: Body = {};
  for (const [key, value] of Object.entries(body)) if (/^cf_/.test(key)) custom[key] = value;
  Object.assign(out, validateCustomFields(config.employee_fields, custom, mode, report));
  return out;
}

function normalizeEmployeeField(field: string, value: unknown): unknown {
  if (value === null) return null;
  switch (field) {
    case 'iban':
      return normalizeIban(value as string);
    case 'swift':
      return (value as string).toUpperCase();
    case 'employee_number':
      return normalizeEmployeeNumber(value);
    default:
      return value;
  }
}

/** The job spans kept on the employee item, as the derivation wants them. */
export function jobSpansOf(item: Item): JobSpan[] {
  const summary = (item.job_summary ?? {}) as Record<string, StoredJobSpan>;
  return Object.entries(summary).map(([id, span]) => ({
    id,
    seq: Number(span.seq),
    from: span.from,
    to: span.to ?? null,
    supervisor_id: span.supervisor_id ?? null,
    location_id: span.location_id ?? null,
    department_id: span.department_id ?? null,
  }));
}

/** The public form of a stored employee (seed-api.md field order), derived fields as of `today`. */
export function employeeView(item: Item, config: BusinessConfig, today: string): Record<string, unknown> {
  const derived = deriveJobFields(jobSpansOf(item), today);
  const fixed = (field: string): unknown => item[field] ?? null;
  return {
    id: item.id,
    employee_status_id: fixed('employee_status_id'),
    supervisor_id: derived.supervisor_id,
    location_id: derived.location_id,
    department_id: derived.department_id,
    ...Object.fromEntries(EMPLOYEE_WRITABLE_FIELDS.filter((f) => f !== 'employee_status_id').map((f) => [f, fixed(f)])),
    has_active_employee_job: derived.has_active_employee_job,
    has_active_or_future_employee_job: derived.has_active_or_future_employee_job,
    first_employee_job_from: derived.first_employee_job_from,
    first_employee_job_to: derived.first_employee_job_to,
    last_employee_job_from: derived.last_employee_job_from,
    last_employee_job_to: derived.last_employee_job_to,
    current_employee_job_from: derived.current_employee_job_from,
    current_employee_job_to: derived.current_employee_job_to,
    current_or_last_employee_job_from: derived.current_or_last_employee_job_from,
    current_or_last_employee_job_to: derived.current_or_last_employee_job_to,
    ...renderCustomFields(config.employee_fields, item),
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

/**
 * The employee as its last feed entry showed it: derived fields as of the day that entry showed
 * (src/domain/effective-dates.ts `shownDay`, never after `today`). A write's `changed_fields` compares with this,
 * so the derived fields a day changed before the effective-date run got to the employee are named by the write.
 */
export function lastShownView(item: Item, config: BusinessConfig, today: string): Record<string, unknown> {
  const shown = shownDay(lastWriteOf(item), config.timezone);
  return employeeView(item, config, shown < today ? shown : today);
}

/** Stored attribute values compared as JSON: a PUT that changes nothing writes nothing. */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

const takenError = (): FieldError => new FieldError(422, { employee_number: [MESSAGES.taken] });

// ---------------------------------------------------------------------------
// Use cases
// ---------------------------------------------------------------------------

/**
 * POST /employees: one BatchGetItem (config, employee_number owner, idempotency
 * record, every employee feed lane) with the reservation of its list position
 * and created_at beside it, the checks, one transaction (record, its count in
 * the list's summary and map, employee_number claim, idempotency record, feed
 * entry).
 */
export async function createEmployee(
  context: RequestContext,
  body: Body,
  fieldErrors: FieldErrorCollector,
  hooks?: WriteHooks,
): Promise<ApiResult> {
  const { businessId } = context;
  const idem = context.idempotency(body);
  const number = fieldErrors.has('employee_number') ? undefined : normalizeEmployeeNumber(body.employee_number);
  // Validating (a bulk import's validate mode) writes nothing, a reservation neither.
  let held: Reservation | undefined = hooks?.dryRun ? dryReservation() : undefined;
  return idempotentCreate(
    idem,
    // A re-run keeps the position and created_at reserved by the first run: no new hole per re-run.
    async (recordKey) => {
      const read = await readForEmployeeWrite(businessId, {
        employeeNumber: number ?? undefined,
        idempotencyKey: recordKey,
        reserve: { kind: 'employee', held },
      });
      held = read.reserved;
      return read;
    },
    (read) => {
      // The business position picked the change-feed lane (read.feed), and the id is one that hashes there:
      // creates of one business take the lanes in turn, so they rarely append to the same lane at once
      // (docs/change-feed.md).
      const { feed } = read;
      const [id] = idsInLane('employee', feed.lane, 1, randomUUID) as [string];
      const { config } = read;
      const fields = checkedNewEmployee(body, fieldErrors, config, number ? read.numberOwner !== undefined : false);
      const reserved = read.reserved as Reservation;
      const createdAt = reservedTime(reserved);
      const writes = createEmployeesWrites(
        businessId,
        reserved.position,
        [{ id, createdAt, fields, employeeNumber: number ?? null }],
        takenError,
      );
      const { result, entry } = newEmployeeResult(fields, id, createdAt, config);
      writes.push(...feedAppendWrites(businessId, feed, [entry]));
      return { result, writes };
    },
    undefined,
    hooks,
  );
}

/**
 * The checks of POST /employees against the stored state read (config,
 * whether the employee_number is taken): the fields to store, or the
 * request's FieldError with everything `fieldErrors` collected.
 */
function checkedNewEmployee(
  body: Body,
  fieldErrors: FieldErrorCollector,
  config: BusinessConfig,
  numberTaken: boolean,
): Record<string, unknown> {
  const report: Report = (f, m) => fieldErrors.add(f, m);
  const fields = employeeChanges(body, config, 'create', todayIn(config.timezone), report, (f) => fieldErrors.has(f));
  if (numberTaken) report('employee_number', MESSAGES.taken);
  fieldErrors.throwIfAny();
  return fields;
}

/** A new employee's 201 and its `employee.created` feed entry. */
function newEmployeeResult(
  fields: Record<string, unknown>,
  id: string,
  createdAt: string,
  config: BusinessConfig,
): { result: ApiResult; entry: NewFeedEntry } {
  const item: Item = { ...fields, id, created_at: createdAt, updated_at: createdAt, version: 1, job_summary: {} };
  const result = created(employeeView(item, config, todayIn(config.timezone)), employeeLocation(id), {
    ETag: etagOf(id, 1),
  });
  return { result, entry: { type: 'employee.created', id, occurred_at: createdAt, data: result.body } };
}

/**
 * Where a chunk starts: the feed lane its new employees take, and the state
 * its first attempt may use instead of reading it (what an earlier chunk left
 * or a read sent ahead: a stale one fails a condition and the chunk re-runs
 * from a fresh read).
 */
export interface ChunkStart {
  readonly lane: number;
  readonly known?: EmployeeChunkContext;
}

/**
 * POST /employees for a chunk of bodies (a bulk import; at most
 * EMPLOYEE_CHUNK unless dry; src/services/create-chunk.ts): each checked
 * exactly as its single POST, in order (an employee_number an earlier body of
 * the chunk takes is taken for the later ones); the k that pass are created in
 * one transaction at k list positions reserved in one UpdateItem (no
 * condition, nothing a concurrent create can refuse) with ids of one feed
 * lane, so the lane's counter steps once (docs/decisions/012). One
 * BatchGetItem (none with `start.known`), one reservation, one transaction; a
 * concurrent writer that moved the lane or took a number makes it re-run from
 * the read. Each body's outcome, in order (its record's id, dry: of the record
 * it would be; or its FieldError), and the state the next chunk may start
 * from (the owners of this chunk's employee_numbers only).
 */
export async function createEmployees(
  businessId: string,
  rows: readonly CreateRow[],
  hooks: ChunkHooks,
  start: ChunkStart,
): Promise<{ outcomes: ChunkOutcome[]; after: EmployeeChunkContext }> {
  if (!hooks.dryRun && rows.length > EMPLOYEE_CHUNK)
    throw new Error(`createEmployees: ${rows.length} bodies in one transaction`);
  const ids = idsInLane('employee', start.lane, rows.length, randomUUID);
  const numbers = rows.map((row) =>
    row.fieldErrors.has('employee_number') ? undefined : normalizeEmployeeNumber(row.body.employee_number),
  );
  let known = start.known;
  type Passed = { id: string; fields: Record<string, unknown>; employeeNumber: string | null };
  const entriesOf = (ctx: EmployeeChunkContext, employees: readonly NewEmployee[]): NewFeedEntry[] =>
    employees.map((e) => newEmployeeResult(e.fields, e.id, e.createdAt, ctx.config).entry);
  let made: NewEmployee[] = [];
  const done = await createChunk<EmployeeChunkContext, Passed>({
    hooks,
    attempts: EMPLOYEE_WRITE_ATTEMPTS,
    read: async () => {
      const ctx =
        known ??
        (await readForEmployeeCreates(businessId, {
          lane: start.lane,
          employeeNumbers: numbers.filter((n): n is string => typeof n === 'string'),
        }));
      known = undefined;
      made = [];
      return ctx;
    },
    check: (ctx) => {
      const taken = new Map(ctx.numberOwners);
      const passed: Passed[] = [];
      const outcomes = rows.map((row, i): ChunkOutcome => {
        const number = numbers[i];
        const id = ids[i] ?? '';
        try {
          const fields = checkedNewEmployee(
            row.body,
            row.fieldErrors.copy(),
            ctx.config,
            number ? taken.has(number) : false,
          );
          if (number) taken.set(number, id);
          passed.push({ id, fields, employeeNumber: number ?? null });
          return id;
        } catch (error) {
          if (error instanceof FieldError) return error;
          throw error;
        }
      });
      return { outcomes, passed };
    },
    reserve: (count) => reserveListPositions(businessId, 'employee', count),
    writes: (ctx, passed, reserved, now) => {
      made = passed.map((p, i) => ({ ...p, createdAt: reservedTime(reserved, i) }));
      return [
        ...createEmployeesWrites(businessId, reserved.position, made, () => 'retry'),
        ...feedAppendWrites(businessId, ctx.feed, entriesOf(ctx, made), now),
      ];
    },
  });
  const ctx = done.read;
  // The numbers of this chunk only: what the next chunk's read may not show yet, and no more.
  const numberOwners = new Map<string, string>();
  done.outcomes.forEach((outcome, i) => {
    const number = numbers[i];
    if (number && typeof outcome === 'string') numberOwners.set(number, outcome);
    else if (number && ctx.numberOwners.has(number)) numberOwners.set(number, ctx.numberOwners.get(number) ?? '');
  });
  return {
    outcomes: done.outcomes,
    after: { config: ctx.config, feed: feedLaneStateAfter(ctx.feed, entriesOf(ctx, made), done.now), numberOwners },
  };
}

/**
 * The most bodies of one createEmployees chunk: each takes up to 4
 * transaction items (record, employee_number claim, feed entry, a bulk
 * import's external id), the chunk 5 more (the list's 3 items for the
 * chunk's entries, docs/pagination.md "Positions, holes and position maps";
 * the lane counter, the import's result item), within DynamoDB's 100.
 */
export const EMPLOYEE_CHUNK = Math.floor((MAX_TRANSACTION_ITEMS - 5) / 4);

/**
 * PUT /employees/{id}: one BatchGetItem (config, employee, the new
 * employee_number's owner), the checks, one transaction conditioned on the
 * version read. A concurrent writer makes it re-run from the read (so parallel
 * PUTs of different fields all land); with If-Match it answers 412 instead.
 */
export async function updateEmployee(
  businessId: string,
  id: string,
  body: Body,
  fieldErrors: FieldErrorCollector,
  ifMatch: string | undefined,
  hooks?: WriteHooks,
): Promise<ApiResult> {
  const number = fieldErrors.has('employee_number') ? undefined : normalizeEmployeeNumber(body.employee_number);
  return withRetries(async () => {
    const ctx = await readForEmployeeWrite(businessId, {
      employeeId: id,
      employeeNumber: number ?? undefined,
      feedRecordId: id,
    });
    const stored = ctx.employee;
    if (!stored) throw notFound('employee', id);
    const version = Number(stored.version ?? 1);
    const current = etagOf(id, version);
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, current)) throw preconditionFailed();

    const { config } = ctx;
    const today = todayIn(config.timezone);
    const report: Report = (f, m) => fieldErrors.add(f, m);
    const changes = employeeChanges(body, config, 'update', today, report, (f) => fieldErrors.has(f));
    if (number && ctx.numberOwner && ctx.numberOwner.owner !== id) report('employee_number', MESSAGES.taken);
    fieldErrors.throwIfAny();

    const effective = Object.fromEntries(Object.entries(changes).filter(([k, v]) => !same(stored[k], v)));
    if (Object.keys(effective).length === 0) return ok(employeeView(stored, config, today), { ETag: current });

    const updatedAt = new Date(Math.max(Date.now(), Date.parse(String(stored.updated_at)) + 1 || 0)).toISOString();
    const oldNumber = (stored.employee_number as string | null | undefined) ?? null;
    const updated: Item = { ...stored, ...effective, version: version + 1, updated_at: updatedAt };
    const view = employeeView(updated, config, today);
    await commitWrite(
      [
        ...updateEmployeeWrites(
          businessId,
          { id, version, updatedAt },
          effective,
          'employee_number' in effective
            ? { from: oldNumber, to: (effective.employee_number as string | null) ?? null }
            : undefined,
          { taken: takenError, onStale: () => (ifMatch !== undefined ? preconditionFailed() : 'retry') },
        ),
        ...feedAppendWrites(businessId, ctx.feed, [
          {
            type: 'employee.updated',
            id,
            occurred_at: updatedAt,
            data: view,
            changed_fields: changedFields(lastShownView(stored, config, today), view),
          },
        ]),
      ],
      id,
      hooks,
    );
    return ok(view, { ETag: etagOf(id, version + 1) });
  }, EMPLOYEE_WRITE_ATTEMPTS);
}

/**
 * GET /employees/{id}: config and record in one BatchGetItem; the derived job fields as of `asOf` (contract §26), by
 * default today in the business's timezone.
 */
export async function showEmployee(businessId: string, id: string, asOf?: string): Promise<ApiResult> {
  const { config, record } = await readRecordWithConfig(businessId, 'employee', id);
  if (!record) throw notFound('employee', id);
  return ok(employeeView(record, config, asOf ?? todayIn(config.timezone)), {
    ETag: etagOf(id, Number(record.version ?? 1)),
  });
}

/** GET /employees?page=n: a page of the business list with holes (docs/pagination.md), derived fields as of `asOf`. */
export async function listEmployees(businessId: string, page: PageRequest, along?: ReadAlong, asOf?: string) {
  const { config, total, items } = await readListPage(businessId, { kind: 'employee' }, page, along);
  const day = asOf ?? todayIn(config.timezone);
  return { entries: items.map((item) => employeeView(item, config, day)), total };
}

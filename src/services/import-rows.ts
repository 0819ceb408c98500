/**
 * The row applier of bulk imports (contract §22): a stream of rows of one
 * type for one business in, one result line per row out, in row order.
 *
 * Each row is checked as its single request: the same generated validator
 * (src/schemas/validation.ts), then the same service checks. New employees,
 * employee jobs and applications of a window go through createEmployees,
 * createEmployeeJobs or createApplications (the checks of their POST, one
 * transaction for the chunk: src/services/create-chunk.ts); every other row
 * through the service function of its request (updateEmployee,
 * createEmployee or createApplication for an erased record's external id,
 * updateApplication) with its rules, messages,
 * uniqueness checks and transaction. The import only adds items to those
 * transactions (src/data/dynamo/transact-write.ts WriteHooks, the chunks' ChunkHooks): the
 * external_id it keeps for a new record, and the rows' result item when
 * results are kept (exactly once: a row whose result is stored is never
 * applied again, src/data/import-store.ts). Validating sends no transaction.
 * A rejected row writes nothing but its result and never stops the others.
 *
 * The admin tool's demo loading uses this too (one writer of imported
 * records): it passes its own origin and no results.
 */
import { randomUUID } from 'node:crypto';
import { laneOf } from '../domain/change-feed';
import { importLaneOwner } from '../data/import-store';
import { boundedErrors, isExternalId, type ImportMode, type ImportType, type ResultLine } from '../domain/imports';
import type { CellKind, ParsedRow } from '../domain/import-rows';
import type { BusinessConfig } from '../domain/business';
import type { CustomFieldDefinition } from '../domain/custom-fields';
import type { WriteOrigin } from '../domain/audit';
import { API_PREFIX } from '../domain/api-paths';
import { FieldError, FieldErrorCollector, HttpError, MESSAGES, type FieldMessages } from '../domain/errors';
import type { ChunkHooks, ChunkOutcome, CreateRow } from './create-chunk';
import type { ApiResult } from '../domain/result';
import { runWithOrigin } from '../data/write-origin';
import { runWithDeadline } from '../data/deadline';
import type { TxWrite, WriteHooks } from '../data/dynamo/transact-write';
import {
  RowAlreadyApplied,
  claimExternalIdWrite,
  externalIdKey,
  externalOwnersOf,
  keepExternalIds,
  putRowResults,
  readExternalOwners,
  readRowResults,
  rowResultWrite,
} from '../data/import-store';
import { bodyValidator, type BodyValidator } from '../schemas/validation';
import { EMPLOYEE_JOB_READ_ONLY, EMPLOYEE_READ_ONLY, EmployeeCreate, EmployeeJobCreate } from '../schemas/employees';
import { APPLICATION_READ_ONLY, APPLICATION_UPDATE_READ_ONLY, ApplicationCreate } from '../schemas/applications';
import validateEmployeeCreate from '../schemas/generated/validate-employee-create';
import validateEmployeeUpdate from '../schemas/generated/validate-employee-update';
import validateEmployeeJobCreate from '../schemas/generated/validate-employee-job-create';
import validateApplicationCreate from '../schemas/generated/validate-application-create';
import validateApplicationUpdate from '../schemas/generated/validate-application-update';
import {
  EMPLOYEE_CHUNK,
  createEmployee,
  createEmployees,
  normalizeEmployeeNumber,
  updateEmployee,
  type Body,
  type ChunkStart,
} from './employees';
import { readForEmployeeCreates, type EmployeeChunkContext } from '../data/employee-store';
import { EMPLOYEE_JOB_CHUNK, createEmployeeJobs } from './employee-jobs';
import { APPLICATION_CHUNK, createApplication, createApplications, updateApplication } from './applications';

/**
 * What one row's write, or one chunk's, may take (retries and the resolution of
 * an ambiguous answer included): a chunk's transaction writes up to 100 items.
 * Within the run's reserve (src/services/import-run.ts RESERVE_MS), so a run
 * that starts one before its reserve ends it in time.
 */
const WRITE_BUDGET_MS = 8000;

type Create = (
  businessId: string,
  body: Body,
  errors: FieldErrorCollector,
  key: undefined,
  target: { method: string; path: string },
  hooks: WriteHooks,
) => Promise<ApiResult>;
type Update = (
  businessId: string,
  id: string,
  body: Body,
  errors: FieldErrorCollector,
  ifMatch: undefined,
  hooks: WriteHooks,
) => Promise<ApiResult>;

/**
 * Each type's single requests: validators and service functions. A new record goes in its window's chunk; a
 * record created again for an external id whose record is gone takes its create alone (an employee job has no
 * update, and its known external id is skipped).
 */
const PATHS: Record<
  ImportType,
  { create: BodyValidator<Body>; createWith?: Create; update?: BodyValidator<Body>; updateWith?: Update; path: string }
> = {
  employees: {
    create: bodyValidator<Body>(validateEmployeeCreate, { ignore: EMPLOYEE_READ_ONLY }),
    createWith: createEmployee,
    update: bodyValidator<Body>(validateEmployeeUpdate, { ignore: EMPLOYEE_READ_ONLY }),
    updateWith: updateEmployee,
    path: `${API_PREFIX}/employees`,
  },
  employee_jobs: {
    create: bodyValidator<Body>(validateEmployeeJobCreate, { ignore: EMPLOYEE_JOB_READ_ONLY }),
    path: `${API_PREFIX}/employee_jobs`,
  },
  applications: {
    create: bodyValidator<Body>(validateApplicationCreate, { ignore: APPLICATION_READ_ONLY }),
    createWith: createApplication,
    update: bodyValidator<Body>(validateApplicationUpdate, { ignore: APPLICATION_UPDATE_READ_ONLY }),
    updateWith: updateApplication,
    path: `${API_PREFIX}/applications`,
  },
};

const CREATE_SCHEMAS: Record<ImportType, { properties: Record<string, unknown> }> = {
  employees: EmployeeCreate,
  employee_jobs: EmployeeJobCreate,
  applications: ApplicationCreate,
};

const customFieldsOf = (type: ImportType, config: BusinessConfig): readonly CustomFieldDefinition[] =>
  type === 'employees'
    ? config.employee_fields
    : type === 'employee_jobs'
      ? config.employee_job_fields
      : config.application_fields;

/** What a JSON Schema property takes, for reading a CSV cell: arrays, numbers, booleans, else text. */
function kindOfSchema(property: unknown): CellKind {
  const text = JSON.stringify(property ?? {});
  if (/"type":(\[[^\]]*)?"array"/.test(text)) return 'array';
  if (/"type":(\[[^\]]*)?"(number|integer)"/.test(text)) return 'number';
  if (/"type":(\[[^\]]*)?"boolean"/.test(text) || /"const":true/.test(text)) return 'boolean';
  return 'string';
}

/** How each CSV cell of an import of `type` reads: by its field's schema type, custom fields by their type_of. */
export function importCellKinds(type: ImportType, config: BusinessConfig): (field: string) => CellKind {
  const kinds = new Map<string, CellKind>(
    Object.entries(CREATE_SCHEMAS[type].properties).map(([name, p]) => [name, kindOfSchema(p)]),
  );
  for (const def of customFieldsOf(type, config)) {
    const kind: CellKind =
      def.type_of === 'integer' || def.type_of === 'float' || def.type_of === 'currency'
        ? 'number'
        : def.type_of === 'checkbox'
          ? 'boolean'
          : def.type_of === 'select_multiple'
            ? 'array'
            : 'string';
    kinds.set(`cf_${def.id}`, kind);
  }
  return (field) => kinds.get(field) ?? 'string';
}

export interface ApplyRowsOptions {
  readonly businessId: string;
  readonly type: ImportType;
  /** `validate`: every check, no write. */
  readonly mode: ImportMode;
  /** Who the writes are made by (their change-feed entries' actor and request_id). */
  readonly origin: WriteOrigin;
  /** Keep each row's result under this import (exactly once across resumed runs); absent: results are only yielded. */
  readonly importId?: string;
  /**
   * Rows up to this one were counted by an earlier run (its checkpoint): they are skipped unread.
   * Results stored after it by earlier runs are yielded as stored, their rows not applied again.
   */
  readonly resumeAfter?: number;
  /** The messages of a row's errors, in the import's language (default: as the services word them, English). */
  readonly translate?: (fields: FieldMessages) => FieldMessages;
  /**
   * The fields of a row's body outside the creating token's field grant (contract §25: the row fails with
   * `is not permitted` for each, nothing written); absent: every field is granted.
   */
  readonly denied?: (body: Readonly<Record<string, unknown>>, create: boolean) => string[];
}

/** The most new records of a type in one transaction. */
const CHUNK: Record<ImportType, number> = {
  employees: EMPLOYEE_CHUNK,
  employee_jobs: EMPLOYEE_JOB_CHUNK,
  applications: APPLICATION_CHUNK,
};

/**
 * Rows read and applied together: one read of their external ids (with what
 * new employees need), their new records in one transaction (CHUNK).
 * Validating sends no transaction: larger windows, fewer reads.
 */
const windowOf = (type: ImportType, mode: ImportMode): number => CHUNK[type] * (mode === 'validate' ? 4 : 1);

/**
 * Applies (or validates) rows of one type for one business in row order and
 * yields each row's result line once it is stored. A row whose result an
 * earlier run stored yields that stored result unapplied. Errors other than
 * a row's own (DynamoDB unavailable past a write's budget) end the stream:
 * the rows before have their results stored.
 *
 * Rows go in windows (windowOf): one BatchGetItem of their external ids
 * (for employees with the config, feed lane and employee_numbers their
 * creates need), sent while the window before is being applied; new records
 * (no external id kept yet) are created in one transaction per run of them
 * (src/services/create-chunk.ts: one reservation of positions; createEmployees
 * starting from the state the chunk before left, one feed lane step;
 * createApplications one feed lane step; createEmployeeJobs reading its
 * employees, supervisors and their lanes after the chunk before committed,
 * one step per lane; each record with its feed entry, and the run's result
 * item, the external ids kept right after it); every other row takes its
 * single request's path alone, in row order. Results of
 * rows that write nothing are stored per run of consecutive rows with one
 * BatchWriteItem per window. A window ends early at a row whose external id
 * an earlier row of the window names (it updates what that row creates).
 * Memory: a window and the one read ahead; validating also the set of
 * employee_numbers and external ids of earlier rows (uniqueness within the
 * file, nothing being written): O(distinct values), some 100 bytes each.
 */
export async function* applyImportRows(
  rows: AsyncIterable<ParsedRow>,
  options: ApplyRowsOptions,
): AsyncGenerator<ResultLine> {
  const seen = { numbers: new Set<string>(), externalIds: new Set<string>() };
  const resumeAfter = options.resumeAfter ?? 0;
  // An earlier run may have stopped between a chunk's transaction and keeping its external ids.
  if (options.importId && options.mode === 'apply')
    await keepStoredExternalIds(options.businessId, options.type, options.importId, resumeAfter);
  const earlier = options.importId ? storedResults(options.businessId, options.importId, resumeAfter) : undefined;
  let next = await earlier?.next();
  // Every new record of this run takes one feed lane: each chunk moves its counter once.
  const lane = laneOf(importLaneOwner(options.type), randomUUID());
  let window: ParsedRow[] = [];
  const named = new Set<string>();
  let applying: { readonly done: Promise<WindowOutcome>; readonly named: ReadonlySet<string> } | undefined;
  let known: EmployeeChunkContext | undefined;
  let stale = false;
  /** The window being applied: its lines once done. */
  const settle = async (): Promise<ResultLine[]> => {
    if (!applying) return [];
    const done = await applying.done;
    applying = undefined;
    known = done.after;
    stale = done.wroteAlone;
    return done.lines;
  };
  /** Closes the window: its read goes out now, it is applied once the one before is done (whose lines these are). */
  const closeWindow = async (): Promise<ResultLine[]> => {
    if (!window.length) return settle();
    const rowsOf = window;
    const names = new Set(named);
    window = [];
    named.clear();
    // An external id the window being applied names may not be kept yet: this window reads after it.
    const ahead = [...names].some((n) => applying?.named.has(n)) ? undefined : readWindow(rowsOf, options, lane);
    ahead?.catch(() => undefined);
    const lines = await settle();
    const read = await (ahead ?? readWindow(rowsOf, options, lane));
    const done = applyRowWindow(rowsOf, options, seen, read, { lane, ...(known ? { known } : {}) }, stale);
    done.catch(() => undefined);
    applying = { done, named: names };
    return lines;
  };
  for await (const row of rows) {
    if (row.row <= resumeAfter) continue;
    while (next && !next.done && next.value.row < row.row) next = await earlier?.next();
    if (next && !next.done && next.value.row === row.row) {
      yield* await closeWindow();
      yield* await settle();
      yield next.value;
      continue;
    }
    const externalId = isExternalId(row.body.external_id) ? row.body.external_id : undefined;
    if (window.length >= windowOf(options.type, options.mode) || (externalId !== undefined && named.has(externalId)))
      yield* await closeWindow();
    window.push(row);
    if (externalId !== undefined) named.add(externalId);
  }
  yield* await closeWindow();
  yield* await settle();
}

/**
 * The state a chunk starts from: its window's read, with the lane the chunk
 * before left where it is newer (the read went out while that chunk was being
 * written) and the numbers that chunk took.
 */
function mergeKnown(
  read: EmployeeChunkContext | undefined,
  before: EmployeeChunkContext | undefined,
): EmployeeChunkContext | undefined {
  if (!read || !before) return read;
  return {
    config: read.config,
    feed: before.feed.lane === read.feed.lane && before.feed.n > read.feed.n ? before.feed : read.feed,
    numberOwners: new Map([...read.numberOwners, ...before.numberOwners]),
  };
}

/** Keeps the external ids of the records the results stored after `afterRow` report created, a page at a time. */
async function keepStoredExternalIds(
  businessId: string,
  type: ImportType,
  importId: string,
  afterRow: number,
): Promise<void> {
  let start: Awaited<ReturnType<typeof readRowResults>>['next'];
  do {
    const page = await readRowResults(businessId, importId, afterRow, start);
    await keepExternalIds(businessId, type, page.lines);
    start = page.next;
  } while (start);
}

/** The results earlier runs of an import stored after `afterRow`, in row order, a page at a time. */
async function* storedResults(businessId: string, importId: string, afterRow: number): AsyncGenerator<ResultLine> {
  let start: Awaited<ReturnType<typeof readRowResults>>['next'];
  do {
    const page = await readRowResults(businessId, importId, afterRow, start);
    yield* page.lines;
    start = page.next;
  } while (start);
}

interface Seen {
  readonly numbers: Set<string>;
  readonly externalIds: Set<string>;
}

/** The external ids a window's rows name, read at once: each type's id -> record id. */
interface Owners {
  readonly records: ReadonlyMap<string, string>;
  readonly employees: ReadonlyMap<string, string>;
}

/** What a window reads before it is applied: its owners and, for employees, what their creates need. */
interface WindowRead extends Owners {
  readonly chunk?: EmployeeChunkContext;
}

/** A window's lines, the state its last chunk left for the next, and whether a row on its own path wrote since. */
interface WindowOutcome {
  readonly lines: ResultLine[];
  readonly after: EmployeeChunkContext | undefined;
  /** The next window's read (sent ahead) may miss what such a row changed (an employee_number it freed). */
  readonly wroteAlone: boolean;
}

/** One BatchGetItem (parts of 100 keys at once) of what a window's rows name. */
async function readWindow(window: readonly ParsedRow[], options: ApplyRowsOptions, lane: number): Promise<WindowRead> {
  const { businessId, type } = options;
  const externalIds = [...new Set(window.map((r) => r.body.external_id).filter(isExternalId))];
  if (type === 'employees') {
    const numbers = window.map((r) => normalizeEmployeeNumber(r.body.employee_number));
    const read = await readForEmployeeCreates(businessId, {
      lane,
      employeeNumbers: numbers.filter((n): n is string => typeof n === 'string'),
      more: externalIds.map((id) => externalIdKey(businessId, type, id)),
    });
    return { records: externalOwnersOf(externalIds, read.more), employees: new Map(), chunk: read };
  }
  const employeeIds =
    type === 'employee_jobs' ? window.map((r) => r.body.employee_external_id).filter(isExternalId) : [];
  const [records, employees] = await Promise.all([
    externalIds.length ? readExternalOwners(businessId, type, externalIds) : new Map<string, string>(),
    employeeIds.length ? readExternalOwners(businessId, 'employees', employeeIds) : new Map<string, string>(),
  ]);
  return { records, employees };
}

/** A row of a run waiting for its chunk: a new record, its checked body and what the check collected. */
interface Pending {
  readonly line: (id: string | null, fields?: FieldMessages | null) => ResultLine;
  readonly create?: CreateRow & { readonly externalId: string | undefined };
  /** A job's field errors when its employee is not found (its request's 404): the field that named it. */
  readonly missing?: FieldMessages;
}

/** One window of rows: their result lines in row order, each stored (when results are kept). */
async function applyRowWindow(
  window: readonly ParsedRow[],
  options: ApplyRowsOptions,
  seen: Seen,
  read: WindowRead,
  start: ChunkStart,
  stale: boolean,
): Promise<WindowOutcome> {
  const { businessId, type, mode, importId } = options;
  // In the import's language, and bounded: a result item holds a window's lines (RESULT_ERRORS_CHARS).
  const translate = (line: ResultLine): ResultLine =>
    line.errors
      ? { ...line, errors: boundedErrors(options.translate ? options.translate(line.errors) : line.errors) }
      : line;
  const { records } = read;
  const owners: Owners = read;
  // What the chunk before (of this window or the one before) left: with the window's read, where the next starts.
  let before = start.known;
  // The window's read may be older than a write of a row on its own path: the chunk after it reads again.
  let fresh = stale;
  let wroteAlone = false;

  const out: ResultLine[] = [];
  /** Runs of consecutive lines that write nothing, stored together at the end. */
  const unstored: ResultLine[][] = [];
  let run: Pending[] = [];
  // The run so far: its new records created in one transaction with the run's result item.
  const flush = async (): Promise<void> => {
    const pending = run;
    run = [];
    if (!pending.length) return;
    const creates = pending.filter((p) => p.create);
    if (!creates.length) {
      const lines = pending.map((p) => translate(p.line(null)));
      out.push(...lines);
      unstored.push(lines);
      return;
    }
    const linesOf = (outcomes: readonly ChunkOutcome[]): ResultLine[] => {
      let i = 0;
      return pending.map((p) => {
        if (!p.create) return translate(p.line(null));
        const outcome = outcomes[i++];
        if (outcome instanceof FieldError) return translate(p.line(null, outcome.fields));
        if (outcome instanceof HttpError) {
          if (outcome.status !== 404 || !p.missing) throw outcome;
          return translate(p.line(null, p.missing));
        }
        return translate(p.line(mode === 'validate' ? null : (outcome ?? null)));
      });
    };
    const keep = importId !== undefined && mode === 'apply';
    // Results kept: the chunk's result item is its proof, its external ids are kept right after it
    // (keepExternalIds). Without results (the admin tool's loading) they go into the transaction.
    const hooks: ChunkHooks = {
      dryRun: mode === 'validate',
      extraWrites: (made) =>
        keep
          ? [rowResultWrite(businessId, importId, linesOf(made))]
          : creates.flatMap((p, i) => {
              const id = made[i];
              return typeof id === 'string' && p.create?.externalId !== undefined
                ? [claimExternalIdWrite(businessId, type, p.create.externalId, id)]
                : [];
            }),
    };
    const bodies = creates.map((p) => p.create!);
    let lines: ResultLine[] | undefined;
    try {
      const outcomes = await runWithOrigin(options.origin, () =>
        runWithDeadline(WRITE_BUDGET_MS, async () => {
          if (type === 'applications') return createApplications(businessId, bodies, hooks, start.lane);
          if (type === 'employee_jobs') return createEmployeeJobs(businessId, bodies, hooks);
          const chunk = await createEmployees(
            businessId,
            bodies,
            hooks,
            ((known) => ({ lane: start.lane, ...(known && !fresh ? { known } : {}) }))(mergeKnown(read.chunk, before)),
          );
          // The next run of the window starts from where this chunk left the counters; the next window too.
          before = chunk.after;
          fresh = wroteAlone = false;
          return chunk.outcomes;
        }),
      );
      lines = linesOf(outcomes);
    } catch (error) {
      if (!(error instanceof RowAlreadyApplied)) throw error;
      // A re-sent transaction of this run found its results stored: they are the run's lines.
      fresh = true;
      lines = [...error.lines];
      const rowsOf = (ls: readonly ResultLine[]): string => ls.map((l) => l.row).join();
      if (rowsOf(lines) !== rowsOf(linesOf([]))) throw new Error('stored results of a chunk name other rows');
    }
    if (keep) await keepExternalIds(businessId, type, lines);
    out.push(...lines);
    if (!keep) unstored.push(lines);
  };

  // New records join the run; any other row is applied after the rows before it (uniqueness in row order).
  const joinsRun = (row: ParsedRow): boolean => {
    const extId = isExternalId(row.body.external_id) ? row.body.external_id : undefined;
    return extId === undefined || (!records.has(extId) && !(mode === 'validate' && seen.externalIds.has(extId)));
  };
  for (const row of window) {
    if (!joinsRun(row)) await flush();
    const step = await runWithOrigin(options.origin, () =>
      runWithDeadline(WRITE_BUDGET_MS, () => applyRow(row, options, seen, owners)),
    );
    if ('pending' in step) {
      run.push(step.pending);
      continue;
    }
    await flush();
    const line = translate(step.line);
    out.push(line);
    if (!step.stored) unstored.push([line]);
    else fresh = wroteAlone = true;
  }
  await flush();
  if (importId) await putRowResults(businessId, importId, unstored);
  return { lines: out, after: before, wroteAlone };
}

/**
 * One row: its result line and whether it is stored (in the row's own
 * transaction), or a new employee waiting for its run's chunk.
 */
async function applyRow(
  row: ParsedRow,
  options: ApplyRowsOptions,
  seen: Seen,
  owners: Owners,
): Promise<{ line: ResultLine; stored: boolean } | { pending: Pending }> {
  const { businessId, type, mode, importId } = options;
  // A JSON Lines line that is not one JSON object within the limits fails on its own.
  if (row.invalid)
    return {
      line: { row: row.row, external_id: null, result: 'failed', id: null, errors: { row: [MESSAGES.invalid] } },
      stored: false,
    };
  const paths = PATHS[type];
  const body: Body = { ...row.body };
  const externalId = body.external_id;
  delete body.external_id;
  // The row's own field errors (external ids), carried into the collector of whichever request it takes.
  const own: [string, string][] = [];
  const collector = (): FieldErrorCollector => {
    const c = new FieldErrorCollector();
    for (const [field, message] of own) c.add(field, message);
    return c;
  };
  const extId = isExternalId(externalId) ? externalId : undefined;
  if (externalId !== undefined && extId === undefined) own.push(['external_id', MESSAGES.invalid]);
  const lineWith =
    (result: ResultLine['result']) =>
    (id: string | null, fields: FieldMessages | null = null): ResultLine => ({
      row: row.row,
      // An id only when it is one: an invalid external_id is a value the results never repeat.
      external_id: extId ?? null,
      result: fields ? 'failed' : result,
      id: fields ? null : id,
      errors: fields,
    });
  const line = (result: ResultLine['result'], id: string | null, fields: FieldMessages | null = null): ResultLine =>
    lineWith(result)(id, fields);

  // An employee job may name its employee by the external id an import kept for it.
  const employeeExt = type === 'employee_jobs' ? body.employee_external_id : undefined;
  if (type === 'employee_jobs' && 'employee_external_id' in body) {
    delete body.employee_external_id;
    if (!isExternalId(employeeExt)) own.push(['employee_external_id', MESSAGES.invalid]);
    else {
      const employeeRef = owners.employees.get(employeeExt);
      if (employeeRef === undefined) own.push(['employee_external_id', MESSAGES.missingReference]);
      else if ('employee_id' in body && body.employee_id !== employeeRef) own.push(['employee_id', MESSAGES.invalid]);
      else body.employee_id = employeeRef;
    }
    // The job's schema wants an employee_id: the error above already says which employee is missing.
    if (!('employee_id' in body)) body.employee_id = '-';
  }

  const owner = extId === undefined ? undefined : owners.records.get(extId);
  const earlier = extId !== undefined && mode === 'validate' && seen.externalIds.has(extId);
  if (extId !== undefined && mode === 'validate') seen.externalIds.add(extId);
  const resultWrite = (l: ResultLine): TxWrite[] =>
    importId && mode === 'apply' ? [rowResultWrite(businessId, importId, [l])] : [];
  const denied = options.denied?.(body, owner === undefined && !earlier) ?? [];
  if (denied.length > 0)
    return {
      line: line('failed', null, Object.fromEntries(denied.map((f) => [f, [MESSAGES.notPermitted]]))),
      stored: false,
    };

  try {
    if ((owner !== undefined || earlier) && type === 'employee_jobs')
      return { line: line('skipped', owner ?? null), stored: false };
    if (earlier && paths.update) {
      // Validating, a second row of one external id would update the record the first creates: its body is
      // checked as that update's (the record itself does not exist to check against).
      const errors = collector();
      paths.update(body, errors);
      errors.throwIfAny();
      return { line: line('updated', null), stored: false };
    }
    if (owner !== undefined && paths.update && paths.updateWith) {
      const errors = collector();
      const input = paths.update(body, errors);
      const hooks: WriteHooks = { dryRun: mode === 'validate', extraWrites: () => resultWrite(line('updated', owner)) };
      try {
        await paths.updateWith(businessId, owner, input, errors, undefined, hooks);
        return hooks.wrote
          ? { line: line('updated', owner), stored: !hooks.dryRun && importId !== undefined }
          : { line: line('unchanged', owner), stored: false };
      } catch (error) {
        // An erased record keeps its external id until a row creates it again (below, on its own path).
        if (!(error instanceof HttpError && error.status === 404)) throw error;
      }
    }
    const createErrors = collector();
    const input = paths.create(body, createErrors);
    if (type === 'employees' && !createErrors.has('employee_number')) {
      const number = normalizeEmployeeNumber(input.employee_number);
      if (number && mode === 'validate') {
        if (seen.numbers.has(number)) createErrors.add('employee_number', MESSAGES.taken);
        seen.numbers.add(number);
      }
    }
    if (owner === undefined)
      return {
        pending: {
          line: lineWith('created'),
          create: { body: input, fieldErrors: createErrors, externalId: extId },
          ...(type === 'employee_jobs'
            ? {
                missing: {
                  [employeeExt === undefined ? 'employee_id' : 'employee_external_id']: [MESSAGES.missingReference],
                },
              }
            : {}),
        },
      };
    if (!paths.createWith) throw new Error(`no create of an imported ${type} record alone`);
    const hooks: WriteHooks = {
      dryRun: mode === 'validate',
      extraWrites: (id) => [
        ...(extId === undefined ? [] : [claimExternalIdWrite(businessId, type, extId, id, owner)]),
        ...resultWrite(line('created', id)),
      ],
    };
    const created = await paths.createWith(
      businessId,
      input,
      createErrors,
      undefined,
      { method: 'POST', path: paths.path },
      hooks,
    );
    const id = mode === 'validate' ? null : String((created.body as { id: unknown }).id);
    return { line: line('created', id), stored: importId !== undefined && mode === 'apply' };
  } catch (error) {
    if (error instanceof RowAlreadyApplied && error.lines[0]) return { line: error.lines[0], stored: true };
    if (error instanceof FieldError) return { line: line('failed', null, error.fields), stored: false };
    throw error;
  }
}

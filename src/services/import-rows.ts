/**
 * The row applier of bulk imports (contract §22): a stream of rows of one
 * type for one business in, one result line per row out, in row order.
 *
 * Each row takes the path of its single request: the same generated
 * validator (src/schemas/validation.ts), then the same service function
 * (createEmployee, updateEmployee, createEmployeeJob, createApplication,
 * updateApplication) with its rules, messages, uniqueness checks and
 * transaction. The import only adds items to that transaction
 * (src/data/transact-write.ts WriteHooks): the external_id it keeps for a new
 * record, and the row's result when results are kept (exactly once: a row
 * whose result is stored is never applied again, src/data/import-store.ts).
 * Validating sends no transaction. A rejected row writes nothing but its
 * result and never stops the others.
 *
 * The admin tool's demo loading uses this too (one writer of imported
 * records): it passes its own origin and no results.
 */
import { isExternalId, type ImportMode, type ImportType, type ResultLine } from '../domain/imports';
import type { CellKind, ParsedRow } from '../domain/import-rows';
import type { BusinessConfig } from '../domain/business';
import type { CustomFieldDefinition } from '../domain/custom-fields';
import type { WriteOrigin } from '../domain/audit';
import { API_PREFIX } from '../domain/api-paths';
import { FieldError, FieldErrorCollector, HttpError, MESSAGES, type FieldMessages } from '../domain/errors';
import type { ApiResult } from '../domain/result';
import { runWithOrigin } from '../data/write-origin';
import { runWithDeadline } from '../data/deadline';
import type { TxWrite, WriteHooks } from '../data/transact-write';
import {
  RowAlreadyApplied,
  claimExternalIdWrite,
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
import { createEmployee, normalizeEmployeeNumber, updateEmployee, type Body } from './employees';
import { createEmployeeJob } from './employee-jobs';
import { createApplication, updateApplication } from './applications';

/** What one row's write may take, as a request's data work would (retries included). */
const ROW_BUDGET_MS = 5000;

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

/** Each type's single requests: validators and service functions (an employee job has no update). */
const PATHS: Record<
  ImportType,
  { create: BodyValidator<Body>; createWith: Create; update?: BodyValidator<Body>; updateWith?: Update; path: string }
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
    createWith: createEmployeeJob,
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
}

/** Rows with nothing written but their result are stored in batches of this many. */
const RESULT_BATCH = 25;

/**
 * Applies (or validates) rows of one type for one business, one at a time in
 * row order, and yields each row's result line once it is stored. A row
 * whose result an earlier run stored yields that stored result unapplied.
 * Errors other than a row's own (DynamoDB unavailable past the row's
 * budget) end the stream: the rows before have their results stored.
 */
export async function* applyImportRows(
  rows: AsyncIterable<ParsedRow>,
  options: ApplyRowsOptions,
): AsyncGenerator<ResultLine> {
  // Validating writes nothing, so uniqueness against earlier rows is remembered here.
  const seen = { numbers: new Set<string>(), externalIds: new Set<string>() };
  let unsaved: ResultLine[] = [];
  const flush = async (): Promise<ResultLine[]> => {
    const lines = unsaved;
    unsaved = [];
    if (options.importId && lines.length) await putRowResults(options.businessId, options.importId, lines);
    return lines;
  };
  const resumeAfter = options.resumeAfter ?? 0;
  const earlier = options.importId ? storedResults(options.businessId, options.importId, resumeAfter) : undefined;
  let next = await earlier?.next();
  for await (const row of rows) {
    if (row.row <= resumeAfter) continue;
    while (next && !next.done && next.value.row < row.row) next = await earlier?.next();
    if (next && !next.done && next.value.row === row.row) {
      yield* await flush();
      yield next.value;
      continue;
    }
    const { line, stored } = await runWithOrigin(options.origin, () =>
      runWithDeadline(ROW_BUDGET_MS, () => applyRow(row, options, seen)),
    );
    const translated = line.errors && options.translate ? { ...line, errors: options.translate(line.errors) } : line;
    if (stored) {
      yield* await flush();
      yield translated;
    } else {
      unsaved.push(translated);
      if (unsaved.length >= RESULT_BATCH) yield* await flush();
    }
  }
  yield* await flush();
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

/** One row: its result line, and whether the line is already stored (in the row's transaction). */
async function applyRow(
  row: ParsedRow,
  options: ApplyRowsOptions,
  seen: Seen,
): Promise<{ line: ResultLine; stored: boolean }> {
  const { businessId, type, mode, importId } = options;
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
  const line = (result: ResultLine['result'], id: string | null, fields: FieldMessages | null = null): ResultLine => ({
    row: row.row,
    external_id: typeof externalId === 'string' ? externalId : null,
    result,
    id,
    errors: fields,
  });

  // An employee job may name its employee by the external id an import kept for it.
  const employeeExt = type === 'employee_jobs' ? body.employee_external_id : undefined;
  let employeeRef: string | undefined;
  if (type === 'employee_jobs' && 'employee_external_id' in body) {
    delete body.employee_external_id;
    if (!isExternalId(employeeExt)) own.push(['employee_external_id', MESSAGES.invalid]);
    else {
      employeeRef = (await readExternalOwners(businessId, 'employees', [employeeExt])).get(employeeExt);
      if (employeeRef === undefined) own.push(['employee_external_id', MESSAGES.missingReference]);
      else if ('employee_id' in body && body.employee_id !== employeeRef) own.push(['employee_id', MESSAGES.invalid]);
      else body.employee_id = employeeRef;
    }
    // The job's schema wants an employee_id: the error above already says which employee is missing.
    if (!('employee_id' in body)) body.employee_id = '-';
  }

  const owner = extId === undefined ? undefined : (await readExternalOwners(businessId, type, [extId])).get(extId);
  const earlier = extId !== undefined && mode === 'validate' && seen.externalIds.has(extId);
  if (extId !== undefined && mode === 'validate') seen.externalIds.add(extId);
  const resultWrite = (l: ResultLine): TxWrite[] =>
    importId && mode === 'apply' ? [rowResultWrite(businessId, importId, l)] : [];

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
        // An erased application keeps its external id until a row creates it again.
        if (!(error instanceof HttpError && error.status === 404 && type === 'applications')) throw error;
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
    if (error instanceof RowAlreadyApplied) return { line: error.line, stored: true };
    if (error instanceof FieldError) return { line: line('failed', null, error.fields), stored: false };
    // The job's employee_id names no employee of this business: 404 as a request, a field of the row here.
    if (error instanceof HttpError && error.status === 404 && type === 'employee_jobs')
      return {
        line: line('failed', null, {
          [employeeExt === undefined ? 'employee_id' : 'employee_external_id']: [MESSAGES.missingReference],
        }),
        stored: false,
      };
    throw error;
  }
}

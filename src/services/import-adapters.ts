/**
 * What a bulk import (contract §22) does with rows of each record type: one
 * adapter per type, with the validators and service functions of the type's
 * single requests, its chunk of creates in one transaction
 * (src/services/create-chunk.ts), and the references a window of its rows
 * reads first. The row applier (src/services/import-rows.ts) goes through
 * these and asks no type what it is.
 */
import { isExternalId, type ImportType } from '../domain/imports';
import type { ParsedRow } from '../domain/import-rows';
import type { BusinessConfig } from '../domain/business';
import type { CustomFieldDefinition } from '../domain/custom-fields';
import { API_PREFIX } from '../domain/api-paths';
import { MESSAGES, type FieldErrorCollector, type FieldMessages } from '../domain/errors';
import type { ApiResult } from '../domain/result';
import type { WriteHooks } from '../data/dynamo/transact-write';
import { externalIdKey, externalOwnersOf, readExternalOwners } from '../data/import-store';
import { readForEmployeeCreates, type EmployeeChunkContext } from '../data/employee-store';
import { bodyValidator, type BodyValidator } from '../schemas/validation';
import { EMPLOYEE_JOB_READ_ONLY, EMPLOYEE_READ_ONLY, EmployeeCreate, EmployeeJobCreate } from '../schemas/employees';
import { APPLICATION_READ_ONLY, APPLICATION_UPDATE_READ_ONLY, ApplicationCreate } from '../schemas/applications';
import validateEmployeeCreate from '../schemas/generated/validate-employee-create';
import validateEmployeeUpdate from '../schemas/generated/validate-employee-update';
import validateEmployeeJobCreate from '../schemas/generated/validate-employee-job-create';
import validateApplicationCreate from '../schemas/generated/validate-application-create';
import validateApplicationUpdate from '../schemas/generated/validate-application-update';
import type { ChunkHooks, ChunkOutcome, CreateRow } from './create-chunk';
import {
  EMPLOYEE_CHUNK,
  createEmployee,
  createEmployees,
  normalizeEmployeeNumber,
  updateEmployee,
  type Body,
  type ChunkStart,
} from './employees';
import { EMPLOYEE_JOB_CHUNK, createEmployeeJobs } from './employee-jobs';
import type { RequestContext } from './request-context';
import { APPLICATION_CHUNK, createApplication, createApplications, updateApplication } from './applications';

export type { Body, ChunkStart };

/** The external ids a window's rows name, read at once: each type's id -> record id. */
export interface Owners {
  readonly records: ReadonlyMap<string, string>;
  readonly employees: ReadonlyMap<string, string>;
}

/** What a window reads before it is applied: its owners and, for employees, what their creates need. */
export interface WindowRead extends Owners {
  readonly chunk?: EmployeeChunkContext;
}

/** What a chunk of creates did: each body's outcome and, where the type keeps one, the state the next starts from. */
export interface ChunkWritten {
  readonly outcomes: readonly ChunkOutcome[];
  readonly after?: EmployeeChunkContext;
}

/** What resolving a row's references found: its field errors, and what its create answers if the record is gone. */
export interface RowReferences {
  readonly errors: readonly (readonly [string, string])[];
  /** A new record's field errors when the record it refers to is not found (its request's 404). */
  readonly missing?: FieldMessages;
}

type Create = (
  context: RequestContext,
  body: Body,
  errors: FieldErrorCollector,
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

export interface ImportAdapter {
  readonly type: ImportType;
  /** The most new records in one transaction. */
  readonly chunkSize: number;
  /** The create request's schema: how each CSV cell reads. */
  readonly createSchema: { readonly properties: Record<string, unknown> };
  customFields(config: BusinessConfig): readonly CustomFieldDefinition[];
  readonly validateCreate: BodyValidator<Body>;
  /**
   * The single requests of a row whose external id names a record: its update, and its create when the record
   * is gone (an erased record's external id). Absent: such a row is skipped.
   */
  readonly single?: {
    readonly validateUpdate: BodyValidator<Body>;
    readonly update: Update;
    readonly create: Create;
    readonly path: string;
  };
  /** New records in one transaction (src/services/create-chunk.ts). */
  writeChunk(
    businessId: string,
    rows: readonly CreateRow[],
    hooks: ChunkHooks,
    start: ChunkStart,
  ): Promise<ChunkWritten>;
  /** One BatchGetItem (parts of 100 keys at once) of what a window's rows name. */
  readWindow(businessId: string, rows: readonly ParsedRow[], externalIds: string[], lane: number): Promise<WindowRead>;
  /** Resolves in `body` the records it names by external id. */
  resolveReferences(body: Body, owners: Owners): RowReferences;
  /** Validating: a create body's values unique within the file, against those of earlier rows (`seen`). */
  checkInFile(input: Body, errors: FieldErrorCollector, seen: Set<string>): void;
}

/** Each type's records and the employees its rows name, by external id. */
async function readOwners(
  businessId: string,
  type: ImportType,
  externalIds: readonly string[],
  employeeIds: readonly string[],
): Promise<WindowRead> {
  const [records, employees] = await Promise.all([
    externalIds.length ? readExternalOwners(businessId, type, externalIds) : new Map<string, string>(),
    employeeIds.length ? readExternalOwners(businessId, 'employees', employeeIds) : new Map<string, string>(),
  ]);
  return { records, employees };
}

const NO_REFERENCES: RowReferences = { errors: [] };

const employees: ImportAdapter = {
  type: 'employees',
  chunkSize: EMPLOYEE_CHUNK,
  createSchema: EmployeeCreate,
  customFields: (config) => config.employee_fields,
  validateCreate: bodyValidator<Body>(validateEmployeeCreate, { ignore: EMPLOYEE_READ_ONLY }),
  single: {
    validateUpdate: bodyValidator<Body>(validateEmployeeUpdate, { ignore: EMPLOYEE_READ_ONLY }),
    update: updateEmployee,
    create: createEmployee,
    path: `${API_PREFIX}/employees`,
  },
  writeChunk: (businessId, rows, hooks, start) => createEmployees(businessId, rows, hooks, start),
  // With the external ids: the config, feed lane and employee_numbers the window's creates need.
  async readWindow(businessId, rows, externalIds, lane) {
    const numbers = rows.map((r) => normalizeEmployeeNumber(r.body.employee_number));
    const read = await readForEmployeeCreates(businessId, {
      lane,
      employeeNumbers: numbers.filter((n): n is string => typeof n === 'string'),
      more: externalIds.map((id) => externalIdKey(businessId, 'employees', id)),
    });
    return { records: externalOwnersOf(externalIds, read.more), employees: new Map(), chunk: read };
  },
  resolveReferences: () => NO_REFERENCES,
  checkInFile(input, errors, seen) {
    if (errors.has('employee_number')) return;
    const number = normalizeEmployeeNumber(input.employee_number);
    if (!number) return;
    if (seen.has(number)) errors.add('employee_number', MESSAGES.taken);
    seen.add(number);
  },
};

const employeeJobs: ImportAdapter = {
  type: 'employee_jobs',
  chunkSize: EMPLOYEE_JOB_CHUNK,
  createSchema: EmployeeJobCreate,
  customFields: (config) => config.employee_job_fields,
  validateCreate: bodyValidator<Body>(validateEmployeeJobCreate, { ignore: EMPLOYEE_JOB_READ_ONLY }),
  // A job has no update: a row whose external id is known is skipped.
  writeChunk: async (businessId, rows, hooks) => ({ outcomes: await createEmployeeJobs(businessId, rows, hooks) }),
  readWindow: (businessId, rows, externalIds) =>
    readOwners(
      businessId,
      'employee_jobs',
      externalIds,
      rows.map((r) => r.body.employee_external_id).filter(isExternalId),
    ),
  // A job may name its employee by the external id an import kept for it.
  resolveReferences(body, owners) {
    const employeeExt = body.employee_external_id;
    const errors: [string, string][] = [];
    if ('employee_external_id' in body) {
      delete body.employee_external_id;
      if (!isExternalId(employeeExt)) errors.push(['employee_external_id', MESSAGES.invalid]);
      else {
        const employeeRef = owners.employees.get(employeeExt);
        if (employeeRef === undefined) errors.push(['employee_external_id', MESSAGES.missingReference]);
        else if ('employee_id' in body && body.employee_id !== employeeRef)
          errors.push(['employee_id', MESSAGES.invalid]);
        else body.employee_id = employeeRef;
      }
      // The job's schema wants an employee_id: the error above already says which employee is missing.
      if (!('employee_id' in body)) body.employee_id = '-';
    }
    const field = employeeExt === undefined ? 'employee_id' : 'employee_external_id';
    return { errors, missing: { [field]: [MESSAGES.missingReference] } };
  },
  checkInFile: () => undefined,
};

const applications: ImportAdapter = {
  type: 'applications',
  chunkSize: APPLICATION_CHUNK,
  createSchema: ApplicationCreate,
  customFields: (config) => config.application_fields,
  validateCreate: bodyValidator<Body>(validateApplicationCreate, { ignore: APPLICATION_READ_ONLY }),
  single: {
    validateUpdate: bodyValidator<Body>(validateApplicationUpdate, { ignore: APPLICATION_UPDATE_READ_ONLY }),
    update: updateApplication,
    create: createApplication,
    path: `${API_PREFIX}/applications`,
  },
  writeChunk: async (businessId, rows, hooks, start) => ({
    outcomes: await createApplications(businessId, rows, hooks, start.lane),
  }),
  readWindow: (businessId, _rows, externalIds) => readOwners(businessId, 'applications', externalIds, []),
  resolveReferences: () => NO_REFERENCES,
  checkInFile: () => undefined,
};

export const IMPORT_ADAPTERS: Readonly<Record<ImportType, ImportAdapter>> = {
  employees,
  employee_jobs: employeeJobs,
  applications,
};

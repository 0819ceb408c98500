/**
 * The records of a fixture (contract §24: `employees`, `employee_jobs`,
 * `applications`) checked as the POST creating each would be: the same
 * request schema (the generated validator the handler uses), the same
 * business rules (the services' pure functions, against the fixture's own
 * business), every failing field at once. A job's employee and supervisor are
 * named by external id and must be employees of the same file.
 *
 * A bad record refuses the whole file before anything is written, with one
 * line per record naming it: `employees[3] (external_id "emp-0004"):
 * first_name can't be blank`.
 */
import type { BusinessConfig } from '../../src/domain/business';
import { FieldError, FieldErrorCollector, MESSAGES } from '../../src/domain/errors';
import type { Fixture } from '../../src/domain/fixture';
import { fieldsForCreate } from '../../src/domain/application-record';
import { todayIn } from '../../src/domain/job-dates';
import { bodyValidator } from '../../src/schemas/validation';
import { APPLICATION_READ_ONLY } from '../../src/schemas/applications';
import { EMPLOYEE_JOB_READ_ONLY, EMPLOYEE_READ_ONLY } from '../../src/schemas/employees';
import validateApplicationCreate from '../../src/schemas/generated/validate-application-create';
import validateEmployeeCreate from '../../src/schemas/generated/validate-employee-create';
import validateEmployeeJobCreate from '../../src/schemas/generated/validate-employee-job-create';
import { employeeChanges, normalizeEmployeeNumber } from '../../src/services/employees';
import { jobFields } from '../../src/services/employee-jobs';

type Json = Record<string, unknown>;

const employeeBody = bodyValidator<Json>(validateEmployeeCreate, { ignore: EMPLOYEE_READ_ONLY });
const jobBody = bodyValidator<Json>(validateEmployeeJobCreate, { ignore: EMPLOYEE_JOB_READ_ONLY });
const applicationBody = bodyValidator<Json>(validateApplicationCreate, { ignore: APPLICATION_READ_ONLY });

/** The POST body of a record: its fields without the fixture's own keys. */
export function bodyOf(entry: Json): Json {
  const body: Json = {};
  for (const [key, value] of Object.entries(entry))
    if (key !== 'external_id' && key !== 'employee_external_id' && key !== 'supervisor_external_id') body[key] = value;
  return body;
}

/** Stands in for the employee id the job will get; the schema wants one, the rules compare it. */
const EMPLOYEE_PLACEHOLDER = 'employee';
const SUPERVISOR_PLACEHOLDER = 'supervisor';

function describe(list: string, index: number, entry: Json, errors: FieldErrorCollector): string[] {
  let fields: Record<string, string[]> = {};
  try {
    errors.throwIfAny();
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    fields = error.fields;
  }
  return Object.entries(fields).map(
    ([field, messages]) =>
      `${list}[${index}] (external_id "${String(entry.external_id)}"): ${field} ${messages.join(', ')}`,
  );
}

/** Every problem of every record (empty: all of them would be created). */
export function checkFixtureRecords(fixture: Fixture, config: BusinessConfig, now = new Date()): string[] {
  const today = todayIn(config.timezone, now);
  const problems: string[] = [];
  const numbers = new Map<string, number>();
  const employees = new Set(fixture.employees.map((e) => String(e.external_id)));

  fixture.employees.forEach((entry, i) => {
    const errors = new FieldErrorCollector();
    const body = employeeBody(bodyOf(entry), errors);
    employeeChanges(
      body,
      config,
      'create',
      today,
      (f, m) => errors.add(f, m),
      (f) => errors.has(f),
    );
    // Contract §22: unique against earlier rows of the same file (stored records: the import checks them).
    const number = errors.has('employee_number') ? undefined : normalizeEmployeeNumber(body.employee_number);
    if (number) {
      if (numbers.has(number)) errors.add('employee_number', MESSAGES.taken);
      else numbers.set(number, i);
    }
    problems.push(...describe('employees', i, entry, errors));
  });

  fixture.employee_jobs.forEach((entry, i) => {
    const errors = new FieldErrorCollector();
    for (const key of ['employee_id', 'supervisor_id']) if (key in entry) errors.add(key, MESSAGES.unknownField);
    const employee = String(entry.employee_external_id);
    const supervisor = entry.supervisor_external_id === undefined ? undefined : String(entry.supervisor_external_id);
    if (!employees.has(employee)) errors.add('employee_external_id', MESSAGES.missingReference);
    const body = jobBody(
      {
        ...bodyOf(entry),
        employee_id: EMPLOYEE_PLACEHOLDER,
        ...(supervisor !== undefined
          ? { supervisor_id: supervisor === employee ? EMPLOYEE_PLACEHOLDER : SUPERVISOR_PLACEHOLDER }
          : {}),
      },
      errors,
    );
    // The supervisor checks of a POST, reported under the key the fixture uses.
    jobFields(
      body,
      config,
      { employeeId: EMPLOYEE_PLACEHOLDER, supervisorExists: supervisor !== undefined && employees.has(supervisor) },
      (f, m) => errors.add(f === 'supervisor_id' ? 'supervisor_external_id' : f, m),
      (f) => errors.has(f),
    );
    problems.push(...describe('employee_jobs', i, entry, errors));
  });

  fixture.applications.forEach((entry, i) => {
    const errors = new FieldErrorCollector();
    const body = applicationBody(bodyOf(entry), errors);
    fieldsForCreate(body, {
      config,
      today,
      report: (f, m) => errors.add(f, m),
      failed: (f) => errors.has(f),
    });
    problems.push(...describe('applications', i, entry, errors));
  });
  return problems;
}

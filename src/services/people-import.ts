/**
 * Records of a fixture or a sandbox's generated people (contract §24) into a
 * business, through the bulk import's row applier (contract §22,
 * src/services/import-rows.ts): each record takes its POST's path (or its
 * PUT's, when its external id was imported before), so there is one writer of
 * imported records. Re-importing the same records changes nothing (`unchanged`
 * keeps timestamps and ETags; a job already imported is `skipped`).
 *
 * A job names its employee by `employee_external_id` (the applier resolves
 * it) and its supervisor by `supervisor_external_id`, resolved here to the id
 * the supervisor's row got.
 */
import type { WriteOrigin } from '../domain/audit';
import type { ImportType, ResultLine } from '../domain/imports';
import type { ParsedRow } from '../domain/import-rows';
import { applyImportRows } from './import-rows';

type Json = Record<string, unknown>;

export interface PeopleRecords {
  readonly employees: readonly Json[];
  readonly employee_jobs: readonly Json[];
  readonly applications: readonly Json[];
}

export type ResultCounts = Record<ResultLine['result'], number>;

export interface PeopleImport {
  readonly counts: Record<ImportType, ResultCounts>;
  /** One line per failed record: `employee_jobs[4] (external_id "x"): to must be on or after from`. */
  readonly failures: string[];
}

const emptyCounts = (): ResultCounts => ({ created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 });

async function* rowsOf(records: readonly Json[]): AsyncGenerator<ParsedRow> {
  for (const [i, body] of records.entries()) yield { row: i + 1, body: { ...body } };
}

export async function importPeople(
  businessId: string,
  people: PeopleRecords,
  origin: WriteOrigin,
): Promise<PeopleImport> {
  const counts = { employees: emptyCounts(), employee_jobs: emptyCounts(), applications: emptyCounts() };
  const failures: string[] = [];
  const employeeIds = new Map<string, string>();

  const run = async (type: ImportType, records: readonly Json[]): Promise<void> => {
    for await (const line of applyImportRows(rowsOf(records), { businessId, type, mode: 'apply', origin })) {
      counts[type][line.result] += 1;
      if (type === 'employees' && line.id !== null && line.external_id !== null)
        employeeIds.set(line.external_id, line.id);
      if (line.result === 'failed')
        failures.push(
          `${type}[${line.row - 1}] (external_id "${String(line.external_id)}"): ${Object.entries(line.errors ?? {})
            .map(([field, messages]) => `${field} ${messages.join(', ')}`)
            .join('; ')}`,
        );
    }
  };

  await run('employees', people.employees);
  const jobs = people.employee_jobs.map((job) => {
    const { supervisor_external_id: supervisor, ...rest } = job;
    if (supervisor === undefined) return rest;
    // A supervisor whose own row failed names no employee: the job's row fails on it (`does not exist`).
    return { ...rest, supervisor_id: employeeIds.get(String(supervisor)) ?? String(supervisor) };
  });
  await run('employee_jobs', jobs);
  await run('applications', people.applications);
  return { counts, failures };
}

import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { EMPLOYEE_JOB_CHUNK } from '../../src/services/employee-jobs';
import { EMPLOYEE_CHUNK } from '../../src/services/employees';
import { APPLICATION_CHUNK } from '../../src/services/applications';
import { createChunkWrites } from '../../src/data/application-store';
import type { BusinessConfig } from '../../src/domain/business';
import { storedApplication } from '../support/stored-application';
import { createEmployeeJobWrites, createEmployeesWrites } from '../../src/data/employee-store';
import { feedAppendWrites } from '../../src/data/feed-store';
import { claimExternalIdWrite, rowResultWrite } from '../../src/data/import-store';
import { MAX_TRANSACTION_ITEMS, type TxWrite } from '../../src/data/dynamo/transact-write';
import { idsInLane, lanesOfKind } from '../../src/domain/change-feed';
import type { ResultLine } from '../../src/domain/imports';
import { MAP_SIZE } from '../../src/domain/list-map';

/**
 * A bulk import's chunk is one TransactWriteItems: at its worst (every row
 * with its own employee, lane, supervisor, external id claim) it must stay
 * within DynamoDB's 100 items wherever its reserved positions fall in the
 * list maps.
 */
const B = 'chunk-items';
const at = (ms: number) => new Date(ms).toISOString();
const lines = (n: number): ResultLine[] =>
  Array.from({ length: n }, (_, i) => ({
    row: i + 1,
    external_id: `x-${i}`,
    result: 'created',
    id: `id-${i}`,
    errors: null,
  }));
const importItems = (n: number): TxWrite[] => [
  ...Array.from({ length: n }, (_, i) => claimExternalIdWrite(B, 'employee_jobs', `x-${i}`, `id-${i}`)),
  rowResultWrite(B, 'imp', lines(n)),
];

/** A chunk's first position: anywhere, or a few before a superblock's end, where its map values span two. */
const firstPosition = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000 }),
  fc.integer({ min: 0, max: 30 }).map((k) => 3 * MAP_SIZE - k),
);

describe('chunk transactions', () => {
  it('EMPLOYEE_JOB_CHUNK jobs of as many employees, lanes and supervisors fit in one transaction', () => {
    expect(EMPLOYEE_JOB_CHUNK).toBeGreaterThan(1);
    const lanes = lanesOfKind('employee');
    fc.assert(
      fc.property(firstPosition, (first) => {
        // Each job's employee in a lane of its own (as far as there are lanes).
        const employees = Array.from({ length: EMPLOYEE_JOB_CHUNK }, (_, i) => ({
          id: idsInLane('employee', lanes[i % lanes.length] ?? 0, 1, randomUUID)[0] ?? '',
          jobCount: 3,
          version: 4,
          updatedAt: at(2_000 + i),
        }));
        const jobs = employees.map((e, i) => ({
          id: `job-${i}`,
          employeeId: e.id,
          createdAt: at(1_000 + i),
          fields: { name: 'Cook', from: '2026-01-01' },
          span: {
            seq: 4,
            from: '2026-01-01',
            to: null,
            supervisor_id: `s-${i}`,
            location_id: null,
            department_id: null,
          },
        }));
        const writes = [
          ...createEmployeeJobWrites(
            B,
            first,
            employees,
            jobs,
            jobs.map((_, i) => ({ id: `s-${i}`, missing: () => new Error('missing') })),
          ),
          ...employees.flatMap((e, i) =>
            feedAppendWrites(B, { lane: lanes[i % lanes.length] ?? 0, n: 7, days: {} }, [
              { type: 'employee_job.created', id: `job-${i}`, occurred_at: at(1_000 + i), data: {} },
              { type: 'employee.updated', id: e.id, occurred_at: at(2_000 + i), data: {} },
            ]),
          ),
          ...importItems(EMPLOYEE_JOB_CHUNK),
        ];
        return writes.length <= MAX_TRANSACTION_ITEMS;
      }),
      { numRuns: 50 },
    );
  });

  it('EMPLOYEE_CHUNK employees with employee_numbers fit in one transaction', () => {
    fc.assert(
      fc.property(firstPosition, (first) => {
        const employees = Array.from({ length: EMPLOYEE_CHUNK }, (_, i) => ({
          id: `e-${i}`,
          createdAt: at(1_000 + i),
          fields: { first_name: 'A', last_name: 'B' },
          employeeNumber: `N-${i}`,
        }));
        const writes = [
          ...createEmployeesWrites(B, first, employees, () => 'retry'),
          ...feedAppendWrites(
            B,
            { lane: lanesOfKind('employee')[0] ?? 0, n: 7, days: {} },
            employees.map((e) => ({ type: 'employee.created' as const, id: e.id, occurred_at: e.createdAt, data: {} })),
          ),
          ...importItems(EMPLOYEE_CHUNK),
        ];
        return writes.length <= MAX_TRANSACTION_ITEMS;
      }),
      { numRuns: 50 },
    );
  });
  it('APPLICATION_CHUNK applications, each in a job list of its own, fit in one transaction', () => {
    const jobs = Array.from({ length: APPLICATION_CHUNK }, (_, i) => `job-${i}`);
    const config: BusinessConfig = {
      id: B,
      name: B,
      locales: ['en'],
      timezone: 'Europe/Rome',
      employee_status_ids: [],
      default_employee_status_id: null,
      application_status_ids: ['new'],
      default_application_status_id: 'new',
      department_ids: [],
      job_opening_ids: jobs,
      location_ids: [],
      employee_fields: [],
      employee_job_fields: [],
      application_fields: [],
    };
    fc.assert(
      fc.property(firstPosition, firstPosition, (first, firstUpdate) => {
        const apps = jobs.map((job_id, i) => storedApplication({ id: `a-${i}`, created_at: at(1_000 + i), job_id }));
        const writes = [
          ...createChunkWrites(
            B,
            config,
            apps,
            { position: first, updatePosition: firstUpdate, ms: 1_000 },
            {
              lane: 0,
              n: 7,
              days: {},
            },
          ),
          ...feedAppendWrites(
            B,
            { lane: 0, n: 7, days: {} },
            apps.map((a) => ({ type: 'application.created' as const, id: a.id, occurred_at: a.created_at, data: {} })),
          ),
          ...importItems(APPLICATION_CHUNK),
        ];
        return writes.length <= MAX_TRANSACTION_ITEMS;
      }),
      { numRuns: 50 },
    );
  });
});

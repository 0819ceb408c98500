import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { demoFixtureText, setupOfFixture } from '../../scripts/lib/demo-fixture';
import { checkFixtureRecords } from '../../scripts/lib/fixture-records';
import { generatePeople } from '../../scripts/lib/people-generator';
import { parseSandboxCommand } from '../../scripts/lib/sandbox-command';
import { buildBusiness, NAMED_PAYOUT_TYPES } from '../../src/domain/fixture';
import { CUSTOM_FIELD_TYPES } from '../../src/domain/custom-fields';
import { parseFixture } from '../../src/schemas/fixture';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixture entries

const committed = readFileSync(join(__dirname, '..', '..', 'fixtures', 'demo.json'), 'utf8');
const demo = JSON.parse(committed) as Json;
const NOW = new Date('2026-11-27T12:00:00Z');

/** parseFixture, then the records as their POSTs would check them: every problem. */
function problemsOf(fixture: object): string[] {
  const parsed = parseFixture(fixture);
  if (!parsed.ok) return parsed.problems;
  return checkFixtureRecords(parsed.fixture, buildBusiness(parsed.fixture).config, NOW);
}

describe('fixtures/demo.json (contract §24)', () => {
  it('is what `npm run fixtures:demo` generates from the fixed seed, byte for byte, every time', () => {
    const first = demoFixtureText();
    expect(demoFixtureText()).toBe(first);
    expect(first).toBe(committed);
  });

  it('passes every fixture check, records included', () => {
    expect(problemsOf(demo)).toEqual([]);
  });

  it('has what a user tries filters on: histories, every payout type, every status, campaigns, speculative ones', () => {
    const anchor = '2026-12-01';
    expect(demo.business.locales).toEqual(['de', 'it', 'en']);
    expect(demo.locations.some((l: Json) => l.is_sub_business)).toBe(true);
    expect(
      demo.locations.some((l: Json) => l.parent_id && demo.locations.find((p: Json) => p.id === l.parent_id).parent_id),
    ).toBe(true);
    expect(new Set(demo.employee_payout_fields.map((f: Json) => f.type_of))).toEqual(
      new Set([...CUSTOM_FIELD_TYPES, ...NAMED_PAYOUT_TYPES]),
    );
    expect(demo.employees.length).toBeGreaterThanOrEqual(100);
    expect(new Set(demo.employees.map((e: Json) => e.country_code))).toEqual(
      new Set(['IT', 'AT', 'DE', 'CH', 'GB', 'IE']),
    );
    const jobs = demo.employee_jobs as Json[];
    expect(new Set(jobs.map((j) => j.time_type))).toEqual(new Set(['full_time', 'part_time', 'hourly']));
    expect(jobs.some((j) => j.supervisor_external_id)).toBe(true);
    const byEmployee = new Map<string, Json[]>();
    for (const j of jobs)
      byEmployee.set(j.employee_external_id, [...(byEmployee.get(j.employee_external_id) ?? []), j]);
    const histories = [...byEmployee.values()];
    const active = (j: Json): boolean => j.from <= anchor && (j.to === null || anchor <= j.to);
    expect(histories.filter((h) => h.every((j) => j.to !== null && j.to < anchor)).length).toBeGreaterThan(5); // leavers
    expect(histories.filter((h) => h.every((j) => j.from > anchor)).length).toBeGreaterThan(3); // future starters
    expect(histories.filter((h) => h.filter(active).length > 1).length).toBeGreaterThan(3); // overlapping jobs
    const apps = demo.applications as Json[];
    expect(apps.length).toBeGreaterThanOrEqual(500);
    expect(new Set(apps.map((a) => a.application_status_id))).toEqual(
      new Set(demo.application_statuses.map((s: Json) => s.id)),
    );
    expect(new Set(apps.map((a) => a.job_id ?? null))).toEqual(
      new Set([null, ...demo.job_openings.map((o: Json) => o.id)]),
    );
    expect(apps.filter((a) => a.campaign_id).length).toBeGreaterThan(100);
  });
});

describe('generated people fit any business they are generated for', () => {
  const other = {
    business: { id: 'bistro', name: 'Bistro', locales: ['it', 'en'], timezone: 'Europe/Rome' },
    employee_statuses: [{ id: 'on', name_it: 'Attivo', default: true }],
    application_statuses: [{ id: 'received', name_it: 'Ricevuta' }],
    job_openings: [],
    employee_fields: [
      { id: '7', type_of: 'select_radio', required: true, values: [{ id: 'x' }, { id: 'y' }] },
      { id: '8', type_of: 'datetime', required: true },
    ],
    employee_job_fields: [{ id: '9', type_of: 'float', required: true }],
    application_fields: [{ id: '10', type_of: 'select_multiple', required: true, values: [{ id: 'a' }] }],
  };

  it('every seed gives records the POSTs would accept (no departments, no job openings, required fields)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
        const people = generatePeople(setupOfFixture(other), {
          seed,
          anchor: '2026-11-27',
          employees: 12,
          applications: 6,
        });
        expect(problemsOf({ ...other, ...people })).toEqual([]);
        expect(people.applications.every((a) => a.job_id === undefined)).toBe(true);
      }),
      { numRuns: 15 },
    );
  });
});

describe('fixture records are checked as their POSTs (contract §10, §24)', () => {
  const base = {
    business: { id: 'b', name: 'B', locales: ['de', 'en'], timezone: 'Europe/Vienna' },
    employee_statuses: [{ id: 'active', default: true }],
    application_statuses: [{ id: 'new', default: true }],
    job_openings: [{ id: 'cook' }],
    employee_fields: [{ id: '5', type_of: 'integer', required: false }],
  };
  const anna = { external_id: 'anna', first_name: 'Anna', last_name: 'Huber' };

  it.each([
    [{ employees: [{ ...anna, first_name: ' ' }] }, 'employees[0] (external_id "anna"): first_name can\'t be blank'],
    [
      { employees: [{ ...anna, language: 'it' }] },
      'employees[0] (external_id "anna"): language is not included in the list',
    ],
    [{ employees: [{ ...anna, iban: 'DE00 1234' }] }, 'employees[0] (external_id "anna"): iban is invalid'],
    [{ employees: [{ ...anna, cf_5: 'many' }] }, 'employees[0] (external_id "anna"): cf_5 is invalid'],
    [{ employees: [{ ...anna, cf_6: 1 }] }, 'employees[0] (external_id "anna"): cf_6 is not a known field'],
    [{ employees: [{ ...anna, employee_status_id: 'gone' }] }, 'employee_status_id does not exist'],
    [
      {
        employees: [
          { ...anna, employee_number: '7' },
          { ...anna, external_id: 'bea', employee_number: ' 7 ' },
        ],
      },
      'employees[1] (external_id "bea"): employee_number has already been taken',
    ],
    [{ employees: [anna, anna] }, 'employees[1] (external_id "anna"): duplicate external_id'],
    [{ employees: [{ first_name: 'A', last_name: 'B' }] }, 'employees[0]: missing "external_id"'],
    [{ employees: [{ ...anna, external_id: 'a b' }] }, 'employees[0] (external_id "a b") external_id'],
    [
      {
        employees: [anna],
        employee_jobs: [{ external_id: 'j', employee_external_id: 'nobody', name: 'Cook', from: '2026-01-01' }],
      },
      'employee_jobs[0] (external_id "j"): employee_external_id does not exist',
    ],
    [
      {
        employees: [anna],
        employee_jobs: [
          {
            external_id: 'j',
            employee_external_id: 'anna',
            supervisor_external_id: 'anna',
            name: 'C',
            from: '2026-01-01',
          },
        ],
      },
      'employee_jobs[0] (external_id "j"): supervisor_external_id is invalid',
    ],
    [
      {
        employees: [anna],
        employee_jobs: [
          { external_id: 'j', employee_external_id: 'anna', name: 'C', from: '2026-02-01', to: '2026-01-01' },
        ],
      },
      'employee_jobs[0] (external_id "j"): to must be on or after from',
    ],
    [
      {
        employees: [anna],
        employee_jobs: [
          { external_id: 'j', employee_external_id: 'anna', employee_id: 'x', name: 'C', from: '2026-01-01' },
        ],
      },
      'employee_jobs[0] (external_id "j"): employee_id is not a known field',
    ],
    [
      {
        employees: [anna],
        employee_jobs: [
          { external_id: 'j', employee_external_id: 'anna', name: 'C', from: '2026-01-01', department_id: 'x' },
        ],
      },
      'employee_jobs[0] (external_id "j"): department_id does not exist',
    ],
    [
      { applications: [{ external_id: 'a1', first_name: 'A', last_name: 'B', email: 'a@example.com' }] },
      'applications[0] (external_id "a1"): accept_terms_and_conditions must be accepted',
    ],
    [
      {
        applications: [
          {
            external_id: 'a1',
            first_name: 'A',
            last_name: 'B',
            email: 'a@b.c',
            accept_terms_and_conditions: true,
            job_id: 'chef',
          },
        ],
      },
      'applications[0] (external_id "a1"): job_id does not exist',
    ],
    [
      {
        applications: [
          {
            external_id: 'a1',
            first_name: 'A',
            last_name: 'B',
            email: 'nope',
            accept_terms_and_conditions: true,
            birthday: '2030-01-01',
          },
        ],
      },
      'applications[0] (external_id "a1"): birthday is invalid',
    ],
  ])('refuses %j naming the record', (records, expected) => {
    const problems = problemsOf({ ...base, ...records });
    expect(problems.join('\n')).toContain(expected);
  });

  it('reports every bad record of the file at once', () => {
    const problems = problemsOf({
      ...base,
      employees: [
        { ...anna, first_name: '' },
        { ...anna, external_id: 'b' },
        { ...anna, external_id: 'c', gender: 'x' },
      ],
      applications: [
        { external_id: 'a', first_name: 'A', last_name: 'B', email: 'bad', accept_terms_and_conditions: true },
      ],
    });
    expect(problems).toEqual([
      'employees[0] (external_id "anna"): first_name can\'t be blank',
      'employees[2] (external_id "c"): gender is not included in the list',
      'applications[0] (external_id "a"): email is invalid',
    ]);
  });
});

describe('business sandbox arguments (checked before the tool connects anywhere)', () => {
  it.each([
    [['sandbox', 'demo'], { businessId: 'demo', reset: false, employees: 120, applications: 600 }],
    [
      ['sandbox', 'demo', '--reset', '--employees', '5', '--applications', '0'],
      { businessId: 'demo', reset: true, employees: 5, applications: 0 },
    ],
  ])('%j', (argv, expected) => expect(parseSandboxCommand(argv)).toEqual(expected));

  it.each([
    [['sandbox'], 'business sandbox: BUSINESS_ID is required'],
    [['copy', 'demo'], 'business: the only subcommand is sandbox, got copy'],
    [['sandbox', 'demo', 'other'], 'business sandbox: unexpected argument other'],
    [['sandbox', 'demo', '--employees', '1e3'], 'business sandbox: --employees must be a whole number from 0 to 10000'],
    [['sandbox', 'demo', '--applications', '10001'], '--applications must be a whole number from 0 to 10000'],
    [['sandbox', 'demo', '--force'], "Unknown option '--force'"],
  ])('%j is one line naming the problem', (argv, message) =>
    expect(parseSandboxCommand(argv)).toEqual(expect.stringContaining(message)),
  );
});

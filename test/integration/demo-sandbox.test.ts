/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import demo from '../../fixtures/demo.json';
import { setupOfFixture } from '../../scripts/lib/demo-fixture';
import { generatePeople } from '../../scripts/lib/people-generator';
import { configOf } from '../../src/data/business-store';
import { business } from '../../src/data/entities/business';
import { getItem } from '../../src/data/dynamo/table-io';
import { admin } from '../support/admin';
import { withoutRecords } from '../support/demo-setup';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * Contract §24: fixture records imported by `admin import` through the bulk
 * import's row applier, and sandboxes (`admin business sandbox`): a copy of a
 * business's setup with generated people, isolated both ways, reset safely
 * under concurrent requests, with its change feed answering 410 for cursors
 * from before the reset. Small generated businesses (a few dozen records),
 * not the demo's 900: the demo itself is checked record by record in
 * test/unit/demo-fixture.test.ts.
 */
let api: TestApi;
const dir = mkdtempSync(join(tmpdir(), 'demo-sandbox-'));
const setup = { ...withoutRecords(demo), business: { ...demo.business, id: 'hotel' } };
const people = generatePeople(setupOfFixture(setup), {
  seed: 7,
  anchor: '2026-11-01',
  employees: 9,
  applications: 16,
});
const file = join(dir, 'hotel.json');
writeFileSync(file, JSON.stringify({ ...setup, ...people }));

const lastJson = (stdout: string): any => JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
const get = (path: string, token: string) => api.request('GET', `${API}${path}`, { token });
const ids = async (path: string, token: string): Promise<string[]> =>
  (await get(`${path}${path.includes('?') ? '&' : '?'}per_page=100`, token)).body.entries.map((e: any) => e.id);

let liveToken: string;

beforeAll(async () => {
  api = await startApi();
  const imported = await admin('import', file);
  expect(imported).toMatchObject({ code: 0 });
  expect(imported.stderr).toContain('Records: employees: 9 created; employee_jobs:');
  liveToken = lastJson(imported.stdout).token;
}, 120_000);
afterAll(() => api.close());

describe('fixture records (admin import, contract §10, §24)', () => {
  it('are imported with their histories, and every list filter of applications finds some', async () => {
    const employees = (await get('/employees?per_page=100', liveToken)).body;
    expect(employees.total_entries).toBe(9);
    const byName = new Map(employees.entries.map((e: any) => [`${e.first_name} ${e.last_name}`, e]));
    const first = people.employees[0]!;
    const director: any = byName.get(`${first.first_name} ${first.last_name}`);
    expect(director).toMatchObject({ employee_number: first.employee_number, iban: first.iban });
    // Supervisors resolved from external ids: every job but the director's names another employee of the file.
    const jobs = (await get('/employee_jobs?per_page=100', liveToken)).body;
    expect(jobs.total_entries).toBe(people.employee_jobs.length);
    const employeeIds = new Set(employees.entries.map((e: any) => e.id));
    const supervised = jobs.entries.filter((j: any) => j.supervisor_id !== null);
    expect(supervised.length).toBe(people.employee_jobs.filter((j) => j.supervisor_external_id).length);
    expect(supervised.every((j: any) => employeeIds.has(j.supervisor_id) && j.supervisor_id !== j.employee_id)).toBe(
      true,
    );
    expect(employees.entries.filter((e: any) => e.supervisor_id !== null).length).toBeGreaterThan(0);

    const apps = (await get('/applications?per_page=100', liveToken)).body;
    expect(apps.total_entries).toBe(16);
    const filters = [
      ...new Set(people.applications.map((a) => `application_status_id=${String(a.application_status_id)}`)),
      'job_id=null',
      `job_id=${String(people.applications.find((a) => a.job_id)?.job_id)}`,
      `created_at_since=${encodeURIComponent(apps.entries[3].created_at)}`,
      `updated_at_since=${encodeURIComponent(apps.entries[5].updated_at)}`,
    ];
    for (const filter of filters) {
      const page = await get(`/applications?${filter}`, liveToken);
      expect({ filter, found: page.body.total_entries > 0 }).toEqual({ filter, found: true });
    }
  });

  it('a second import changes nothing: same timestamps, ETags, totals', async () => {
    const before = (await get('/employees?per_page=100', liveToken)).body.entries;
    const etag = (await get(`/employees/${before[0].id}`, liveToken)).headers.get('etag');
    const again = await admin('import', file);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('employees: 9 unchanged; employee_jobs: ');
    expect(again.stderr).toContain('skipped; applications: 16 unchanged');
    expect((await get('/employees?per_page=100', liveToken)).body.entries).toEqual(before);
    expect((await get(`/employees/${before[0].id}`, liveToken)).headers.get('etag')).toBe(etag);
    expect((await get('/employee_jobs', liveToken)).body.total_entries).toBe(people.employee_jobs.length);
  });

  it('a bad record refuses the whole file, naming it; nothing is written', async () => {
    const bad = {
      ...setup,
      business: { ...setup.business, id: 'refused' },
      ...people,
      applications: [...people.applications.slice(0, 3), { ...people.applications[3], email: 'not-an-address' }],
    };
    writeFileSync(join(dir, 'refused.json'), JSON.stringify(bad));
    const refused = await admin('import', join(dir, 'refused.json'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `applications[3] (external_id "${String(people.applications[3]!.external_id)}"): email is invalid`,
    );
    expect(refused.stdout).toBe('');
    expect(configOf(await getItem(business.configKey('refused')))).toBeUndefined();
  });
});

describe('admin business sandbox (contract §24)', () => {
  let sandboxToken: string;

  it('copies the setup, none of the records, fills it with generated people; isolated both ways', async () => {
    const made = await admin('business', 'sandbox', 'hotel', '--employees', '6', '--applications', '8');
    expect(made.code).toBe(0);
    expect(lastJson(made.stdout)).toMatchObject({ business_id: 'hotel-sandbox', token: expect.stringMatching(/^hr_/) });
    sandboxToken = lastJson(made.stdout).token;

    // Reference data and its ids: the live business's.
    for (const path of ['/locations/spa', '/employee_payout_fields/66', '/application_fields'])
      expect((await get(path, sandboxToken)).body).toEqual((await get(path, liveToken)).body);
    const live = { employees: await ids('/employees', liveToken), apps: await ids('/applications', liveToken) };
    const sandbox = {
      employees: await ids('/employees', sandboxToken),
      apps: await ids('/applications', sandboxToken),
    };
    expect([sandbox.employees.length, sandbox.apps.length]).toEqual([6, 8]);
    expect([live.employees.length, live.apps.length]).toEqual([9, 16]);
    // Never each other's records: not in lists, not by id, not as a reference.
    expect(sandbox.employees.filter((id) => live.employees.includes(id))).toEqual([]);
    expect((await get(`/employees/${live.employees[0]}`, sandboxToken)).status).toBe(404);
    expect((await get(`/applications/${live.apps[0]}`, sandboxToken)).status).toBe(404);
    expect((await get(`/employees/${sandbox.employees[0]}`, liveToken)).status).toBe(404);
    expect((await get(`/applications/${sandbox.apps[0]}`, liveToken)).status).toBe(404);
    const job = await api.request('POST', `${API}/employee_jobs`, {
      token: sandboxToken,
      body: { employee_id: sandbox.employees[0], supervisor_id: live.employees[0], name: 'Cook', from: '2026-01-01' },
    });
    expect(job.status).toBe(422);
    expect(job.body).toEqual({ supervisor_id: ['does not exist'] });

    // Run again: the setup copied again, its people kept.
    const again = await admin('business', 'sandbox', 'hotel');
    expect(again.code).toBe(0);
    expect(await ids('/employees', sandboxToken)).toEqual(sandbox.employees);
  });

  it('refuses a sandbox of a sandbox, of an unknown business, and to empty a business that is not its sandbox', async () => {
    for (const [args, message] of [
      [['hotel-sandbox'], 'business hotel-sandbox is a sandbox (of hotel)'],
      [['nowhere'], 'business nowhere does not exist'],
    ] as const) {
      const res = await admin('business', 'sandbox', ...args, '--reset');
      expect({ code: res.code, stderr: res.stderr }).toMatchObject({
        code: 1,
        stderr: expect.stringContaining(message),
      });
    }
    await api.provision({ ...setup, business: { ...setup.business, id: 'twin-sandbox' } });
    await api.provision({ ...setup, business: { ...setup.business, id: 'twin' } });
    const res = await admin('business', 'sandbox', 'twin', '--reset');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('business twin-sandbox exists and is not a sandbox of twin: nothing changed');
  });

  it('--reset under concurrent requests: no 5xx, nothing of the old sandbox survives, old cursors get 410', async () => {
    const oldEmployees = await ids('/employees', sandboxToken);
    const oldApps = await ids('/applications', sandboxToken);
    const oldJobs = await ids('/employee_jobs', sandboxToken);
    const cursor = (await get('/changes?limit=500', sandboxToken)).body.next_cursor;
    const before = await get(`/changes?after=${cursor}`, sandboxToken);
    expect(before.status).toBe(200);
    // An import waiting for its upload: the reset removes it too (and frees the business's one import slot).
    const pending = await api.request('POST', `${API}/imports`, {
      token: sandboxToken,
      body: { type: 'employees', format: 'jsonl', mode: 'apply', size: 10 },
    });
    expect(pending.status).toBe(201);

    let resetting = true;
    const statuses: number[] = [];
    const traffic = (async () => {
      for (let i = 0; resetting; i++) {
        const old = oldEmployees[i % oldEmployees.length]!;
        const answers = await Promise.all([
          get('/employees?per_page=100', sandboxToken),
          get(`/applications?job_id=null&per_page=100`, sandboxToken),
          get(`/employees/${old}`, sandboxToken),
          api.request('PUT', `${API}/employees/${old}`, { token: sandboxToken, body: { city: `Lana ${i}` } }),
          get(`/changes?after=${cursor}`, sandboxToken),
        ]);
        statuses.push(...answers.map((a) => a.status));
      }
    })();
    const reset = await admin('business', 'sandbox', 'hotel', '--reset', '--employees', '5', '--applications', '7');
    resetting = false;
    await traffic;
    expect(reset.code).toBe(0);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);

    const now = {
      employees: await ids('/employees', sandboxToken),
      apps: await ids('/applications', sandboxToken),
      jobs: await ids('/employee_jobs', sandboxToken),
    };
    expect([now.employees.length, now.apps.length]).toEqual([5, 7]);
    expect(now.employees.filter((id) => oldEmployees.includes(id))).toEqual([]);
    expect(now.apps.filter((id) => oldApps.includes(id))).toEqual([]);
    expect(now.jobs.filter((id) => oldJobs.includes(id))).toEqual([]);
    for (const id of [oldEmployees[0], oldEmployees[1]])
      expect((await get(`/employees/${id}`, sandboxToken)).status).toBe(404);
    expect((await get(`/applications/${oldApps[0]}`, sandboxToken)).status).toBe(404);
    expect((await get(`/imports/${pending.body.id}`, sandboxToken)).status).toBe(404);
    expect((await get('/imports', sandboxToken)).body.total_entries).toBe(0);

    // The feed: a cursor from before the reset is gone; read from the start, the refill's creations only.
    const stale = await get(`/changes?after=${cursor}`, sandboxToken);
    expect(stale.status).toBe(410);
    expect(stale.body.error).toBe('cursor_expired');
    const fresh = await get('/changes?limit=500', sandboxToken);
    expect(fresh.status).toBe(200);
    const old = new Set([...oldEmployees, ...oldApps, ...oldJobs]);
    expect(fresh.body.entries.filter((e: any) => old.has(e.id))).toEqual([]);
    const created = fresh.body.entries.filter((e: any) => e.type.endsWith('.created')).map((e: any) => e.id);
    expect(created).toEqual(expect.arrayContaining([...now.employees, ...now.apps, ...now.jobs]));
    expect((await get(`/changes?after=${fresh.body.next_cursor}`, sandboxToken)).status).toBe(200);

    // The live business did not notice.
    expect(await ids('/employees', liveToken)).toHaveLength(9);
  }, 120_000);
});

import demo from '../../fixtures/demo.json';
import twoLocales from '../fixtures/two-locales.json';
import { API, countCalls, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { dayIn } from '../support/dates';
import { forgetPageHints } from '../../src/data/lists/hints';

// Parallel test files share one DynamoDB Local on few cores: allow for slow setup under load.
jest.setTimeout(30_000);

let api: TestApi;
let demoToken: string;
let bistroToken: string;

beforeAll(async () => {
  api = await startApi();
  [demoToken, bistroToken] = await Promise.all([api.provision(demo), api.provision(twoLocales)]);
});
afterAll(() => api.close());

const day = (offset: number): string => dayIn(demo.business.timezone, offset);

async function newEmployee(token = demoToken, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.request('POST', `${API}/employees`, {
    token,
    body: { first_name: 'Jo', last_name: 'Bs', ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const postJob = (body: unknown, token = demoToken, headers: Record<string, string> = {}) =>
  api.request('POST', `${API}/employee_jobs`, { token, body, headers });
const getEmployee = (id: string, token = demoToken) => api.request('GET', `${API}/employees/${id}`, { token });
const listJobs = (query: string, token = demoToken) => api.request('GET', `${API}/employee_jobs${query}`, { token });

async function job(employeeId: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  const res = await postJob({ employee_id: employeeId, name: 'Cook', from: day(-10), ...extra });
  expect(res.status).toBe(201);
  return res;
}

const JOB_KEYS = [
  'id',
  'employee_id',
  'name',
  'from',
  'to',
  'notes',
  'time_percentage',
  'time_hours',
  'time_type',
  'time_table',
  'classification',
  'job_type',
  'supervisor_id',
  'department_id',
  'location_id',
  'cf_21',
  'cf_22',
  'created_at',
  'updated_at',
];

describe('POST /employee_jobs', () => {
  it('creates a job with every field, null where unset', async () => {
    const employeeId = await newEmployee();
    const res = await postJob({ employee_id: employeeId, name: 'Cook', from: '2024-01-01' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...JOB_KEYS].sort());
    expect(res.body).toMatchObject({
      employee_id: employeeId,
      name: 'Cook',
      from: '2024-01-01',
      to: null,
      notes: null,
      time_table: null,
      cf_21: null,
      cf_22: null,
    });
    expect(res.headers.get('location')).toBe(`${API}/employee_jobs/${res.body.id}`);
    expect(res.headers.get('etag')).toMatch(/^".+"$/);
    const read = await api.request('GET', `${API}/employee_jobs/${res.body.id}`, { token: demoToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('stores all optional fields', async () => {
    const employeeId = await newEmployee();
    const supervisorId = await newEmployee();
    const body = {
      employee_id: employeeId,
      name: 'Sous chef',
      from: '2024-03-01',
      to: '2024-03-01',
      notes: 'Seasonal help',
      time_percentage: 50.5,
      time_hours: 20,
      time_type: 'part_time',
      time_table: [4, 4, 4, 4, 4, 0, 0],
      classification: 'Level 3',
      job_type: 'seasonal',
      supervisor_id: supervisorId,
      department_id: 'kitchen',
      location_id: 'restaurant',
      cf_21: 12.345,
      cf_22: true,
    };
    const res = await postJob(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, cf_21: 12.35 });
  });

  it('reports every failing field at once with the contract messages, and writes nothing', async () => {
    const employeeId = await newEmployee();
    const before = (await listJobs('?per_page=1')).body.total_entries;
    const res = await postJob({
      employee_id: employeeId,
      name: '  ',
      from: '2024-02-30',
      time_percentage: 101,
      time_hours: -1,
      time_type: 'sometimes',
      job_type: 'forever',
      time_table: [8, 8, 8, 8, 8],
      classification: 5,
      supervisor_id: 'nobody',
      department_id: 'nope',
      location_id: 'nowhere',
      cf_21: 'lots',
      cf_77: 1,
      salary: 1000,
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      name: ["can't be blank"],
      from: ['is invalid'],
      time_percentage: ['is invalid'],
      time_hours: ['is invalid'],
      time_type: ['is not included in the list'],
      job_type: ['is not included in the list'],
      time_table: ['is invalid'],
      classification: ['is invalid'],
      supervisor_id: ['does not exist'],
      department_id: ['does not exist'],
      location_id: ['does not exist'],
      cf_21: ['is invalid'],
      cf_77: ['is not a known field'],
      salary: ['is not a known field'],
    });
    expect((await listJobs('?per_page=1')).body.total_entries).toBe(before);
    expect((await listJobs(`?employee_id=${employeeId}`)).body.total_entries).toBe(0);
  });

  it('missing mandatory fields are blank; to before from; self-supervision', async () => {
    const missing = await postJob({});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      employee_id: ["can't be blank"],
      name: ["can't be blank"],
      from: ["can't be blank"],
    });

    const employeeId = await newEmployee();
    const res = await postJob({
      employee_id: employeeId,
      name: 'X',
      from: '2024-05-02',
      to: '2024-05-01',
      supervisor_id: employeeId,
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ to: ['must be on or after from'], supervisor_id: ['is invalid'] });

    const nulls = await postJob({ employee_id: null, name: null, from: null });
    expect(nulls.body).toEqual({ employee_id: ["can't be blank"], name: ["can't be blank"], from: ["can't be blank"] });
  });

  it('time_table: null or 7 numbers 0..24', async () => {
    const employeeId = await newEmployee();
    for (const bad of [[1, 2, 3, 4, 5, 6, 25], [1, 2, 3, 4, 5, 6, '7'], 'mon-fri', [1, 2, 3, 4, 5, 6, 7, 8]]) {
      const res = await postJob({ employee_id: employeeId, name: 'X', from: '2024-01-01', time_table: bad });
      expect(res.body).toEqual({ time_table: ['is invalid'] });
    }
    expect((await postJob({ employee_id: employeeId, name: 'X', from: '2024-01-01', time_table: null })).status).toBe(
      201,
    );
  });

  it('an unknown employee_id (or one of another business) → 404 naming the id', async () => {
    const res = await postJob({ employee_id: 'ghost-42', name: 'Cook', from: '2024-01-01' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'not_found',
      message: expect.stringContaining('ghost-42'),
      request_id: expect.any(String),
    });

    const foreign = await newEmployee(bistroToken, { cf_5: 1 });
    const other = await postJob({ employee_id: foreign, name: 'Cook', from: '2024-01-01' });
    expect(other.status).toBe(404);
    expect(other.body.message).toContain(foreign);
  });

  it('field errors are reported before an unknown employee', async () => {
    const res = await postJob({ employee_id: 'ghost-42', name: 'Cook', from: 'soon' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ from: ['is invalid'] });
  });

  it('a supervisor of another business does not exist', async () => {
    const employeeId = await newEmployee();
    const foreign = await newEmployee(bistroToken, { cf_5: 1 });
    const res = await postJob({ employee_id: employeeId, name: 'Cook', from: '2024-01-01', supervisor_id: foreign });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ supervisor_id: ['does not exist'] });
  });

  it('ignores read-only fields', async () => {
    const employeeId = await newEmployee();
    const res = await postJob({
      employee_id: employeeId,
      name: 'Cook',
      from: '2024-01-01',
      id: 'mine',
      created_at: 'x',
    });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe('mine');
  });

  it('costs the token GetItem, one BatchGetItem with the position reservation beside it, one TransactWriteItems: 3 round trips', async () => {
    const employeeId = await newEmployee();
    const supervisorId = await newEmployee();
    const { result, calls, roundTrips } = await countCalls(() =>
      postJob({ employee_id: employeeId, name: 'Cook', from: '2024-01-01', supervisor_id: supervisorId }, demoToken, {
        'idempotency-key': 'job-rt',
      }),
    );
    expect(result.status).toBe(201);
    expect({ calls, roundTrips }).toEqual({ calls: 4, roundTrips: 3 });
  });
});

describe('derived employee fields (contract §4)', () => {
  it('a new employee has none; past, current and future jobs', async () => {
    const id = await newEmployee();
    const past = await job(id, { from: day(-400), to: day(-200), department_id: 'service', location_id: 'hq' });
    let e = (await getEmployee(id)).body;
    expect(e).toMatchObject({
      has_active_employee_job: false,
      has_active_or_future_employee_job: false,
      first_employee_job_from: day(-400),
      first_employee_job_to: day(-200),
      last_employee_job_from: day(-400),
      current_employee_job_from: null,
      current_employee_job_to: null,
      current_or_last_employee_job_from: day(-400),
      current_or_last_employee_job_to: day(-200),
      department_id: 'service',
      location_id: 'hq',
      supervisor_id: null,
    });
    expect(past.body.employee_id).toBe(id);

    const supervisor = await newEmployee();
    await job(id, {
      from: day(0),
      to: null,
      department_id: 'kitchen',
      location_id: 'restaurant',
      supervisor_id: supervisor,
    });
    await job(id, { from: day(30), to: day(60), department_id: 'reception', location_id: 'spa' });
    e = (await getEmployee(id)).body;
    expect(e).toMatchObject({
      has_active_employee_job: true,
      has_active_or_future_employee_job: true,
      first_employee_job_from: day(-400),
      first_employee_job_to: day(-200),
      last_employee_job_from: day(30),
      last_employee_job_to: day(60),
      current_employee_job_from: day(0),
      current_employee_job_to: null,
      current_or_last_employee_job_from: day(0),
      current_or_last_employee_job_to: null,
      supervisor_id: supervisor,
      department_id: 'kitchen',
      location_id: 'restaurant',
    });
  });

  it('only a future job: not active, but active-or-future; current-or-last is the future job', async () => {
    const id = await newEmployee();
    await job(id, { from: day(5), to: null, location_id: 'terrace' });
    expect((await getEmployee(id)).body).toMatchObject({
      has_active_employee_job: false,
      has_active_or_future_employee_job: true,
      current_employee_job_from: null,
      current_or_last_employee_job_from: day(5),
      location_id: 'terrace',
    });
  });

  it('a job ending today is still active; ties on from go to the later-created job', async () => {
    const id = await newEmployee();
    await job(id, { from: day(-3), to: day(0), department_id: 'kitchen' });
    await job(id, { from: day(-3), to: day(0), department_id: 'service' });
    expect((await getEmployee(id)).body).toMatchObject({
      has_active_employee_job: true,
      current_employee_job_to: day(0),
      department_id: 'service',
    });
  });

  it('today is the business’s today', async () => {
    const tz = twoLocales.business.timezone; // UTC+14: its today is ahead of most of the world
    const id = await newEmployee(bistroToken, { cf_5: 1 });
    const res = await postJob({ employee_id: id, name: 'Bar', from: dayIn(tz, 0) }, bistroToken);
    expect(res.status).toBe(201);
    expect((await getEmployee(id, bistroToken)).body.has_active_employee_job).toBe(true);
  });

  it('creating a job moves the employee’s updated_at and ETag', async () => {
    const id = await newEmployee();
    const before = await getEmployee(id);
    await new Promise((r) => setTimeout(r, 5));
    const created = await job(id);
    const after = await getEmployee(id);
    expect(after.body.updated_at > before.body.updated_at).toBe(true);
    expect(after.body.updated_at).toBe(created.body.created_at);
    expect(after.body.created_at).toBe(before.body.created_at);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // An ETag read before the job was added no longer matches.
    const stale = await api.request('PUT', `${API}/employees/${id}`, {
      token: demoToken,
      body: { city: 'X' },
      headers: { 'if-match': before.headers.get('etag') as string },
    });
    expect(stale.status).toBe(412);
  });

  it('8 parallel job creations for one employee all count', async () => {
    const id = await newEmployee();
    const totalBefore = (await listJobs('?per_page=1')).body.total_entries;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        postJob({ employee_id: id, name: `Shift ${i}`, from: day(-20 + i), to: day(-20 + i) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const e = (await getEmployee(id)).body;
    expect(e.first_employee_job_from).toBe(day(-20));
    expect(e.last_employee_job_from).toBe(day(-13));
    const mine = await listJobs(`?employee_id=${id}`);
    expect(mine.body.total_entries).toBe(8);
    expect(new Set(mine.body.entries.map((j: { id: string }) => j.id))).toEqual(new Set(results.map((r) => r.body.id)));
    expect((await listJobs('?per_page=1')).body.total_entries).toBe(totalBefore + 8);
  });

  it('parallel PUTs and job creations on one employee all land', async () => {
    const id = await newEmployee();
    const results = await Promise.all([
      job(id, { from: day(-1) }),
      api.request('PUT', `${API}/employees/${id}`, { token: demoToken, body: { city: 'Meran' } }),
      job(id, { from: day(-2) }),
      api.request('PUT', `${API}/employees/${id}`, { token: demoToken, body: { phone: '1' } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([201, 200, 201, 200]);
    const e = (await getEmployee(id)).body;
    expect(e).toMatchObject({
      city: 'Meran',
      phone: '1',
      first_employee_job_from: day(-2),
      last_employee_job_from: day(-1),
    });
  });
});

describe('GET /employee_jobs/{id}', () => {
  it('costs the token GetItem and one BatchGetItem; unknown or foreign id → 404', async () => {
    const id = await newEmployee();
    const created = await job(id);
    const { result, calls } = await countCalls(() =>
      api.request('GET', `${API}/employee_jobs/${created.body.id}`, { token: demoToken }),
    );
    expect(result.status).toBe(200);
    expect(calls).toBe(2);
    expect((await api.request('GET', `${API}/employee_jobs/nope`, { token: demoToken })).status).toBe(404);
    expect((await api.request('GET', `${API}/employee_jobs/${'x'.repeat(3000)}`, { token: demoToken })).status).toBe(
      404,
    );
    const foreign = await api.request('GET', `${API}/employee_jobs/${created.body.id}`, { token: bistroToken });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
  });
});

describe('GET /employee_jobs (pagination, contract §7)', () => {
  let token: string;
  let alice: string;
  let bob: string;
  const aliceJobs: string[] = [];
  const allJobs: string[] = [];

  beforeAll(async () => {
    token = await api.provision({ ...twoLocales, business: { ...twoLocales.business, id: 'paging-jobs' } });
    alice = await newEmployee(token, { cf_5: 1 });
    bob = await newEmployee(token, { cf_5: 2 });
    for (let i = 0; i < 5; i++) {
      for (const who of [alice, bob]) {
        const res = await postJob({ employee_id: who, name: `J${i}`, from: '2024-01-01' }, token);
        expect(res.status).toBe(201);
        allJobs.push(res.body.id);
        if (who === alice) aliceJobs.push(res.body.id);
      }
    }
  });

  it('lists the business’s jobs in creation order', async () => {
    const res = await listJobs('?per_page=4&page=2', token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_page: 2, per_page: 4, total_entries: 10 });
    expect(res.body.entries.map((j: { id: string }) => j.id)).toEqual(allJobs.slice(4, 8));
    expect(res.headers.get('link')).toContain('rel="next"');
  });

  it('filters by employee_id, paging within that employee’s jobs and keeping the filter in Link', async () => {
    const res = await listJobs(`?employee_id=${alice}&per_page=2&page=2`, token);
    expect(res.body).toMatchObject({ current_page: 2, per_page: 2, total_entries: 5 });
    expect(res.body.entries.map((j: { id: string }) => j.id)).toEqual(aliceJobs.slice(2, 4));
    expect(res.body.entries.every((j: { employee_id: string }) => j.employee_id === alice)).toBe(true);
    expect(res.headers.get('link')).toContain(`employee_id=${alice}`);
    const full = await listJobs(`?employee_id=${bob}`, token);
    expect(full.body.total_entries).toBe(5);
    expect(full.body.entries).toHaveLength(5);
  });

  it('an unknown or foreign employee_id gives an empty page', async () => {
    expect((await listJobs('?employee_id=ghost', token)).body).toEqual({
      entries: [],
      current_page: 1,
      per_page: 30,
      total_entries: 0,
    });
    const foreign = await listJobs(`?employee_id=${alice}`, demoToken);
    expect(foreign.status).toBe(200);
    expect(foreign.body.total_entries).toBe(0);
    expect(foreign.body.entries).toEqual([]);
  });

  it('a page past the end is empty; bad parameters → 400', async () => {
    expect((await listJobs('?page=9', token)).body).toEqual({
      entries: [],
      current_page: 9,
      per_page: 30,
      total_entries: 10,
    });
    const bad = await listJobs('?employee_id=&page=x&status=1', token);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ employee_id: ['is invalid'], page: ['is invalid'], status: ['is not a known field'] });
  });

  it("costs 3 round trips warm (4 cold) for the business list, 2 for an employee's own (dense) list", async () => {
    for (const [q, cold, warm] of [
      // Summary Query (and the hinted maps' Query); the key-only Query; the records with the config and the token.
      ['?per_page=3', { calls: 4, roundTrips: 4 }, { calls: 4, roundTrips: 3 }],
      // Config, employee and token beside the key-only Query; the records.
      [`?employee_id=${alice}&per_page=3`, { calls: 3, roundTrips: 2 }, { calls: 3, roundTrips: 2 }],
    ] as const) {
      forgetPageHints();
      for (const expected of [cold, warm]) {
        const { result, calls, roundTrips } = await countCalls(() => listJobs(q, token));
        expect(result.status).toBe(200);
        expect({ calls, roundTrips }).toEqual(expected);
      }
    }
  });
});

describe('idempotent POST /employee_jobs (contract §11)', () => {
  it('replays the first response; another body → 409; one job created', async () => {
    const id = await newEmployee();
    const headers = { 'idempotency-key': 'job-create-1' };
    const body = { employee_id: id, name: 'Cook', from: '2024-01-01' };
    const first = await postJob(body, demoToken, headers);
    expect(first.status).toBe(201);
    const again = await postJob(body, demoToken, headers);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const other = await postJob({ ...body, name: 'Waiter' }, demoToken, headers);
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');
    expect((await listJobs(`?employee_id=${id}`)).body.total_entries).toBe(1);
  });
});

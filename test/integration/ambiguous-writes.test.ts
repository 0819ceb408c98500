import demo from '../../fixtures/demo.json';
import { API, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { AMBIGUOUS_FAULTS, proxyTheApi, seededRandom, type DynamoProxy } from '../support/dynamo-proxy';

/**
 * Contract §3/§11: DynamoDB sometimes applies a write and loses the answer
 * (500, reset, timeout). The API finds out before answering: one stored record
 * per 201, none for any 5xx, nothing applied twice. Creates here carry no
 * Idempotency-Key, so nothing but the write path itself can deduplicate.
 */
let api: TestApi;
let token: string;
let proxy: DynamoProxy & { restore(): Promise<void> };
const CREATES = 60;

const FAULTS = AMBIGUOUS_FAULTS;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(demo);
  proxy = await proxyTheApi({}, seededRandom(20261123));
});
afterAll(async () => {
  await proxy.restore();
  await api.close();
});

/** Runs `count` creates one after another with the faults on; returns every answer. */
async function underFaults(count: number, create: (i: number) => Promise<ApiResponse>): Promise<ApiResponse[]> {
  proxy.resetStats();
  proxy.setModes(FAULTS);
  const answers: ApiResponse[] = [];
  try {
    for (let i = 0; i < count; i++) answers.push(await create(i));
  } finally {
    proxy.setModes({});
  }
  return answers;
}

/** Every answer is a 201 or a 503 with Retry-After; returns the 201s. */
function createdOnly(answers: ApiResponse[]): ApiResponse[] {
  for (const res of answers) {
    expect([201, 503]).toContain(res.status);
    if (res.status === 503) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  }
  const created = answers.filter((r) => r.status === 201);
  // The faults really happened, and the API still created records: with these fault rates on every call (each
  // create makes three or more), 55-93 % of creates answer 201 in a run of this file alone and down to 48 % beside
  // the whole suite on two cores (application creates, whose read is the largest); a third is the floor.
  expect(proxy.stats.faults.applyThenFail).toBeGreaterThanOrEqual(10);
  expect(created.length).toBeGreaterThanOrEqual(count(answers) / 3);
  return created;
}
const count = (list: unknown[]): number => list.length;

const list = async (path: string) => {
  const res = await api.request('GET', `${API}${path}${path.includes('?') ? '&' : '?'}per_page=100`, { token });
  expect(res.status).toBe(200);
  return res.body as { entries: { id: string }[]; total_entries: number };
};

describe('ambiguous writes (30 % applied-then-500, throttles, dropped connections)', () => {
  it('employees: one record per 201, none per 503; employee_number stays unique', async () => {
    const before = await list('/employees');
    const answers = await underFaults(CREATES, (i) =>
      api.request('POST', `${API}/employees`, {
        token,
        body: { first_name: 'Amb', last_name: `E${i}`, employee_number: `AMB-${i}` },
      }),
    );
    const created = createdOnly(answers);
    const after = await list('/employees');
    expect(after.total_entries).toBe(before.total_entries + created.length);
    const stored = after.entries.filter((e) => !before.entries.some((b) => b.id === e.id));
    expect(stored.map((e) => e.id).sort()).toEqual(created.map((r) => r.body.id).sort());
    for (const res of created) {
      const shown = await api.request('GET', `${API}/employees/${res.body.id}`, { token });
      expect(shown.body).toEqual(res.body);
    }
    // A number whose create answered 503 was never claimed; one that answered 201 is taken.
    for (const [i, res] of answers.entries()) {
      const again = await api.request('POST', `${API}/employees`, {
        token,
        body: { first_name: 'Again', last_name: `E${i}`, employee_number: `AMB-${i}` },
      });
      expect(again.status).toBe(res.status === 201 ? 422 : 201);
    }
  }, 240_000);

  it('employee jobs: one job per 201, derived job dates of the employee match exactly those', async () => {
    const employee = await api.request('POST', `${API}/employees`, {
      token,
      body: { first_name: 'Jobs', last_name: 'Holder' },
    });
    expect(employee.status).toBe(201);
    const id = employee.body.id as string;
    const day = (i: number) => new Date(Date.UTC(2020, 0, 1 + i * 3)).toISOString().slice(0, 10);
    const answers = await underFaults(CREATES, (i) =>
      api.request('POST', `${API}/employee_jobs`, {
        token,
        body: { employee_id: id, name: `Job ${i}`, from: day(i), to: day(i) },
      }),
    );
    const created = createdOnly(answers);
    const jobs = await list(`/employee_jobs?employee_id=${id}`);
    expect(jobs.total_entries).toBe(created.length);
    expect(jobs.entries.map((j) => j.id).sort()).toEqual(created.map((r) => r.body.id).sort());
    const froms = created.map((r) => r.body.from as string).sort();
    const shown = await api.request('GET', `${API}/employees/${id}`, { token });
    expect(shown.body.first_employee_job_from).toBe(froms[0]);
    expect(shown.body.last_employee_job_from).toBe(froms[froms.length - 1]);
    expect(shown.body.last_employee_job_to).toBe(froms[froms.length - 1]);
  }, 240_000);

  it('applications: one record per 201, none per 503; list totals exact', async () => {
    const before = await list('/applications?job_id=cook-2026');
    const answers = await underFaults(CREATES, (i) =>
      api.request('POST', `${API}/applications`, {
        token,
        body: {
          accept_terms_and_conditions: true,
          first_name: 'Amb',
          last_name: `A${i}`,
          email: `a${i}@example.com`,
          job_id: 'cook-2026',
        },
      }),
    );
    const created = createdOnly(answers);
    const after = await list('/applications?job_id=cook-2026');
    expect(after.total_entries).toBe(before.total_entries + created.length);
    const all = await list('/applications');
    const fresh = after.entries.filter((e) => !before.entries.some((b) => b.id === e.id)).map((e) => e.id);
    expect(fresh.sort()).toEqual(created.map((r) => r.body.id).sort());
    expect(all.total_entries).toBeGreaterThanOrEqual(after.total_entries);
  }, 240_000);
});

import demo from '../../fixtures/demo.json';
import { ROUTES } from '../../src/http/routes';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * Contract §1: a token of one business can never read, write or reference
 * another business's records; they answer exactly like ids that do not exist.
 * Both businesses use the same fixture, so even equal ids must not leak.
 */
let api: TestApi;
let ours: string;
let theirs: string;
const foreign: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi();
  theirs = await api.provision({ ...demo, business: { ...demo.business, id: 'theirs' } });
  ours = await api.provision({ ...demo, business: { ...demo.business, id: 'ours' } });
  const t = { token: theirs };
  foreign.employee = (
    await api.request('POST', `${API}/employees`, {
      ...t,
      body: { first_name: 'T', last_name: 'Heirs', employee_number: 'E-1' },
    })
  ).body.id;
  foreign.job = (
    await api.request('POST', `${API}/employee_jobs`, {
      ...t,
      body: { employee_id: foreign.employee, name: 'Cook', from: '2026-01-01' },
    })
  ).body.id;
  foreign.application = (
    await api.request('POST', `${API}/applications`, {
      ...t,
      body: {
        first_name: 'T',
        last_name: 'H',
        email: 't@example.com',
        accept_terms_and_conditions: true,
        job_id: 'cook-2026',
      },
    })
  ).body.id;
});
afterAll(() => api.close());

const idFor: Record<string, () => string> = {
  employees: () => foreign.employee ?? '',
  employee_jobs: () => foreign.job ?? '',
  applications: () => foreign.application ?? '',
};

describe('every {id} route with a foreign id answers like a missing id', () => {
  const idRoutes = ROUTES.filter((r) => r.path.includes('{id}') && r.auth);
  it.each(idRoutes.map((r) => [r.name, r] as const))('%s', async (_name, route) => {
    const collection = route.path.split('/').slice(-2)[0] ?? '';
    const id = idFor[collection]?.();
    if (!id) return; // reference data: same ids exist in both businesses by design (covered below)
    const body = route.method === 'PUT' ? { first_name: 'Hijack' } : undefined;
    const res = await api.request(route.method, route.path.replace('{id}', id), { token: ours, body });
    const missing = await api.request(route.method, route.path.replace('{id}', 'no-such-id'), { token: ours, body });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(missing.body.error);
    expect(res.body.message.replace(id, 'X')).toBe(missing.body.message.replace('no-such-id', 'X'));
  });

  it('the foreign records are unchanged afterwards', async () => {
    const res = await api.request('GET', `${API}/employees/${foreign.employee}`, { token: theirs });
    expect(res.body.first_name).toBe('T');
  });
});

describe('references in bodies stay inside the business', () => {
  it('a job for a foreign employee → 404 naming the id', async () => {
    const res = await api.request('POST', `${API}/employee_jobs`, {
      token: ours,
      body: { employee_id: foreign.employee, name: 'Cook', from: '2026-01-01' },
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain(foreign.employee);
  });

  it('a foreign supervisor → 422 does not exist', async () => {
    const mine = (
      await api.request('POST', `${API}/employees`, { token: ours, body: { first_name: 'O', last_name: 'Urs' } })
    ).body.id;
    const res = await api.request('POST', `${API}/employee_jobs`, {
      token: ours,
      body: { employee_id: mine, name: 'Cook', from: '2026-01-01', supervisor_id: foreign.employee },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ supervisor_id: ['does not exist'] });
  });

  it('employee_number uniqueness is per business', async () => {
    const res = await api.request('POST', `${API}/employees`, {
      token: ours,
      body: { first_name: 'A', last_name: 'B', employee_number: 'E-1' },
    });
    expect(res.status).toBe(201);
  });
});

describe('lists never contain another business’s records', () => {
  it.each(['employees', 'employee_jobs', 'applications'])('%s', async (list) => {
    const res = await api.request('GET', `${API}/${list}?per_page=100`, { token: ours });
    expect(res.status).toBe(200);
    const ids = (res.body.entries as { id: string }[]).map((e) => e.id);
    expect(ids).not.toContain(foreign.employee);
    expect(ids).not.toContain(foreign.job);
    expect(ids).not.toContain(foreign.application);
  });

  it('applications filtered by a job opening both businesses have', async () => {
    const res = await api.request('GET', `${API}/applications?job_id=cook-2026`, { token: ours });
    expect(res.body.total_entries).toBe(0);
  });
});

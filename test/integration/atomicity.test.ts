import demo from '../../fixtures/demo.json';
import { db } from '../../src/data/dynamo/client';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * Contract §11: every multi-item write (record + counters + unique value +
 * job summary + idempotency record) is one TransactWriteItems. A DynamoDB
 * failure at that write leaves nothing behind, and the same request succeeds
 * when retried.
 */
let api: TestApi;
let token: string;

beforeAll(async () => {
  // A failed write whose outcome is unknown is looked into until the function's hard deadline (src/data/deadline.ts);
  // a short function timeout brings each 503 within 2 s instead of 9. deadlines.test.ts covers the deployed timeout.
  api = await startApi({ timeoutMs: 3000 });
  token = await api.provision(demo);
});
afterAll(() => api.close());

/** Fails every TransactWriteItems (the only multi-item write) while active; reads still work. */
function failTransactions(): { stop(): void; attempts: () => number } {
  let attempts = 0;
  const name = `fail-tx-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        attempts += 1;
        throw Object.assign(new Error('InternalServerError: simulated'), {
          name: 'InternalServerError',
          $fault: 'server',
        });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { stop: () => db().middlewareStack.remove(name), attempts: () => attempts };
}

const count = async (path: string): Promise<number> =>
  (await api.request('GET', `${API}${path}`, { token })).body.total_entries as number;

describe('a failed write stores nothing of a multi-item write', () => {
  it('employee create (record + position counter + unique employee_number + idempotency record)', async () => {
    const before = await count('/employees');
    const fault = failTransactions();
    const body = { first_name: 'Atomic', last_name: 'Anna', employee_number: 'ATOM-1' };
    const failed = await api.request('POST', `${API}/employees`, {
      token,
      body,
      headers: { 'idempotency-key': 'atom-1' },
    });
    fault.stop();
    expect(fault.attempts()).toBeGreaterThan(0);
    expect(failed.status).toBe(503);
    expect(await count('/employees')).toBe(before);

    // The unique number was not taken and the idempotency key was not consumed.
    const retried = await api.request('POST', `${API}/employees`, {
      token,
      body,
      headers: { 'idempotency-key': 'atom-1' },
    });
    expect(retried.status).toBe(201);
    expect(await count('/employees')).toBe(before + 1);
    const list = await api.request('GET', `${API}/employees?per_page=100`, { token });
    expect(
      (list.body.entries as { employee_number: string }[]).filter((e) => e.employee_number === 'ATOM-1'),
    ).toHaveLength(1);
  });

  it('job create (job + employee job summary + counters) leaves the employee untouched', async () => {
    const employee = (
      await api.request('POST', `${API}/employees`, { token, body: { first_name: 'Jo', last_name: 'B' } })
    ).body;
    const before = await api.request('GET', `${API}/employees/${employee.id}`, { token });
    const fault = failTransactions();
    const failed = await api.request('POST', `${API}/employee_jobs`, {
      token,
      body: { employee_id: employee.id, name: 'Cook', from: '2020-01-01' },
    });
    fault.stop();
    expect(failed.status).toBe(503);
    const after = await api.request('GET', `${API}/employees/${employee.id}`, { token });
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await count(`/employee_jobs?employee_id=${employee.id}`)).toBe(0);
  });

  it('application create and status change (record + counters + status blocks)', async () => {
    const before = await count('/applications?application_status_id=new');
    const fault = failTransactions();
    const failed = await api.request('POST', `${API}/applications`, {
      token,
      body: {
        first_name: 'A',
        last_name: 'B',
        email: 'a@example.com',
        accept_terms_and_conditions: true,
        job_id: 'cook-2026',
      },
    });
    fault.stop();
    expect(failed.status).toBe(503);
    expect(await count('/applications?application_status_id=new')).toBe(before);
    expect(await count('/applications?job_id=cook-2026')).toBe(0);

    const created = await api.request('POST', `${API}/applications`, {
      token,
      body: { first_name: 'A', last_name: 'B', email: 'a@example.com', accept_terms_and_conditions: true },
    });
    const again = failTransactions();
    const moved = await api.request('PUT', `${API}/applications/${created.body.id}`, {
      token,
      body: { application_status_id: 'hired' },
    });
    again.stop();
    expect(moved.status).toBe(503);
    expect(await count('/applications?application_status_id=hired')).toBe(0);
    expect(
      (await api.request('GET', `${API}/applications/${created.body.id}`, { token })).body.application_status_id,
    ).toBe('new');
  });
});

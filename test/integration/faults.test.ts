import demo from '../../fixtures/demo.json';
import { db } from '../../src/data/dynamo/client';
import { API, startApi, type TestApi } from '../support/harness';

let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(demo);
});
afterAll(() => api.close());

/** Makes the next DynamoDB calls fail the way the SDK reports `name`, while `active` is true. */
function injectFault(make: () => Error): { stop(): void } {
  let active = true;
  const name = `fault-${Math.random()}`;
  db().middlewareStack.add(
    (next) => async (args) => {
      if (active) throw make();
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    stop: () => {
      active = false;
      db().middlewareStack.remove(name);
    },
  };
}

const awsError = (name: string): Error =>
  Object.assign(new Error(`${name}: simulated`), { name, $fault: 'server', $metadata: {} });

describe('DynamoDB faults (contract §3: 503 + Retry-After)', () => {
  it.each(['ThrottlingException', 'ProvisionedThroughputExceededException', 'InternalServerError', 'TimeoutError'])(
    '%s → 503 service_unavailable with Retry-After, no AWS text; then recovers',
    async (name) => {
      const fault = injectFault(() => awsError(name));
      const res = await api.request('GET', `${API}/locations/hq`, { token });
      fault.stop();
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body).toEqual({
        error: 'service_unavailable',
        message: expect.any(String),
        request_id: expect.any(String),
      });
      expect(res.text).not.toContain('simulated');
      expect((await api.request('GET', `${API}/locations/hq`, { token })).status).toBe(200);
    },
  );

  it('a list page whose token goes with its records: 503 when its reads fail, never a hang; then recovers', async () => {
    for (const path of [
      '/applications?per_page=2',
      '/employees?per_page=2',
      '/applications?application_status_id=new',
    ]) {
      const fault = injectFault(() => awsError('ThrottlingException'));
      const res = await api.request('GET', `${API}${path}`, { token });
      fault.stop();
      expect({ path, status: res.status, error: res.body.error }).toEqual({
        path,
        status: 503,
        error: 'service_unavailable',
      });
      expect((await api.request('GET', `${API}${path}`, { token })).status).toBe(200);
    }
  });

  it('a connection failure → 503', async () => {
    const fault = injectFault(() =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    );
    const res = await api.request('GET', `${API}/locations`, { token });
    fault.stop();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('an unexpected error → 500 internal_error without internals', async () => {
    const fault = injectFault(() => new TypeError('secret internal detail at /var/task/index.js:1:2'));
    const res = await api.request('GET', `${API}/locations/hq`, { token });
    fault.stop();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', message: expect.any(String), request_id: expect.any(String) });
    expect(res.text).not.toMatch(/secret|index\.js|TypeError/);
  });
});

describe('a write that loses its round to a concurrent writer', () => {
  it('re-reads what the other writer moved, not the business config, and both updates land', async () => {
    const made = await api.request('POST', `${API}/employees`, {
      token,
      body: { first_name: 'Race', last_name: 'Two' },
    });
    const id = (made.body as { id: string }).id;
    const table = process.env.TABLE_NAME as string;
    const sk = (k: Record<string, unknown>): string => String((k.SK as { S?: string })?.S ?? k.SK);
    const pk = (k: Record<string, unknown>): string => String((k.PK as { S?: string })?.S ?? k.PK);
    const outerReads: string[][] = [];
    let inner = false;
    let interfered = false;
    let other: Awaited<ReturnType<TestApi['request']>> | undefined;
    const name = `interfere-${Math.random()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          RequestItems?: Record<string, { Keys: Record<string, unknown>[] }>;
        };
        if (!inner && context.commandName === 'BatchGetItemCommand')
          outerReads.push((input.RequestItems?.[table]?.Keys ?? []).map((k) => `${pk(k)} ${sk(k)}`));
        if (!inner && !interfered && context.commandName === 'TransactWriteItemsCommand') {
          // Another update commits between this one's read and its transaction: the version it read is stale.
          interfered = true;
          inner = true;
          other = await api.request('PUT', `${API}/employees/${id}`, { token, body: { phone: '+39 0471 1' } });
          inner = false;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    let res;
    try {
      res = await api.request('PUT', `${API}/employees/${id}`, { token, body: { city: 'Meran' } });
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(other?.status).toBe(200);
    expect(res.status).toBe(200);
    // Two rounds: the first read the config with everything else; the re-run read the employee again, not the config.
    expect(outerReads).toHaveLength(2);
    expect(outerReads[0]).toContain('B#demo CONFIG');
    expect(outerReads[1]).not.toContain('B#demo CONFIG');
    expect(outerReads[1]).toContain(`B#demo#employee ${id}`);
    const after = await api.request('GET', `${API}/employees/${id}`, { token });
    expect(after.body).toMatchObject({ city: 'Meran', phone: '+39 0471 1' });
  });
});

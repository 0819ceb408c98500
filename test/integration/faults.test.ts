import demo from '../../fixtures/demo.json';
import { db } from '../../src/data/client';
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

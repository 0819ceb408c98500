import demo from '../../fixtures/demo.json';
import { requestBudgetMs } from '../../src/data/deadline';
import type { AddressInfo } from 'node:net';
import { createLocalServer, FUNCTION_TIMEOUT_MS } from '../../scripts/lib/server';
import { API, startApi, type TestApi } from '../support/harness';
import { proxyTheApi, type DynamoProxy, type FaultModes } from '../support/dynamo-proxy';

/**
 * Contract §3: whatever keeps failing, a request answers 503 + Retry-After
 * inside its deadline, never the function timeout (deployed, API Gateway
 * would answer a bare 500). The local server here counts down a short
 * function timeout, so the assertion is the deadline contract itself.
 */
const TIMEOUT_MS = 3000;
let api: TestApi;
let token: string;
let proxy: DynamoProxy & { restore(): Promise<void> };

beforeAll(async () => {
  api = await startApi({ timeoutMs: TIMEOUT_MS });
  token = await api.provision(demo);
  proxy = await proxyTheApi();
  // Load every handler first (in Lambda that is the init phase, outside the function timeout).
  for (const [, method, path, body] of REQUESTS)
    expect((await api.request(method, `${API}${path}`, { token, body })).status).toBeLessThan(300);
});
afterAll(async () => {
  await proxy.restore();
  await api.close();
});
afterEach(() => proxy.setModes({}));

const APPLICANT = {
  accept_terms_and_conditions: true,
  first_name: 'Dee',
  last_name: 'Line',
  email: 'dee@example.com',
  job_id: 'cook-2026',
};
const REQUESTS: [string, string, string, unknown][] = [
  ['POST /applications', 'POST', '/applications', APPLICANT],
  ['POST /employees', 'POST', '/employees', { first_name: 'Dee', last_name: 'Line' }],
  ['GET /employees', 'GET', '/employees', undefined],
  ['GET /locations/hq', 'GET', '/locations/hq', undefined],
];

it('the deployed timeout leaves a 5 s answer budget; a short one shrinks it', () => {
  expect(FUNCTION_TIMEOUT_MS).toBe(10_000);
  expect(requestBudgetMs(FUNCTION_TIMEOUT_MS)).toBeLessThanOrEqual(5000);
  expect(requestBudgetMs(TIMEOUT_MS)).toBeLessThan(TIMEOUT_MS);
});

describe.each<[string, FaultModes]>([
  ['persistent TransactionConflict', { transactionConflict: true }],
  ['persistent throttling', { throttle: 1 }],
  ['DynamoDB never answering', { hangAfterForward: 1 }],
  ['connections reset', { dropBeforeForward: 1 }],
])('%s', (_, modes) => {
  it.each(REQUESTS)('%s → 503 + Retry-After before the function timeout', async (_name, method, path, body) => {
    proxy.setModes(modes);
    const started = Date.now();
    const res = await api.request(method, `${API}${path}`, { token, body });
    const elapsed = Date.now() - started;
    if (modes.transactionConflict && method === 'GET') {
      expect(res.status).toBe(200); // reads never conflict
      return;
    }
    expect(res.status === 503 ? 503 : res.text).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(elapsed).toBeLessThan(TIMEOUT_MS);
  });
});

it('with the deployed timeout, persistent conflicts on a create end in 503 inside the 5 s answer budget', async () => {
  const server = createLocalServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API}/applications`;
    proxy.setModes({ transactionConflict: true });
    const started = Date.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(APPLICANT),
    });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    // The budget is requestBudgetMs(10 s) = 4.75 s of retrying; the hard limit is the function timeout.
    expect(elapsed).toBeLessThan(FUNCTION_TIMEOUT_MS);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('a create whose transaction DynamoDB applies only after the 5 s answer budget is answered 201, never 503', async () => {
  const server = createLocalServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API}`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // Sent within the budget (4.75 s with the deployed timeout), applied after it: the answer waits for the outcome.
    proxy.setModes({ delayBeforeForwardMs: 5_000, operations: ['TransactWriteItems'] });
    const res = await fetch(`${base}/applications`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...APPLICANT, email: 'late@example.com' }),
    });
    proxy.setModes({});
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string };
    const read = await fetch(`${base}/applications/${created.id}`, { headers });
    expect(read.status).toBe(200);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('after the faults end, the same requests succeed', async () => {
  const res = await api.request('POST', `${API}/applications`, { token, body: APPLICANT });
  expect(res.status).toBe(201);
});

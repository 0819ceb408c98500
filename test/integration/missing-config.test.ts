import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import demo from '../../fixtures/demo.json';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { keys } from '../../src/data/dynamo/keys';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * A token exists only for a business whose import wrote its config, so a
 * missing config is our broken invariant, never the client's fault: every
 * route that reads it answers the same 500 (no internals), applications and
 * employees alike, and writes nothing.
 */
let api: TestApi;
let token: string;
const ids: Record<string, string> = {};
const BUSINESS = 'noconfig';

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: BUSINESS } });
  ids.employee = (
    await api.request('POST', `${API}/employees`, { token, body: { first_name: 'A', last_name: 'B' } })
  ).body.id;
  ids.application = (
    await api.request('POST', `${API}/applications`, {
      token,
      body: { first_name: 'A', last_name: 'B', email: 'a@example.com', accept_terms_and_conditions: true },
    })
  ).body.id;
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.business(BUSINESS) }));
});
afterAll(() => api.close());

const requests: [string, string, () => unknown][] = [
  ['GET', '/applications/{application}', () => undefined],
  ['PUT', '/applications/{application}', () => ({ first_name: 'C' })],
  ['DELETE', '/applications/{application}', () => undefined],
  ['GET', '/applications', () => undefined],
  ['GET', '/applications?updated_at_since=2020-01-01T00:00:00Z', () => undefined],
  ['GET', '/applications?updated_at_since=2020-01-01T00:00:00Z&job_id=null', () => undefined],
  [
    'POST',
    '/applications',
    () => ({ first_name: 'A', last_name: 'B', email: 'a@example.com', accept_terms_and_conditions: true }),
  ],
  ['GET', '/employees/{employee}', () => undefined],
  ['PUT', '/employees/{employee}', () => ({ first_name: 'C' })],
  ['GET', '/employees', () => undefined],
  ['POST', '/employees', () => ({ first_name: 'A', last_name: 'B' })],
  ['POST', '/employee_jobs', () => ({ employee_id: ids.employee, name: 'Cook', from: '2026-01-01' })],
  ['GET', '/employee_jobs', () => undefined],
];

describe('a business without its config', () => {
  it.each(requests)('%s %s is the same 500 as everywhere', async (method, path, body) => {
    const res = await api.request(method, `${API}${path.replace(/\{(\w+)\}/, (_m, k: string) => ids[k] ?? '')}`, {
      token,
      body: body(),
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', message: expect.any(String), request_id: expect.any(String) });
    expect(res.text).not.toContain(BUSINESS);
  });
});

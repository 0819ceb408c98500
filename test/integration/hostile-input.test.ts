import fc from 'fast-check';
import demo from '../../fixtures/demo.json';
import { API, startApi, type ApiResponse, type TestApi } from '../support/harness';

/**
 * Contract §3 under random and adversarial input: never a 5xx, always a JSON
 * body of the contract's shape, nothing stored by a rejected request, and no
 * prototype pollution.
 */
let api: TestApi;
let token: string;
let employeeId: string;
let applicationId: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(demo);
  employeeId = (
    await api.request('POST', `${API}/employees`, { token, body: { first_name: 'Base', last_name: 'Line' } })
  ).body.id;
  applicationId = (
    await api.request('POST', `${API}/applications`, {
      token,
      body: { first_name: 'A', last_name: 'B', email: 'a@example.com', accept_terms_and_conditions: true },
    })
  ).body.id;
});
afterAll(() => api.close());

const FIELD_NAMES = [
  'first_name',
  'last_name',
  'email',
  'language',
  'gender',
  'birthday',
  'iban',
  'swift',
  'country_code',
  'photo_url',
  'employee_number',
  'employee_status_id',
  'employee_id',
  'name',
  'from',
  'to',
  'time_percentage',
  'time_hours',
  'time_table',
  'job_type',
  'time_type',
  'job_id',
  'application_status_id',
  'accept_terms_and_conditions',
  'campaign_id',
  'cf_12',
  'cf_13',
  'cf_21',
  'cf_31',
  'cf_32',
  'cf_999',
  'id',
  'created_at',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];

const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 3000 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '2023-02-30',
    '9999-99-99',
    'null',
    '<script>',
    '{"$ne":1}',
    'a'.repeat(20000),
  ),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308),
);

const hostileObject = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 20 })),
  hostileValue,
  {
    maxKeys: 8,
  },
);

const writeRoutes = (): { method: string; path: string; list: string }[] => [
  { method: 'POST', path: `${API}/employees`, list: `${API}/employees` },
  { method: 'PUT', path: `${API}/employees/${employeeId}`, list: `${API}/employees` },
  { method: 'POST', path: `${API}/employee_jobs`, list: `${API}/employee_jobs` },
  { method: 'POST', path: `${API}/applications`, list: `${API}/applications` },
  { method: 'PUT', path: `${API}/applications/${applicationId}`, list: `${API}/applications` },
];

function expectContractError(res: ApiResponse): void {
  expect(res.status).toBeLessThan(500);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(typeof res.body).toBe('object');
  if (res.status >= 400 && res.status !== 422 && res.status !== 400) {
    expect(res.body).toEqual({
      error: expect.any(String),
      message: expect.any(String),
      request_id: expect.any(String),
    });
  }
  if (res.status === 422) {
    for (const messages of Object.values(res.body as Record<string, unknown>)) {
      expect(Array.isArray(messages) && messages.every((m) => typeof m === 'string')).toBe(true);
    }
  }
  expect(res.text).not.toMatch(/at .+\.(ts|js):\d+|Exception|TypeError|ReferenceError/);
}

const totalOf = async (list: string): Promise<number> =>
  (await api.request('GET', list, { token })).body.total_entries as number;

describe.each([0, 1, 2, 3, 4])('write route #%i with random bodies', (i) => {
  it('never 5xx, always the contract shape; rejected requests store nothing', async () => {
    const route = writeRoutes()[i];
    if (!route) throw new Error('route missing');
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileObject, fc.jsonValue({ maxDepth: 2 })), async (body) => {
        const before = await totalOf(route.list);
        const snapshot = route.method === 'PUT' ? (await api.request('GET', route.path, { token })).body : undefined;
        const res = await api.request(route.method, route.path, { token, body });
        expectContractError(res);
        if (res.status >= 400) {
          expect(await totalOf(route.list)).toBe(before);
          if (snapshot) expect((await api.request('GET', route.path, { token })).body).toEqual(snapshot);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('malformed transport', () => {
  const post = (rawBody: string | Uint8Array, contentType = 'application/json') =>
    api.request('POST', `${API}/employees`, { token, rawBody, headers: { 'content-type': contentType } });

  it.each([
    ['not JSON', '{"first_name": '],
    ['a JSON array', '[1,2,3]'],
    ['a JSON string', '"hello"'],
    ['null', 'null'],
    ['empty', ''],
    ['deep nesting', `${'['.repeat(50000)}${']'.repeat(50000)}`],
  ])('%s → 400 bad_request', async (_label, raw) => {
    const res = await post(raw);
    expect(res.status).toBe(400);
    if (!('first_name' in (res.body as object))) expect(res.body.error).toBe('bad_request');
    expectContractError(res);
  });

  it('a deeply nested value is just an invalid field', async () => {
    const res = await post(`{"first_name":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)},"last_name":"x"}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ first_name: ['is invalid'] });
  });

  it('invalid UTF-8 never crashes', async () => {
    const res = await post(Buffer.from([0x7b, 0x22, 0x66, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
    expect([400, 422]).toContain(res.status);
    expectContractError(res);
  });

  it('duplicate keys: the last one counts, like JSON.parse', async () => {
    const res = await post('{"first_name":"","first_name":"Dup","last_name":"Keys"}');
    expect(res.status).toBe(201);
    expect(res.body.first_name).toBe('Dup');
  });

  it('wrong content type → 415; over 1 MiB → 413 before parsing', async () => {
    expect((await post('{"first_name":"a","last_name":"b"}', 'text/plain')).status).toBe(415);
    const big = await post(`{"first_name":"${'x'.repeat(1024 * 1024)}","last_name":"b"}`);
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
  });

  it('__proto__ and constructor keys are unknown fields and pollute nothing', async () => {
    const res = await post(
      '{"first_name":"a","last_name":"b","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
    expect(res.status).toBe(422);
    expect(Object.keys(res.body).sort()).toEqual(['__proto__', 'constructor']);
    expect(res.text).toBe('{"__proto__":["is not a known field"],"constructor":["is not a known field"]}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('random query strings on lists', () => {
  it('never 5xx: 200 or a 400 field error', async () => {
    const lists = ['employees', 'employee_jobs', 'applications', 'locations', 'employee_payout_fields'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        fc.dictionary(
          fc.constantFrom(
            'page',
            'per_page',
            'job_id',
            'application_status_id',
            'created_at_since',
            'updated_at_since',
            'employee_id',
            'x',
          ),
          fc.oneof(
            fc.string({ maxLength: 40 }),
            fc.integer().map(String),
            fc.constantFrom('null', '2026-01-01', '-1', '1e9'),
          ),
          { maxKeys: 4 },
        ),
        async (list, params) => {
          const res = await api.request('GET', `${API}/${list}?${new URLSearchParams(params).toString()}`, { token });
          expect([200, 400]).toContain(res.status);
          expectContractError(res);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

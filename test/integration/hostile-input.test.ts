import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import demo from '../../fixtures/demo.json';
import { ROUTES } from '../../src/http/routes';
import { SCHEMAS } from '../../src/schemas';
import { setEnvForFile } from '../support/env';
import { API, startApi, type ApiResponse, type TestApi } from '../support/harness';

/**
 * Contract §3 under random and adversarial input: never a 5xx, always a JSON
 * body of the contract's shape, nothing stored by a rejected request, and no
 * prototype pollution.
 */
// Tokens are kept as deployed (lib/api-stack.ts): one lookup per token, not one per request; this file is about
// bodies and queries. What a token's lookup costs and when it ends are token-cache.test.ts's and instances.test.ts's.
setEnvForFile('AUTH_CACHE_SECONDS', '60');

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

/** A list's total_entries, from a page of one entry (the total is the same whatever the page's size). */
const totalOf = async (list: string): Promise<number> =>
  (await api.request('GET', `${list}?per_page=1`, { token })).body.total_entries as number;

describe.each([0, 1, 2, 3, 4])('write route #%i with random bodies', (i) => {
  it('never 5xx, always the contract shape; rejected requests store nothing', async () => {
    const route = writeRoutes()[i];
    if (!route) throw new Error('route missing');
    // The list's total and (PUT) the record as they are before each body: read once, then again only after a body
    // was accepted (nothing else writes to this table meanwhile); a rejected body must leave both as they were.
    const read = async () => ({
      total: await totalOf(route.list),
      record: route.method === 'PUT' ? (await api.request('GET', route.path, { token })).body : undefined,
    });
    let before = await read();
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileObject, fc.jsonValue({ maxDepth: 2 })), async (body) => {
        const res = await api.request(route.method, route.path, { token, body });
        expectContractError(res);
        const after = await read();
        if (res.status >= 400) expect(after).toEqual(before);
        before = after;
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

  it('a nested value within 64 levels is just an invalid field; deeper is 400 (contract §2)', async () => {
    const nestedIn = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    // The body is level 1, so its value may nest 63 more.
    const res = await post(`{"first_name":${nestedIn(63)},"last_name":"x"}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ first_name: ['is invalid'] });
    const deep = await post(`{"first_name":${nestedIn(64)},"last_name":"x"}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error).toBe('bad_request');
    expect((await post(`{"first_name":${nestedIn(5000)},"last_name":"x"}`)).status).toBe(400);
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

  it("the local server's own refusals carry X-Request-Id too: a body over the gateway's 10 MiB (413), 20 KB of path (431)", async () => {
    const huge = await post(Buffer.alloc(11 * 1024 * 1024, 0x20));
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: 'payload_too_large', request_id: expect.any(String) });
    expect(huge.headers.get('x-request-id')).toBe(huge.body.request_id);
    const long = await fetch(`${api.baseUrl}${API}/employees/${'x'.repeat(20_000)}`);
    expect(long.status).toBe(431);
    const body = (await long.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'request_header_fields_too_large', request_id: expect.any(String) });
    expect(long.headers.get('x-request-id')).toBe(body.request_id);
    expect(long.headers.get('content-type')).toMatch(/^application\/json/);
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
            fc.constantFrom('null', '2026-01-01', '-1', '1e9', 'Infinity', '1e309', '0x10', '1e2', '1.5', '2147483648'),
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

describe('page and per_page: plain decimal digits in range (contract §7)', () => {
  // One list per query schema (PageQuery, EmployeeJobQuery, ApplicationQuery), all checked by queryValidator
  // (src/schemas/validation.ts); the other PageQuery lists refuse the same values through the same validator, and each
  // list route's 400 for page/per_page is checked in test/integration/i18n.test.ts.
  const lists = ['employees', 'employee_jobs', 'applications'];
  const bad = [
    'Infinity',
    '-Infinity',
    '1e309',
    '0x10',
    '0o7',
    '0b1',
    '1e2',
    '1.5',
    '-1',
    '0',
    '+1',
    ' 1',
    'NaN',
    '',
    '١',
  ];

  it.each(lists)('%s: non-finite, hex, exponent, fractional, signed or out-of-range values are 400', async (list) => {
    for (const [param, values] of [
      ['page', [...bad, '2147483648', '99999999999999999999']],
      ['per_page', [...bad, '101']],
    ] as const) {
      for (const value of values) {
        const res = await api.request('GET', `${API}/${list}?${param}=${encodeURIComponent(value)}`, { token });
        expect({ param, value, status: res.status, body: res.body }).toEqual({
          param,
          value,
          status: 400,
          body: { [param]: ['is invalid'] },
        });
      }
    }
  });

  it('page 2147483647 is a page past the end: 200, empty, echoed', async () => {
    const res = await api.request('GET', `${API}/employees?page=2147483647&per_page=100`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ entries: [], current_page: 2147483647, per_page: 100 });
    const padded = await api.request('GET', `${API}/employees?page=007`, { token });
    expect(padded.body.current_page).toBe(7);
  });

  it('fuzz: any text as page or per_page is 200 only when it is plain digits in range', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('page', 'per_page'),
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.double().map(String),
          fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => n.toString()),
          fc.integer({ min: 0, max: 0xffff }).map((n) => `0x${n.toString(16)}`),
          fc.constantFrom('Infinity', '1e309', '1e2', '1.0', '0x10'),
        ),
        async (param, value) => {
          const res = await api.request('GET', `${API}/applications?${param}=${encodeURIComponent(value)}`, { token });
          expectContractError(res);
          const max = param === 'page' ? 2147483647 : 100;
          const valid = /^[0-9]+$/.test(value) && Number(value) >= 1 && Number(value) <= max;
          expect({ value, status: res.status }).toEqual({ value, status: valid ? 200 : 400 });
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe('numbers in bodies (contract §2)', () => {
  let numbersToken: string;
  let numbersEmployee: string;

  beforeAll(async () => {
    // The demo fixture plus a float field: every number kind of the contract in one business.
    numbersToken = await api.provision({
      ...demo,
      business: { ...demo.business, id: 'numbers' },
      employee_fields: [
        ...demo.employee_fields,
        { id: '15', type_of: 'float', name_de: 'Gewicht', name_it: 'Peso', name_en: 'Weight', required: false },
      ],
    });
    numbersEmployee = (
      await api.request('POST', `${API}/employees`, { token: numbersToken, body: { first_name: 'N', last_name: 'Um' } })
    ).body.id;
  });

  const jobBody = (extra: Record<string, unknown>) => ({
    employee_id: numbersEmployee,
    name: 'Cook',
    from: '2026-01-01',
    ...extra,
  });
  const applicant = { first_name: 'A', last_name: 'B', email: 'n@example.com', accept_terms_and_conditions: true };
  const totals: Record<string, number> = {};

  it.each([
    ['employee_jobs', 'time_hours', 1e-200],
    ['employee_jobs', 'time_hours', 12.3456789],
    ['employee_jobs', 'time_percentage', 1e-7],
    ['employee_jobs', 'time_table', [1e-200, 0, 0, 0, 0, 0, 0]],
    ['employee_jobs', 'cf_21', 1e20],
    ['employee_jobs', 'cf_21', 1e15],
    ['employee_jobs', 'cf_21', -1e300],
    ['applications', 'cf_32', 2 ** 60],
    ['applications', 'cf_32', 2 ** 53],
    ['applications', 'cf_32', -(2 ** 53)],
    ['employees', 'cf_15', 1e-200],
    ['employees', 'cf_15', 0.1234567],
    ['employees', 'cf_15', 1e15],
    ['employees', 'cf_15', -1e300],
  ])('POST /%s with %s = %p → 422 is invalid, nothing stored', async (resource, field, value) => {
    const list = `${API}/${resource}?per_page=1`;
    const total = async () => (await api.request('GET', list, { token: numbersToken })).body.total_entries as number;
    // Every case here is refused: the list's total, read before the first case of its resource, holds for all.
    const before = (totals[resource] ??= await total());
    const base =
      resource === 'employee_jobs'
        ? jobBody({})
        : resource === 'applications'
          ? applicant
          : { first_name: 'F', last_name: 'L' };
    const res = await api.request('POST', `${API}/${resource}`, {
      token: numbersToken,
      body: { ...base, [field]: value },
    });
    expect({ status: res.status, body: res.body }).toEqual({ status: 422, body: { [field]: ['is invalid'] } });
    expect(await total()).toBe(before);
  });

  it('what a client stores is what it reads back, at the edges of the bounds', async () => {
    const job = await api.request('POST', `${API}/employee_jobs`, {
      token: numbersToken,
      body: jobBody({
        time_hours: 167.999999,
        time_percentage: 0.000001,
        time_table: [0, 0.5, 23.999999, 8, 8, 8, 0],
        cf_21: -999999999999999.8,
      }),
    });
    expect(job.status).toBe(201);
    const jobRead = (await api.request('GET', `${API}/employee_jobs/${job.body.id}`, { token: numbersToken })).body;
    expect(jobRead).toMatchObject({
      time_hours: 167.999999,
      time_percentage: 0.000001,
      time_table: [0, 0.5, 23.999999, 8, 8, 8, 0],
      cf_21: -999999999999999.8,
    });
    const rounded = await api.request('POST', `${API}/employee_jobs`, {
      token: numbersToken,
      body: jobBody({ cf_21: 1e-200 }),
    });
    expect(rounded.body.cf_21).toBe(0);

    const app = await api.request('POST', `${API}/applications`, {
      token: numbersToken,
      body: { ...applicant, cf_32: -(2 ** 53 - 1) },
    });
    expect(app.status).toBe(201);
    const appRead = (await api.request('GET', `${API}/applications/${app.body.id}`, { token: numbersToken })).body;
    expect(appRead.cf_32).toBe(-(2 ** 53 - 1));

    for (const value of [999999999999999.9, -0.000001, 123456.654321]) {
      const put = await api.request('PUT', `${API}/employees/${numbersEmployee}`, {
        token: numbersToken,
        body: { cf_15: value },
      });
      expect(put.status).toBe(200);
      const read = (await api.request('GET', `${API}/employees/${numbersEmployee}`, { token: numbersToken })).body;
      expect(read.cf_15).toBe(value);
    }
  });

  it('fuzz: any JSON number in a numeric field is stored as sent, rounded (currency) or 422, never 5xx', async () => {
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constantFrom(1e-200, 1e20, 2 ** 60, 2 ** 53, 1e15, -1e15, 5e-324, 1.7976931348623157e308),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('time_hours', 'time_percentage', 'cf_21', 'cf_15', 'cf_32'),
        number,
        async (field, value) => {
          const target =
            field === 'cf_15'
              ? { path: `${API}/employees/${numbersEmployee}`, method: 'PUT', body: { [field]: value } }
              : field === 'cf_32'
                ? { path: `${API}/applications`, method: 'POST', body: { ...applicant, [field]: value } }
                : { path: `${API}/employee_jobs`, method: 'POST', body: jobBody({ [field]: value }) };
          const res = await api.request(target.method, target.path, { token: numbersToken, body: target.body });
          expectContractError(res);
          if (res.status === 422) expect(res.body).toEqual({ [field]: ['is invalid'] });
          // As JSON sends it: -0 travels as 0.
          else if (field !== 'cf_21') expect(res.body[field]).toBe(JSON.parse(JSON.stringify(value)));
          else expect(Math.abs(res.body[field] - value)).toBeLessThanOrEqual(0.005 + Math.abs(value) * 1e-15);
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});

describe('deep and wide bodies (contract §2)', () => {
  /** `levels` objects, one in the other. */
  const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const wide = (keys: number): string => `{${Array.from({ length: keys }, (_, i) => `"k${i}":${i}`).join(',')}}`;

  it.each([
    ['65 levels', nested(65), 400],
    ['100,000 levels', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 400],
    ['1,001 keys in one object', wide(1001), 400],
    ['1,001 keys one level down', `{"first_name":"a","last_name":"b","x":${wide(1001)}}`, 400],
    ['64 levels', nested(64), 422],
    ['1,000 keys', wide(1000), 422],
  ])('%s, with and without Idempotency-Key, on every write route', async (_label, raw, status) => {
    for (const route of writeRoutes()) {
      for (const headers of [{}, { 'idempotency-key': `deep-${randomUUID()}` }] as Record<string, string>[]) {
        const res = await api.request(route.method, route.path, {
          token,
          rawBody: raw,
          headers: { ...headers, 'content-type': 'application/json' },
        });
        expectContractError(res);
        expect({ route: route.path, headers, status: res.status }).toEqual({ route: route.path, headers, status });
        if (status === 400) expect(res.body.error).toBe('bad_request');
      }
    }
  });

  it('fuzz: random depth and width, never 5xx, 400 exactly beyond the limits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 1500 }),
        fc.boolean(),
        async (i, depth, width, withKey) => {
          const route = writeRoutes()[i]!;
          // `width` keys at the innermost of `depth` levels.
          const raw = `${'{"a":'.repeat(depth - 1)}${wide(width)}${'}'.repeat(depth - 1)}`;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (withKey) headers['idempotency-key'] = `fuzz-${randomUUID()}`;
          const res = await api.request(route.method, route.path, { token, rawBody: raw, headers });
          expectContractError(res);
          if (depth > 64 || width > 1000) expect(res.status).toBe(400);
          else expect(res.status).not.toBe(400);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('an Idempotency-Key on another route (contract §11)', () => {
  const createRoutes = () => [
    { path: `${API}/employees`, body: { first_name: 'Key', last_name: 'Route' } },
    { path: `${API}/employee_jobs`, body: { employee_id: employeeId, name: 'Cook', from: '2026-01-01' } },
    {
      path: `${API}/applications`,
      body: { first_name: 'K', last_name: 'R', email: 'k@example.com', accept_terms_and_conditions: true },
    },
  ];

  it('fuzz: a key used on one create route is 409 on any other, whatever the body; never a replay', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: 2 }),
        fc.oneof(fc.constant(undefined), hostileObject),
        async (first, shift, otherBody) => {
          const [a, b] = [createRoutes()[first]!, createRoutes()[(first + shift) % 3]!];
          const headers = { 'idempotency-key': `route-${randomUUID()}` };
          const created = await api.request('POST', a.path, { token, body: a.body, headers });
          expect(created.status).toBe(201);
          const before = await totalOf(b.path);
          const reused = await api.request('POST', b.path, { token, body: otherBody ?? a.body, headers });
          expectContractError(reused);
          expect(reused.status).toBe(409);
          expect(reused.body.error).toBe('idempotency_key_reused');
          expect(await totalOf(b.path)).toBe(before);
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});

describe('error bodies stay small (contract §2)', () => {
  it('1 MB of unknown keys: a 422 under 64 KiB reporting at most 100 fields, names clipped to 100 characters', async () => {
    // 999 unknown keys + first_name: the most one object may hold.
    const keys = Array.from({ length: 999 }, (_, i) => `${i}_${'u'.repeat(1000)}`);
    const raw = `{"first_name":"a",${keys.map((k) => `"${k}":1`).join(',')}}`;
    expect(raw.length).toBeGreaterThan(1_000_000);
    const res = await api.request('POST', `${API}/employees`, {
      token,
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(Buffer.byteLength(res.text)).toBeLessThan(64 * 1024);
    const fields = Object.keys(res.body);
    expect(fields.length).toBeLessThanOrEqual(100);
    // A real mistake is never crowded out by the flood of unknown keys.
    expect(res.body.last_name).toEqual(["can't be blank"]);
    for (const field of fields) expect(Array.from(field).length).toBeLessThanOrEqual(101);
  });

  it('one 1,000,000-character unknown key is quoted in 100 characters', async () => {
    const key = 'q'.repeat(1_000_000);
    const res = await api.request('POST', `${API}/employees`, {
      token,
      rawBody: `{"first_name":"a","last_name":"b","${key}":1}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ [`${'q'.repeat(100)}…`]: ['is not a known field'] });
  });

  it.each(['employees', 'employee_jobs', 'applications', 'locations', 'employee_payout_fields'])(
    'a 404 for a 10,000-character /%s id quotes 100 characters of it',
    async (resource) => {
      const id = 'i'.repeat(10_000);
      const res = await api.request('GET', `${API}/${resource}/${id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body.message).toContain(`"${'i'.repeat(100)}…"`);
      expect(res.body.message).not.toContain('i'.repeat(101));
      expect(res.text.length).toBeLessThan(400);
    },
  );

  it('an unknown route with a 10,000-character path: a short 404', async () => {
    const res = await api.request('GET', `/${'p'.repeat(10_000)}`, { token });
    expect(res.status).toBe(404);
    expect(res.text.length).toBeLessThan(400);
  });

  it('an employee job for an unknown employee_id of the longest allowed length: the 404 names it whole', async () => {
    const res = await api.request('POST', `${API}/employee_jobs`, {
      token,
      body: { employee_id: 'e'.repeat(100), name: 'Cook', from: '2026-01-01' },
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain(`"${'e'.repeat(100)}"`);
  });
});

describe('lone surrogates in any JSON body (contract §2)', () => {
  /** Text holding one unpaired UTF-16 half somewhere (a pair elsewhere is fine Unicode). */
  const loneText = fc
    .tuple(fc.string({ maxLength: 12 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 12 }))
    .map(([before, half, after]) => `${before}${String.fromCharCode(half)}${after}`)
    .filter((text) => /\p{Surrogate}/u.test(text));
  /** The text as the field's value, inside an array or object beneath it, or as a key beneath it. */
  const placed = fc
    .tuple(loneText, fc.constantFrom('value', 'in-array', 'as-key'))
    .map(([text, where]) => (where === 'value' ? text : where === 'in-array' ? ['ok', text] : { [text]: 1 }));

  it('every field of every body route: 422, and `is invalid` alone for that field, whatever its schema says', async () => {
    const cases = ROUTES.filter((route) => route.auth && 'request' in route && route.request).flatMap((route) => {
      const schema = SCHEMAS[(route as { request: string }).request] as { properties?: Record<string, unknown> };
      const path = route.path.replace(/\{[^}]+\}/g, route.path.includes('/employees/') ? employeeId : applicationId);
      return [...Object.keys(schema.properties ?? {}), 'cf_12', 'not_a_field'].map((field) => ({ route, path, field }));
    });
    const values = fc.sample(placed, { numRuns: cases.length, seed: 41 });
    const results = await Promise.all(
      cases.map(async ({ route, path, field }, i) => {
        const res = await api.request(route.method, path, { token, body: { [field]: values[i] } });
        return [route.name, field, res.status, (res.body as Record<string, unknown>)[field]];
      }),
    );
    expect(results).toEqual(cases.map(({ route, field }) => [route.name, field, 422, ['is invalid']]));
    // In a key's name too.
    const res = await api.request('POST', `${API}/employees`, { token, body: { 'x\udc00': 'y' } });
    expect(res.body['x\udc00']).toEqual(['is invalid']);
  });

  it('an otherwise valid body with one is refused whole and stores nothing; a surrogate pair is fine', async () => {
    const before = await totalOf(`${API}/applications`);
    const body = {
      first_name: 'Ann',
      last_name: 'Lee\ud800',
      email: 'ann@example.com',
      accept_terms_and_conditions: true,
    };
    const res = await api.request('POST', `${API}/applications`, { token, body, headers: { 'accept-language': 'de' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['last_name']);
    expect(await totalOf(`${API}/applications`)).toBe(before);
    const paired = await api.request('POST', `${API}/applications`, {
      token,
      body: { ...body, last_name: 'Lee \ud83d\ude00' },
    });
    expect(paired.status).toBe(201);
    expect(paired.body.last_name).toBe('Lee \ud83d\ude00');
  });
});

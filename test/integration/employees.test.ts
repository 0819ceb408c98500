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

const post = (body: unknown, token = demoToken, headers: Record<string, string> = {}) =>
  api.request('POST', `${API}/employees`, { token, body, headers });
const put = (id: string, body: unknown, token = demoToken, headers: Record<string, string> = {}) =>
  api.request('PUT', `${API}/employees/${id}`, { token, body, headers });
const get = (id: string, token = demoToken) => api.request('GET', `${API}/employees/${id}`, { token });
const total = async (token = demoToken): Promise<number> =>
  (await api.request('GET', `${API}/employees?per_page=1`, { token })).body.total_entries;

async function createEmployee(extra: Record<string, unknown> = {}, token = demoToken): Promise<ApiResponse> {
  const res = await post({ first_name: 'Anna', last_name: 'Berger', ...extra }, token);
  expect(res.status).toBe(201);
  return res;
}

const EMPLOYEE_KEYS = [
  'id',
  'employee_status_id',
  'supervisor_id',
  'location_id',
  'department_id',
  'first_name',
  'last_name',
  'language',
  'gender',
  'email',
  'company_email',
  'phone',
  'company_phone',
  'photo_url',
  'birthday',
  'tax_number',
  'employee_number',
  'nationality',
  'birthplace',
  'street',
  'city',
  'postal_code',
  'region',
  'country_code',
  'iban',
  'swift',
  'has_active_employee_job',
  'has_active_or_future_employee_job',
  'first_employee_job_from',
  'first_employee_job_to',
  'last_employee_job_from',
  'last_employee_job_to',
  'current_employee_job_from',
  'current_employee_job_to',
  'current_or_last_employee_job_from',
  'current_or_last_employee_job_to',
  'cf_12',
  'cf_13',
  'cf_14',
  'created_at',
  'updated_at',
];

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /employees', () => {
  it('creates with defaults: every field present, null where unset, derived job fields empty', async () => {
    const res = await post({ first_name: 'Anna', last_name: 'Berger' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...EMPLOYEE_KEYS].sort());
    expect(res.body).toMatchObject({
      first_name: 'Anna',
      last_name: 'Berger',
      language: 'de',
      employee_status_id: 'active',
      gender: null,
      email: null,
      employee_number: null,
      supervisor_id: null,
      location_id: null,
      department_id: null,
      has_active_employee_job: false,
      has_active_or_future_employee_job: false,
      first_employee_job_from: null,
      current_or_last_employee_job_to: null,
      cf_12: null,
      cf_13: null,
      cf_14: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect(res.headers.get('location')).toBe(`${API}/employees/${res.body.id}`);
    expect(res.headers.get('etag')).toMatch(/^".+"$/);

    const read = await get(res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('stores every writable field, normalizing iban and swift', async () => {
    const body = {
      first_name: 'Marco',
      last_name: 'Rossi',
      language: 'it',
      gender: 'male',
      email: 'marco@example.com',
      company_email: 'm.rossi@hotel.example',
      phone: '+39 0471 000000',
      company_phone: '+39 0471 111111',
      photo_url: 'https://cdn.example.com/marco.jpg',
      birthday: '1990-02-28',
      tax_number: 'RSSMRC90B28A952X',
      employee_number: 'FULL-1',
      nationality: 'IT',
      birthplace: 'Bolzano',
      street: 'Via Roma 1',
      city: 'Bolzano',
      postal_code: '39100',
      region: 'Alto Adige',
      country_code: 'IT',
      iban: 'de89 3704 0044 0532 0130 00',
      swift: 'deutdeff500',
      employee_status_id: 'on-leave',
      cf_12: '43',
      cf_13: ['de', 'it'],
      cf_14: '2010-05-01',
    };
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, iban: 'DE89370400440532013000', swift: 'DEUTDEFF500' });
    expect((await get(res.body.id)).body).toEqual(res.body);
  });

  it('reports every failing field at once with the contract messages, and writes nothing', async () => {
    const before = await total();
    const res = await post({
      last_name: '   ',
      language: 'fr',
      gender: 'other',
      email: 'not-an-email',
      company_email: 'x@',
      photo_url: 'ftp://example.com/a.png',
      birthday: dayIn('Europe/Rome', 1),
      country_code: 'it',
      iban: 'DE89370400440532013001',
      swift: 'ABC',
      employee_status_id: 'nope',
      phone: 42,
      cf_13: ['xx'],
      cf_99: 'x',
      favourite_color: 'blue',
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      first_name: ["can't be blank"],
      last_name: ["can't be blank"],
      language: ['is not included in the list'],
      gender: ['is not included in the list'],
      email: ['is invalid'],
      company_email: ['is invalid'],
      photo_url: ['is invalid'],
      birthday: ['is invalid'],
      country_code: ['is invalid'],
      iban: ['is invalid'],
      swift: ['is invalid'],
      employee_status_id: ['does not exist'],
      phone: ['is invalid'],
      cf_13: ['is not included in the list'],
      cf_99: ['is not a known field'],
      favourite_color: ['is not a known field'],
    });
    expect(await total()).toBe(before);
  });

  it('a language of another business locale set is not included; malformed dates are invalid', async () => {
    const res = await post(
      { first_name: 'A', last_name: 'B', language: 'it', birthday: '2023-02-30', cf_5: 1 },
      bistroToken,
    );
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ language: ['is not included in the list'], birthday: ['is invalid'] });
  });

  it('birthday is checked against today in the business timezone', async () => {
    const tz = twoLocales.business.timezone;
    const ok = await post({ first_name: 'A', last_name: 'B', birthday: dayIn(tz), cf_5: 1 }, bistroToken);
    expect(ok.status).toBe(201);
    const future = await post({ first_name: 'A', last_name: 'B', birthday: dayIn(tz, 1), cf_5: 1 }, bistroToken);
    expect(future.body).toEqual({ birthday: ['is invalid'] });
  });

  it('null mandatory fields are blank; wrong JSON types are invalid', async () => {
    const res = await post({ first_name: null, last_name: 'B', birthday: 19900101, gender: 5 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      first_name: ["can't be blank"],
      birthday: ['is invalid'],
      gender: ['is not included in the list'],
    });
  });

  it('ignores read-only fields in the body', async () => {
    const res = await post({
      id: 'mine',
      first_name: 'A',
      last_name: 'B',
      created_at: '2000-01-01T00:00:00.000Z',
      has_active_employee_job: true,
      supervisor_id: 'x',
    });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe('mine');
    expect(res.body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
    expect(res.body.has_active_employee_job).toBe(false);
    expect(res.body.supervisor_id).toBeNull();
  });

  it('required custom fields must be given; values are type-checked', async () => {
    const missing = await post({ first_name: 'A', last_name: 'B' }, bistroToken);
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ cf_5: ["can't be blank"] });
    const wrong = await post({ first_name: 'A', last_name: 'B', cf_5: 'seven' }, bistroToken);
    expect(wrong.body).toEqual({ cf_5: ['is invalid'] });
    const ok = await post({ first_name: 'A', last_name: 'B', cf_5: 7 }, bistroToken);
    expect(ok.status).toBe(201);
    expect(ok.body.cf_5).toBe(7);
    expect(ok.body.language).toBe('en');
    expect(ok.body).not.toHaveProperty('cf_12');
  });

  it("costs the token GetItem, one BatchGetItem and the lanes' Query with the position reservation beside them, one TransactWriteItems: 3 round trips", async () => {
    const { result, calls, roundTrips } = await countCalls(() =>
      post({ first_name: 'A', last_name: 'B', employee_number: 'RT-1' }),
    );
    expect(result.status).toBe(201);
    expect({ calls, roundTrips }).toEqual({ calls: 5, roundTrips: 3 });
  });
});

describe('employee_number uniqueness', () => {
  it('a taken number is rejected; changing or clearing it frees the old one', async () => {
    const first = await createEmployee({ employee_number: 'U-1' });
    const dup = await post({ first_name: 'X', last_name: 'Y', employee_number: 'U-1', email: 'bad' });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({ employee_number: ['has already been taken'], email: ['is invalid'] });

    // Other businesses have their own numbers.
    expect((await post({ first_name: 'X', last_name: 'Y', employee_number: 'U-1', cf_5: 1 }, bistroToken)).status).toBe(
      201,
    );

    // Re-setting its own number is fine.
    expect((await put(first.body.id, { employee_number: 'U-1' })).status).toBe(200);

    const moved = await put(first.body.id, { employee_number: 'U-2' });
    expect(moved.status).toBe(200);
    expect(moved.body.employee_number).toBe('U-2');
    const second = await createEmployee({ employee_number: 'U-1' });
    expect(second.body.employee_number).toBe('U-1');

    const clash = await put(second.body.id, { employee_number: 'U-2' });
    expect(clash.status).toBe(422);
    expect(clash.body).toEqual({ employee_number: ['has already been taken'] });
    expect((await get(second.body.id)).body.employee_number).toBe('U-1');

    const cleared = await put(first.body.id, { employee_number: null });
    expect(cleared.body.employee_number).toBeNull();
    expect((await put(second.body.id, { employee_number: 'U-2' })).status).toBe(200);
    expect((await createEmployee({ employee_number: 'U-1' })).status).toBe(201);
  });

  it('10 parallel creates with the same number: exactly one wins', async () => {
    const before = await total();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post({ first_name: `Racer${i}`, last_name: 'R', employee_number: 'RACE-1' }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(422)]);
    for (const r of results.filter((x) => x.status === 422))
      expect(r.body).toEqual({ employee_number: ['has already been taken'] });
    expect(await total()).toBe(before + 1);
  });

  it('parallel updates to the same number: exactly one wins', async () => {
    const a = await createEmployee();
    const b = await createEmployee();
    const results = await Promise.all([
      put(a.body.id, { employee_number: 'RACE-2' }),
      put(b.body.id, { employee_number: 'RACE-2' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
  });
});

describe('PUT /employees/{id}', () => {
  it('is a partial update: absent keys stay, null clears, version and updated_at move', async () => {
    const created = await createEmployee({ email: 'a@example.com', phone: '123', gender: 'female', language: 'en' });
    const id = created.body.id;
    await new Promise((r) => setTimeout(r, 5));
    const res = await put(id, { phone: '456', email: null, language: null, cf_12: '38' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created.body,
      phone: '456',
      email: null,
      language: 'de',
      cf_12: '38',
      updated_at: expect.any(String),
    });
    expect(res.body.updated_at > created.body.updated_at).toBe(true);
    expect(res.body.created_at).toBe(created.body.created_at);
    expect(res.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect((await get(id)).body).toEqual(res.body);
  });

  it('blank or null mandatory fields, bad values, unknown keys: 422 and nothing written', async () => {
    const created = await createEmployee();
    const res = await put(created.body.id, {
      first_name: null,
      last_name: '',
      employee_status_id: 'nope',
      iban: 'XX00',
      cf_14: 'yesterday',
      salary: 1,
      cf_1234: 1,
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      first_name: ["can't be blank"],
      last_name: ["can't be blank"],
      employee_status_id: ['does not exist'],
      iban: ['is invalid'],
      cf_14: ['is invalid'],
      salary: ['is not a known field'],
      cf_1234: ['is not a known field'],
    });
    const read = await get(created.body.id);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
  });

  it('a required custom field cannot be cleared', async () => {
    const created = await createEmployee({ cf_5: 3 }, bistroToken);
    const res = await put(created.body.id, { cf_5: null }, bistroToken);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ cf_5: ["can't be blank"] });
  });

  it('read-only fields are ignored, so a client can PUT back what it read', async () => {
    const created = await createEmployee();
    const res = await put(created.body.id, {
      ...created.body,
      first_name: 'Anne',
      id: 'other',
      has_active_employee_job: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, first_name: 'Anne', updated_at: expect.any(String) });
  });

  it('a PUT that changes nothing writes nothing', async () => {
    const created = await createEmployee();
    const { result, calls } = await countCalls(() => put(created.body.id, { first_name: 'Anna' }));
    expect(result.status).toBe(200);
    expect(result.body).toEqual(created.body);
    expect(result.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(calls).toBe(2);
  });

  it('If-Match: stale → 412 and nothing written; current or * → 200', async () => {
    const created = await createEmployee();
    const id = created.body.id;
    const etag1 = created.headers.get('etag') as string;
    const first = await put(id, { city: 'Meran' }, demoToken, { 'if-match': etag1 });
    expect(first.status).toBe(200);
    const etag2 = first.headers.get('etag') as string;
    expect(etag2).not.toBe(etag1);

    const stale = await put(id, { city: 'Brixen' }, demoToken, { 'if-match': etag1 });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({
      error: 'precondition_failed',
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await get(id)).body.city).toBe('Meran');

    expect((await put(id, { city: 'Brixen' }, demoToken, { 'if-match': `"x", ${etag2}` })).status).toBe(200);
    expect((await put(id, { city: 'Bozen' }, demoToken, { 'if-match': '*' })).status).toBe(200);
  });

  it('If-Match under a race: of two writers holding the same ETag exactly one wins', async () => {
    const created = await createEmployee();
    const etag = created.headers.get('etag') as string;
    const results = await Promise.all(
      ['Lana', 'Naturns', 'Schlanders'].map((city) => put(created.body.id, { city }, demoToken, { 'if-match': etag })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412]);
  });

  it('parallel PUTs of different fields all take effect', async () => {
    const created = await createEmployee();
    const changes = [
      { phone: '1' },
      { city: 'Meran' },
      { street: 'Lauben 1' },
      { region: 'Südtirol' },
      { nationality: 'AT' },
      { postal_code: '39012' },
    ];
    const results = await Promise.all(changes.map((c) => put(created.body.id, c)));
    expect(results.map((r) => r.status)).toEqual(changes.map(() => 200));
    const read = await get(created.body.id);
    expect(read.body).toMatchObject(Object.assign({}, ...changes));
    const etags = new Set([created, ...results, read].map((r) => r.headers.get('etag')));
    expect(etags.size).toBe(changes.length + 1);
  });

  it('costs the token GetItem, one BatchGetItem and one TransactWriteItems', async () => {
    const created = await createEmployee({ employee_number: 'RT-2' });
    const { result, calls } = await countCalls(() => put(created.body.id, { employee_number: 'RT-3', city: 'X' }));
    expect(result.status).toBe(200);
    expect(calls).toBe(3);
  });

  it('unknown id → 404', async () => {
    const res = await put('00000000-0000-0000-0000-000000000000', { first_name: 'X' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: expect.any(String), request_id: expect.any(String) });
  });
});

describe('GET /employees/{id}', () => {
  it('costs the token GetItem and one BatchGetItem, and carries an ETag', async () => {
    const created = await createEmployee();
    const { result, calls } = await countCalls(() => get(created.body.id));
    expect(result.status).toBe(200);
    expect(result.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(calls).toBe(2);
  });

  it('unknown id → 404', async () => {
    const res = await get('nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('an id too long to be a key is just unknown → 404', async () => {
    const long = 'x'.repeat(3000);
    expect((await get(long)).status).toBe(404);
    expect((await put(long, { city: 'X' })).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it('another business cannot read, update or list an employee', async () => {
    const created = await createEmployee({ employee_number: 'ISO-1' });
    const id = created.body.id;
    const read = await get(id, bistroToken);
    expect(read.status).toBe(404);
    const update = await put(id, { first_name: 'Hacked' }, bistroToken);
    expect(update.status).toBe(404);
    const list = await api.request('GET', `${API}/employees?per_page=100`, { token: bistroToken });
    expect(list.body.entries.map((e: { id: string }) => e.id)).not.toContain(id);
    expect((await get(id)).body.first_name).toBe('Anna');
  });
});

describe('idempotent POST (contract §11)', () => {
  it('replays the first response for the same key and body; another body → 409', async () => {
    const before = await total();
    const headers = { 'idempotency-key': 'emp-create-1' };
    const body = { first_name: 'Ida', last_name: 'Em', employee_number: 'IDEM-1' };
    const first = await post(body, demoToken, headers);
    expect(first.status).toBe(201);
    const { result: again, calls } = await countCalls(() => post(body, demoToken, headers));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    // Token, then the read (BatchGetItem, the lanes' Query) with a reservation beside it (a hole: the replay creates
    // nothing).
    expect(calls).toBe(4);
    expect(await total()).toBe(before + 1);

    const other = await post({ ...body, first_name: 'Other' }, demoToken, headers);
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');

    // Keys are scoped to the business.
    expect((await post({ ...body, cf_5: 1 }, bistroToken, headers)).status).toBe(201);
  });

  it('parallel retries with one key create one employee', async () => {
    const before = await total();
    const headers = { 'idempotency-key': 'emp-create-parallel' };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post({ first_name: 'P', last_name: 'Q' }, demoToken, headers)),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await total()).toBe(before + 1);
  });

  it('a key is bound to method + path + body: another route is 409, never a replay of the employee', async () => {
    const headers = { 'idempotency-key': 'emp-bound-1' };
    // A body every create route could read: names, email, terms.
    const body = { first_name: 'Bo', last_name: 'Und', email: 'bo@example.com', accept_terms_and_conditions: true };
    const first = await post({ first_name: 'Bo', last_name: 'Und', email: 'bo@example.com' }, demoToken, headers);
    expect(first.status).toBe(201);
    const applications = async (): Promise<number> =>
      (await api.request('GET', `${API}/applications?per_page=1`, { token: demoToken })).body.total_entries;
    const applicationsBefore = await applications();
    for (const path of ['/applications', '/employee_jobs']) {
      const other = await api.request('POST', `${API}${path}`, { token: demoToken, body, headers });
      expect({ path, status: other.status, error: other.body.error }).toEqual({
        path,
        status: 409,
        error: 'idempotency_key_reused',
      });
    }
    expect(await applications()).toBe(applicationsBefore);
  });

  it('the same body with other key order and whitespace is a replay (bodies compare as JSON values)', async () => {
    const before = await total();
    const headers = { 'idempotency-key': 'emp-canonical-1', 'content-type': 'application/json' };
    const first = await api.request('POST', `${API}/employees`, {
      token: demoToken,
      headers,
      rawBody: '{"first_name":"Ca","last_name":"Non","cf_12":"42","birthday":"1990-01-02"}',
    });
    expect(first.status).toBe(201);
    const again = await api.request('POST', `${API}/employees`, {
      token: demoToken,
      headers,
      rawBody: '{\n  "birthday" : "1990-01-02",\t"cf_12": "42",\n  "last_name": "Non", "first_name": "Ca"\n}\n',
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await total()).toBe(before + 1);
  });

  it('authentication runs before a replay, the key before body validation', async () => {
    const headers = { 'idempotency-key': 'emp-auth-1' };
    const body = { first_name: 'Zyxwv', last_name: 'Th' };
    expect((await post(body, demoToken, headers)).status).toBe(201);
    const anonymous = await api.request('POST', `${API}/employees`, { token: null, body, headers });
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(anonymous.body)).not.toContain('Zyxwv');
    const badKey = await post({ first_name: 42 }, demoToken, { 'idempotency-key': 'k'.repeat(256) });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toBe('bad_request');
  });
});

describe('GET /employees (pagination, contract §7)', () => {
  let token: string;
  const ids: string[] = [];

  beforeAll(async () => {
    // A business of its own, so the list holds exactly what this block creates.
    token = await api.provision({ ...twoLocales, business: { ...twoLocales.business, id: 'paging-emp' } });
    for (let i = 0; i < 7; i++) {
      const res = await post({ first_name: `P${i}`, last_name: 'L', cf_5: i }, token);
      ids.push(res.body.id);
      // A rejected create has reserved its position too: a hole the pages skip.
      if (i % 2 === 0)
        expect((await post({ first_name: `H${i}`, last_name: 'L', language: 'xx' }, token)).status).toBe(422);
    }
  });

  it('pages in creation order with the envelope and Link header', async () => {
    const page2 = await api.request('GET', `${API}/employees?page=2&per_page=3`, { token });
    expect(page2.status).toBe(200);
    expect(page2.body).toMatchObject({ current_page: 2, per_page: 3, total_entries: 7 });
    expect(page2.body.entries.map((e: { id: string }) => e.id)).toEqual(ids.slice(3, 6));
    expect(Object.keys(page2.body.entries[0]).sort()).toEqual(
      [...EMPLOYEE_KEYS.filter((k) => !/^cf_/.test(k)), 'cf_5'].sort(),
    );
    const link = page2.headers.get('link') ?? '';
    for (const rel of ['first', 'prev', 'next', 'last']) expect(link).toContain(`rel="${rel}"`);

    const all = await api.request('GET', `${API}/employees`, { token });
    expect(all.body).toMatchObject({ current_page: 1, per_page: 30, total_entries: 7 });
    const entries = all.body.entries as { id: string; created_at: string }[];
    expect(entries.map((e) => e.id)).toEqual(ids);
    const sorted = [...entries].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    expect(sorted.map((e) => e.id)).toEqual(ids);
  });

  it('a page past the end is empty with the fields filled', async () => {
    const res = await api.request('GET', `${API}/employees?page=5&per_page=3`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ entries: [], current_page: 5, per_page: 3, total_entries: 7 });
  });

  it('bad page parameters → 400 field errors', async () => {
    const res = await api.request('GET', `${API}/employees?page=0&per_page=101&foo=1`, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ page: ['is invalid'], per_page: ['is invalid'], foo: ['is not a known field'] });
  });

  it('costs the summary Query (and the Query of the maps the page hint names), the key-only Query, the records with the config and the token: 3 round trips warm, 4 cold', async () => {
    const page = (): ReturnType<typeof api.request> =>
      api.request('GET', `${API}/employees?page=2&per_page=3`, { token });
    forgetPageHints();
    const cold = await countCalls(page);
    expect((cold.result.body as { entries: { id: string }[] }).entries.map((e) => e.id)).toEqual(ids.slice(3, 6));
    expect({ calls: cold.calls, roundTrips: cold.roundTrips }).toEqual({ calls: 4, roundTrips: 4 });
    const warm = await countCalls(page);
    expect(warm.result.body).toEqual(cold.result.body);
    expect({ calls: warm.calls, roundTrips: warm.roundTrips }).toEqual({ calls: 4, roundTrips: 3 });
  });
});

/**
 * POST/GET/PUT /applications (contract §3, §6, §9, §11): rules, defaults,
 * every failing field at once, custom fields, idempotency, ETag/If-Match,
 * concurrent updates, tenant isolation and round trips.
 */
import demo from '../../fixtures/demo.json';
import twoLocales from '../fixtures/two-locales.json';
import { API, countCalls, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { dayIn } from '../support/dates';

let api: TestApi;
let demoToken: string;
let bistroToken: string;
let strictToken: string;

/** A business with a required custom field and a select field. */
const strict = {
  business: { id: 'strict', name: 'Strict', locales: ['it'], timezone: 'UTC' },
  application_statuses: [{ id: 'fresh', name_it: 'Nuova', default: true }],
  job_openings: [{ id: 'chef', name_it: 'Chef' }],
  application_fields: [
    { id: '1', type_of: 'text', name_it: 'Motivo', required: true },
    {
      id: '2',
      type_of: 'select_multiple',
      name_it: 'Turni',
      required: false,
      values: [
        { id: 'am', label_it: 'Mattina' },
        { id: 'pm', label_it: 'Sera' },
      ],
    },
    { id: '3', type_of: 'currency', name_it: 'Paga', required: false },
  ],
};

beforeAll(async () => {
  api = await startApi();
  [demoToken, bistroToken, strictToken] = await Promise.all([
    api.provision(demo),
    api.provision(twoLocales),
    api.provision(strict),
  ]);
});
afterAll(() => api.close());

const APPLICANT = {
  accept_terms_and_conditions: true,
  first_name: 'Lena',
  last_name: 'Huber',
  email: 'lena@example.com',
};

const post = (body: unknown, token = demoToken, headers: Record<string, string> = {}) =>
  api.request('POST', `${API}/applications`, { token, body, headers });
const put = (id: string, body: unknown, token = demoToken, headers: Record<string, string> = {}) =>
  api.request('PUT', `${API}/applications/${id}`, { token, body, headers });
const get = (id: string, token = demoToken) => api.request('GET', `${API}/applications/${id}`, { token });
const total = async (token = demoToken): Promise<number> =>
  (await api.request('GET', `${API}/applications?per_page=1`, { token })).body.total_entries;

async function create(extra: Record<string, unknown> = {}, token = demoToken): Promise<ApiResponse> {
  const res = await post({ ...APPLICANT, ...extra }, token);
  expect(res.status).toBe(201);
  return res;
}

const KEYS = [
  'id',
  'job_id',
  'application_status_id',
  'accept_terms_and_conditions',
  'accept_archivation',
  'language',
  'campaign_id',
  'first_name',
  'last_name',
  'gender',
  'email',
  'phone',
  'birthday',
  'cf_31',
  'cf_32',
  'created_at',
  'updated_at',
];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /applications', () => {
  it('creates with defaults: every field, speculative, default status, preferred language', async () => {
    const res = await post(APPLICANT);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(KEYS);
    expect(res.body).toMatchObject({
      job_id: null,
      application_status_id: 'new',
      accept_terms_and_conditions: true,
      accept_archivation: false,
      language: 'de',
      campaign_id: null,
      first_name: 'Lena',
      last_name: 'Huber',
      gender: null,
      email: 'lena@example.com',
      phone: null,
      birthday: null,
      cf_31: null,
      cf_32: null,
    });
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect(res.headers.get('location')).toBe(`${API}/applications/${res.body.id}`);
    expect(res.headers.get('etag')).toMatch(/^".+"$/);

    const read = await get(res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('stores every writable field', async () => {
    const body = {
      ...APPLICANT,
      job_id: 'cook-2026',
      application_status_id: 'interview',
      accept_archivation: true,
      language: 'it',
      campaign_id: 'spring-2026',
      gender: 'diverse',
      phone: '+39 0471 123456',
      birthday: '1990-02-28',
      cf_31: 'I love cooking',
      cf_32: 7,
    };
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    expect((await get(res.body.id)).body).toEqual(res.body);
  });

  it('job_id null is a speculative application', async () => {
    expect((await create({ job_id: null })).body.job_id).toBeNull();
  });

  it.each([
    ['absent', undefined, 'de'],
    ['not a locale of the business', 'fr', 'de'],
    ['not a language at all', 42, 'de'],
    ['null', null, 'de'],
    ['a business locale', 'en', 'en'],
  ])('language %s (%p) is stored as %p, no error', async (_label, language, stored) => {
    const res = await create(language === undefined ? {} : { language });
    expect(res.body.language).toBe(stored);
  });

  it('language falls back to the preferred language of that business', async () => {
    expect((await create({ language: 'it' }, bistroToken)).body.language).toBe('en');
  });

  it('missing everything: every failing field at once', async () => {
    const before = await total();
    const res = await post({});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      accept_terms_and_conditions: ['must be accepted'],
      first_name: ["can't be blank"],
      last_name: ["can't be blank"],
      email: ["can't be blank"],
    });
    expect(await total()).toBe(before);
  });

  it.each([false, 'yes', null, 1])('accept_terms_and_conditions %p must be accepted', async (value) => {
    const res = await post({ ...APPLICANT, accept_terms_and_conditions: value });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ accept_terms_and_conditions: ['must be accepted'] });
  });

  it('invalid values of every kind in one 422, nothing written', async () => {
    const before = await total();
    const res = await post({
      accept_terms_and_conditions: true,
      first_name: '   ',
      last_name: null,
      email: 'not-an-email',
      job_id: 'barista',
      application_status_id: 'open',
      gender: 'other',
      birthday: dayIn('Europe/Rome', 2),
      phone: 5,
      campaign_id: 'x'.repeat(101),
      accept_archivation: 'yes',
      colour: 'blue',
      cf_99: 'x',
      cf_32: 'seven',
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      first_name: ["can't be blank"],
      last_name: ["can't be blank"],
      email: ['is invalid'],
      job_id: ['does not exist'],
      application_status_id: ['does not exist'],
      gender: ['is not included in the list'],
      birthday: ['is invalid'],
      phone: ['is invalid'],
      campaign_id: ['is invalid'],
      accept_archivation: ['is invalid'],
      colour: ['is not a known field'],
      cf_99: ['is not a known field'],
      cf_32: ['is invalid'],
    });
    expect(await total()).toBe(before);
  });

  it('birthday: a real date, today allowed (business timezone)', async () => {
    expect((await post({ ...APPLICANT, birthday: '2023-02-30' })).body).toEqual({ birthday: ['is invalid'] });
    expect((await create({ birthday: dayIn('Europe/Rome') })).body.birthday).toBe(dayIn('Europe/Rome'));
  });

  it('campaign_id up to 100 characters', async () => {
    expect((await create({ campaign_id: 'c'.repeat(100) })).body.campaign_id).toHaveLength(100);
  });

  it('read-only keys are ignored', async () => {
    const res = await create({ id: 'mine', created_at: '2000-01-01T00:00:00.000Z', updated_at: 'whatever' });
    expect(res.body.id).not.toBe('mine');
    expect(res.body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('custom fields: required ones, select values, currency rounding', async () => {
    const missing = await post({ ...APPLICANT, cf_2: ['am', 'night'] }, strictToken);
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ cf_1: ["can't be blank"], cf_2: ['is not included in the list'] });
    const ok = await post({ ...APPLICANT, cf_1: 'why not', cf_2: ['pm', 'am'], cf_3: 12.345 }, strictToken);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      cf_1: 'why not',
      cf_2: ['pm', 'am'],
      cf_3: 12.35,
      language: 'it',
      application_status_id: 'fresh',
    });
    const cleared = await put(ok.body.id, { cf_1: null }, strictToken);
    expect(cleared.body).toEqual({ cf_1: ["can't be blank"] });
    const changed = await put(ok.body.id, { cf_2: null, cf_3: 1 }, strictToken);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ cf_1: 'why not', cf_2: null, cf_3: 1 });
  });

  it('Idempotency-Key: a retry replays the first response and creates nothing; another body is 409', async () => {
    const before = await total();
    const headers = { 'idempotency-key': `app-${Date.now()}` };
    const first = await post({ ...APPLICANT, first_name: 'Once' }, demoToken, headers);
    const again = await post({ ...APPLICANT, first_name: 'Once' }, demoToken, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await total()).toBe(before + 1);
    const other = await post({ ...APPLICANT, first_name: 'Twice' }, demoToken, headers);
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');
    // Keys are per business: the same key elsewhere is a new request.
    expect((await post({ ...APPLICANT, first_name: 'Once' }, bistroToken, headers)).status).toBe(201);
  });

  it('parallel retries with one Idempotency-Key create exactly one application', async () => {
    const before = await total();
    const headers = { 'idempotency-key': `burst-${Date.now()}` };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post({ ...APPLICANT, first_name: 'Burst' }, demoToken, headers)),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await total()).toBe(before + 1);
  });
});

describe('GET /applications/{id}', () => {
  it('unknown id and another business’s application are both 404', async () => {
    const mine = await create();
    const foreign = await get(mine.body.id, bistroToken);
    const missing = await get('does-not-exist');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
  });
});

describe('PUT /applications/{id}', () => {
  it('partial update: changes the keys sent, keeps the rest, moves updated_at and the ETag', async () => {
    const original = await create({ job_id: 'waiter-2026', phone: '123', gender: 'female', cf_31: 'keep me' });
    const res = await put(original.body.id, { first_name: 'Marie', application_status_id: 'hired', language: 'en' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...original.body,
      first_name: 'Marie',
      application_status_id: 'hired',
      language: 'en',
      updated_at: res.body.updated_at,
    });
    expect(res.body.updated_at > original.body.updated_at).toBe(true);
    expect(res.body.created_at).toBe(original.body.created_at);
    expect(res.headers.get('etag')).not.toBe(original.headers.get('etag'));
    expect((await get(original.body.id)).body).toEqual(res.body);
  });

  it('null clears optional fields; mandatory ones cannot be blank; job_id and terms are fixed', async () => {
    const original = await create({
      job_id: 'cook-2026',
      phone: '1',
      gender: 'male',
      birthday: '1999-01-01',
      campaign_id: 'c',
      accept_archivation: true,
    });
    const cleared = await put(original.body.id, {
      phone: null,
      gender: null,
      birthday: null,
      campaign_id: null,
      accept_archivation: null,
      language: null,
      job_id: 'waiter-2026',
      accept_terms_and_conditions: false,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      phone: null,
      gender: null,
      birthday: null,
      campaign_id: null,
      accept_archivation: false,
      language: 'de',
      job_id: 'cook-2026',
      accept_terms_and_conditions: true,
    });
    const blank = await put(original.body.id, {
      first_name: null,
      last_name: '',
      email: ' ',
      application_status_id: null,
    });
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({
      first_name: ["can't be blank"],
      last_name: ["can't be blank"],
      email: ["can't be blank"],
      application_status_id: ["can't be blank"],
    });
    const bad = await put(original.body.id, { application_status_id: 'open', birthday: '2999-01-01', nope: 1 });
    expect(bad.body).toEqual({
      application_status_id: ['does not exist'],
      birthday: ['is invalid'],
      nope: ['is not a known field'],
    });
    expect((await get(original.body.id)).body).toEqual(cleared.body);
  });

  it('a client may PUT back what it read', async () => {
    const original = await create({ cf_32: 3 });
    const res = await put(original.body.id, original.body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...original.body, updated_at: res.body.updated_at });
  });

  it('If-Match: a stale ETag is 412 and writes nothing; the current one or * succeeds', async () => {
    const original = await create();
    const etag = original.headers.get('etag') ?? '';
    const first = await put(original.body.id, { last_name: 'One' }, demoToken, { 'if-match': etag });
    expect(first.status).toBe(200);
    const stale = await put(original.body.id, { last_name: 'Two' }, demoToken, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toBe('precondition_failed');
    expect((await get(original.body.id)).body.last_name).toBe('One');
    const current = first.headers.get('etag') ?? '';
    expect(
      (await put(original.body.id, { last_name: 'Three' }, demoToken, { 'if-match': `"x", ${current}` })).status,
    ).toBe(200);
    expect((await put(original.body.id, { last_name: 'Four' }, demoToken, { 'if-match': '*' })).status).toBe(200);
  });

  it('a PUT that changes nothing writes nothing: same updated_at and ETag', async () => {
    const original = await create({ phone: '123' });
    const res = await put(original.body.id, {
      phone: '123',
      application_status_id: original.body.application_status_id,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(original.headers.get('etag'));
    expect(res.body.updated_at).toBe(original.body.updated_at);
  });

  it('parallel PUTs of different fields all take effect', async () => {
    const original = await create();
    const changes = [
      { first_name: 'F' },
      { last_name: 'L' },
      { phone: '555' },
      { gender: 'diverse' },
      { campaign_id: 'par' },
      { cf_31: 'parallel' },
      { application_status_id: 'rejected' },
      { birthday: '1980-05-05' },
    ];
    const results = await Promise.all(changes.map((c) => put(original.body.id, c)));
    expect(results.map((r) => r.status)).toEqual(changes.map(() => 200));
    const final = await get(original.body.id);
    expect(final.body).toMatchObject(Object.assign({}, ...changes));
    const counts = await api.request('GET', `${API}/applications?application_status_id=rejected&per_page=100`, {
      token: demoToken,
    });
    expect(counts.body.entries.map((e: { id: string }) => e.id)).toContain(original.body.id);
  });

  it('unknown id and another business’s application are 404 (and the body is checked after)', async () => {
    const mine = await create();
    expect((await put(mine.body.id, { first_name: 'X' }, bistroToken)).status).toBe(404);
    expect((await put('nope', { first_name: 'X' })).status).toBe(404);
    expect((await get(mine.body.id)).body.first_name).toBe('Lena');
  });

  it('rejects non-JSON bodies', async () => {
    const mine = await create();
    const res = await api.request('PUT', `${API}/applications/${mine.body.id}`, {
      token: demoToken,
      rawBody: 'first_name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
  });
});

describe('round trips (authentication included)', () => {
  it('show 2, create 3, update 3 round trips (the token GetItem first)', async () => {
    const made = await countCalls(() =>
      post({ ...APPLICANT, job_id: 'cook-2026' }, demoToken, { 'idempotency-key': `rt-${Date.now()}` }),
    );
    expect(made.result.status).toBe(201);
    // The token, then the read (BatchGetItem, the lanes' Query) with the reservation of positions beside it, then
    // the transaction.
    expect(made.roundTrips).toBe(3);
    expect(made.calls).toBe(5);
    const shown = await countCalls(() => get(made.result.body.id));
    expect(shown.calls).toBe(2);
    const updated = await countCalls(() => put(made.result.body.id, { application_status_id: 'hired' }));
    expect(updated.result.status).toBe(200);
    expect(updated.roundTrips).toBe(3);
    expect(updated.calls).toBe(4);
  });
});

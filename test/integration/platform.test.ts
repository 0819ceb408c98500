import demo from '../../fixtures/demo.json';
import twoLocales from '../fixtures/two-locales.json';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import { revokeToken } from '../../src/data/token-store';

let api: TestApi;
let demoToken: string;
let bistroToken: string;

beforeAll(async () => {
  api = await startApi();
  demoToken = await api.provision(demo);
  bistroToken = await api.provision(twoLocales);
});
afterAll(() => api.close());

describe('authentication (contract §1)', () => {
  it.each([
    ['no header', undefined],
    ['wrong scheme', 'Basic abc'],
    ['malformed token', 'Bearer not-a-token'],
    ['unknown token', `Bearer hr_${'A'.repeat(43)}`],
  ])('%s → 401 with WWW-Authenticate and the error body', async (_label, header) => {
    const res = await api.request('GET', `${API}/locations/hq`, { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String), request_id: expect.any(String) });
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  });

  it('a revoked token is unknown', async () => {
    const token = await api.provision(demo);
    expect((await api.request('GET', `${API}/locations/hq`, { token })).status).toBe(200);
    expect(await revokeToken(token)).toBe(true);
    expect((await api.request('GET', `${API}/locations/hq`, { token })).status).toBe(401);
  });

  it('another business’s records are indistinguishable from missing ones', async () => {
    const foreign = await api.request('GET', `${API}/locations/hq`, { token: bistroToken });
    const missing = await api.request('GET', `${API}/locations/does-not-exist`, { token: bistroToken });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.error).toBe(missing.body.error);
    const list = await api.request('GET', `${API}/locations?per_page=100`, { token: bistroToken });
    expect(list.body.entries.map((l: { id: string }) => l.id).sort()).toEqual(['garden', 'main']);
  });
});

describe('common response behaviour (contract §2, §3)', () => {
  it('JSON content type, request id, no-store and nosniff on every response', async () => {
    for (const res of [
      await api.request('GET', `${API}/locations/hq`, { token: demoToken }),
      await api.request('GET', `${API}/nope`, { token: demoToken }),
    ]) {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('unknown route → 404, known path with wrong method → 405 with Allow', async () => {
    const unknown = await api.request('GET', `${API}/nope`, { token: demoToken });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('not_found');
    const wrong = await api.request('DELETE', `${API}/locations/hq`, { token: demoToken });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(wrong.body).toEqual({
      error: 'method_not_allowed',
      message: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('single read is two calls, the token GetItem and the record; an ETag comes with it', async () => {
    const { result, calls } = await countCalls(() => api.request('GET', `${API}/locations/hq`, { token: demoToken }));
    expect(result.status).toBe(200);
    expect(result.headers.get('etag')).toMatch(/^".+"$/);
    expect(calls).toBe(2);
  });
});

describe('locations (seed-api Location, contract §8)', () => {
  it('root of a 3-locale business: exact fields', async () => {
    const res = await api.request('GET', `${API}/locations/hq`, { token: demoToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: 'hq',
      depth: 0,
      ancestor_id: null,
      ancestor_ids: [],
      subtree_ids: ['hq', 'restaurant', 'terrace', 'spa'],
      has_public_name: true,
      display_name: 'Zentrale',
      name_de: 'Zentrale',
      name_it: 'Sede',
      name_en: 'Head office',
      public_name_de: 'Hotel Alpenblick',
      public_name_it: 'Hotel Alpenblick',
      public_name_en: 'Hotel Alpenblick',
      country: 'IT',
      region_de: 'Südtirol',
      region_it: 'Alto Adige',
      region_en: 'South Tyrol',
      city_de: 'Bozen',
      city_it: 'Bolzano',
      city_en: 'Bolzano',
      postal_code: '39100',
      street_de: 'Hauptstraße 1',
      street_it: 'Via Principale 1',
      street_en: 'Hauptstraße 1',
      is_sub_business: false,
      sub_business_title_de: null,
      sub_business_title_it: null,
      sub_business_title_en: null,
    });
  });

  it('inner and leaf nodes: depth, ancestors root first, subtree including itself', async () => {
    const inner = (await api.request('GET', `${API}/locations/restaurant`, { token: demoToken })).body;
    expect(inner).toMatchObject({
      depth: 1,
      ancestor_id: 'hq',
      ancestor_ids: ['hq'],
      subtree_ids: ['restaurant', 'terrace'],
    });
    expect(inner.has_public_name).toBe(false);
    expect(inner.public_name_it).toBe('Ristorante');
    const leaf = (await api.request('GET', `${API}/locations/terrace`, { token: demoToken })).body;
    expect(leaf).toMatchObject({
      depth: 2,
      ancestor_id: 'restaurant',
      ancestor_ids: ['hq', 'restaurant'],
      subtree_ids: ['terrace'],
    });
  });

  it('2-locale business: only its locales, preferred language first', async () => {
    const res = await api.request('GET', `${API}/locations/main`, { token: bistroToken });
    expect(
      Object.keys(res.body)
        .filter((k) => /_(de|it|en)$/.test(k))
        .sort(),
    ).toEqual(
      [
        'city_de',
        'city_en',
        'name_de',
        'name_en',
        'public_name_de',
        'public_name_en',
        'region_de',
        'region_en',
        'street_de',
        'street_en',
        'sub_business_title_de',
        'sub_business_title_en',
      ].sort(),
    );
    expect(res.body.display_name).toBe('Main');
    expect(res.body.public_name_en).toBe('Bistro Blau');
    expect(res.body.public_name_de).toBe('Haupt');
    expect(res.body.has_public_name).toBe(true);
  });

  it('unknown id → 404 not_found', async () => {
    const res = await api.request('GET', `${API}/locations/nowhere`, { token: demoToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'not_found',
      message: expect.stringContaining('nowhere'),
      request_id: expect.any(String),
    });
  });
});

describe('payout fields and custom field definitions', () => {
  it('custom type: accessor cf_{id}, values for select types, locale keys of the business', async () => {
    const res = await api.request('GET', `${API}/employee_payout_fields/41`, { token: demoToken });
    expect(res.body).toEqual({
      id: '41',
      type_of: 'select_single',
      accessor: 'cf_41',
      name_de: 'Tarif',
      name_it: 'Tariffa',
      name_en: 'Pay scale',
      hint_de: null,
      hint_it: null,
      hint_en: null,
      placeholder_de: null,
      placeholder_it: null,
      placeholder_en: null,
      values: [
        { id: 'a', label_de: 'A', label_it: 'A', label_en: 'A' },
        { id: 'b', label_de: 'B', label_it: 'B', label_en: 'B' },
      ],
    });
  });

  it('named type: accessor is the type name, values null', async () => {
    const res = await api.request('GET', `${API}/employee_payout_fields/42`, { token: demoToken });
    expect(res.body).toMatchObject({ id: '42', type_of: 'gross', accessor: 'gross', values: null });
    const bistro = await api.request('GET', `${API}/employee_payout_fields/8`, { token: bistroToken });
    expect(bistro.body).toEqual({
      id: '8',
      type_of: 'vacation_hours_used',
      accessor: 'vacation_hours_used',
      name_en: 'Vacation used',
      name_de: null,
      hint_en: null,
      hint_de: null,
      placeholder_en: null,
      placeholder_de: null,
      values: null,
    });
  });

  it('custom field definition lists carry `required`', async () => {
    const res = await api.request('GET', `${API}/employee_fields`, { token: bistroToken });
    expect(res.body).toEqual({
      entries: [
        {
          id: '5',
          type_of: 'integer',
          accessor: 'cf_5',
          name_en: 'Locker',
          name_de: null,
          hint_en: null,
          hint_de: null,
          placeholder_en: null,
          placeholder_de: null,
          values: null,
          required: true,
        },
      ],
      current_page: 1,
      per_page: 30,
      total_entries: 1,
    });
    const empty = await api.request('GET', `${API}/application_fields`, { token: bistroToken });
    expect(empty.body).toEqual({ entries: [], current_page: 1, per_page: 30, total_entries: 0 });
    const jobs = await api.request('GET', `${API}/employee_job_fields`, { token: demoToken });
    expect(jobs.body.entries.map((f: { accessor: string }) => f.accessor)).toEqual(['cf_21', 'cf_22']);
  });
});

describe('pagination of reference lists (contract §7)', () => {
  it('pages, page past the end, per_page and Link header', async () => {
    const p1 = await api.request('GET', `${API}/locations?per_page=3`, { token: demoToken });
    expect(p1.body).toMatchObject({ current_page: 1, per_page: 3, total_entries: 4 });
    expect(p1.body.entries.map((l: { id: string }) => l.id)).toEqual(['hq', 'restaurant', 'spa']);
    expect(p1.headers.get('link')).toContain('rel="next"');
    expect(p1.headers.get('link')).toContain('rel="last"');
    const p2 = await api.request('GET', `${API}/locations?per_page=3&page=2`, { token: demoToken });
    expect(p2.body.entries.map((l: { id: string }) => l.id)).toEqual(['terrace']);
    expect(p2.headers.get('link')).toContain('rel="prev"');
    const past = await api.request('GET', `${API}/locations?page=9`, { token: demoToken });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ entries: [], current_page: 9, per_page: 30, total_entries: 4 });
  });

  it.each([['page=0'], ['page=abc'], ['page=1.5'], ['per_page=0'], ['per_page=101'], ['per_page=x']])(
    '%s → 400 field error keyed by the parameter',
    async (q) => {
      const res = await api.request('GET', `${API}/locations?${q}`, { token: demoToken });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ [q.split('=')[0] as string]: ['is invalid'] });
    },
  );

  it('unknown query parameter → 400', async () => {
    const res = await api.request('GET', `${API}/locations?color=red`, { token: demoToken });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ color: ['is not a known field'] });
  });

  it('a late page costs the same round trips as the first', async () => {
    const first = await countCalls(() => api.request('GET', `${API}/locations?per_page=1`, { token: demoToken }));
    const last = await countCalls(() => api.request('GET', `${API}/locations?per_page=1&page=4`, { token: demoToken }));
    expect(first.calls).toBe(last.calls);
    // The token, config and counter, the key-only Query, the records by key.
    expect(last.calls).toBeLessThanOrEqual(4);
  });
});

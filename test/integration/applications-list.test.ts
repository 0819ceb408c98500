/**
 * GET /applications (contract §6, §7): every filter and combination against
 * a model of what was created, every page boundary, the cost of a page
 * (DynamoDB calls equal on page 1 and a late page), positions kept dense
 * under concurrent creates, and status changes moving the status counts.
 */
import demo from '../../fixtures/demo.json';
import { positionsOf } from '../../src/data/application-store';
import { application } from '../../src/data/entities/application';
import { partitionOf } from '../../src/data/entities/entity';
import { readEntries } from '../../src/data/lists/store';
import { forgetPageHints } from '../../src/data/lists/hints';
import { countsOf, totalOf } from '../../src/domain/list-map';
import { readSummary } from '../../src/data/lists/page';
import { setEnvForFile } from '../support/env';
import { API, countCalls, startApi, type TestApi } from '../support/harness';

const fixture = {
  business: { id: 'listco', name: 'List Co', locales: ['en', 'de'], timezone: 'Europe/Vienna' },
  application_statuses: [
    { id: 'a', name_en: 'A', default: true },
    { id: 'b', name_en: 'B' },
    { id: 'c', name_en: 'C' },
    { id: 'empty', name_en: 'Never used' },
  ],
  job_openings: [
    { id: 'j1', name_en: 'Job 1' },
    { id: 'j2', name_en: 'Job 2' },
    { id: 'j3', name_en: 'Job 3 (no applicants)' },
  ],
  application_fields: [{ id: '7', type_of: 'text', name_en: 'Note', required: false }],
};

interface Model {
  id: string;
  job_id: string | null;
  application_status_id: string;
  created_at: string;
  updated_at: string;
}

/**
 * More than a page of 100 (the largest per_page). All in one superblock of the maps (MAP_SIZE 512): pages and
 * since-cuts across superblocks, with holes, are application-erasure.test.ts's (1,200 applications).
 */
const SEEDED = 140;
const JOBS = ['j1', 'j2', null, 'j1'] as const;
const STATUSES = ['a', 'b', 'c', 'a', 'b', 'a', 'c'] as const;

// The pages here are checked for what they hold: tokens are kept as deployed (lib/api-stack.ts), one lookup per
// token instead of one per request. 'cost of a page' counts the token's read: it turns the cache off.
setEnvForFile('AUTH_CACHE_SECONDS', '60');

let api: TestApi;
let token: string;
let otherToken: string;
const model: Model[] = [];
/** updated_at of the first status change: everything updated at or after it was changed by the test. */
let firstChange = '';

const list = (query: string, t = token) =>
  api.request('GET', `${API}/applications${query ? `?${query}` : ''}`, { token: t });

async function create(jobId: string | null, status: string, t = token): Promise<Model> {
  const res = await api.request('POST', `${API}/applications`, {
    token: t,
    body: {
      accept_terms_and_conditions: true,
      first_name: 'Ada',
      last_name: `No ${model.length + 1}`,
      email: `ada${model.length + 1}@example.com`,
      job_id: jobId,
      application_status_id: status,
    },
  });
  expect(res.status).toBe(201);
  return {
    id: res.body.id,
    job_id: jobId,
    application_status_id: status,
    created_at: res.body.created_at,
    updated_at: res.body.updated_at,
  };
}

beforeAll(async () => {
  api = await startApi();
  [token, otherToken] = await Promise.all([api.provision(fixture), api.provision(demo)]);
  for (let i = 0; i < SEEDED; i++)
    model.push(await create(JOBS[i % JOBS.length] ?? null, STATUSES[i % STATUSES.length] ?? 'a'));
  // Status changes (move block counts and updated_at): every 9th application to `c`, every 11th to `b`.
  for (let i = 0; i < SEEDED; i++) {
    const m = model[i]!;
    const to = i % 9 === 4 ? 'c' : i % 11 === 3 ? 'b' : undefined;
    if (!to) continue;
    const res = await api.request('PUT', `${API}/applications/${m.id}`, { token, body: { application_status_id: to } });
    expect(res.status).toBe(200);
    m.application_status_id = to;
    m.updated_at = res.body.updated_at;
    firstChange ||= m.updated_at;
  }
  // A foreign business's application must never show up.
  await api.request('POST', `${API}/applications`, {
    token: otherToken,
    body: { accept_terms_and_conditions: true, first_name: 'X', last_name: 'Y', email: 'x@y.io', job_id: 'cook-2026' },
  });
}, 60_000);
afterAll(() => api.close());

interface Filters {
  application_status_id?: string;
  job_id?: string;
  created_at_since?: string;
  updated_at_since?: string;
}

const ms = (iso: string): number => Date.parse(iso);

/** A business of its own (one job opening, these statuses, the first the default) for a test that re-imports it. */
const smallBusiness = (id: string, statuses: readonly string[]) => ({
  business: { id, name: id, locales: ['en'], timezone: 'Europe/Vienna' },
  application_statuses: statuses.map((status, i) => ({ id: status, name_en: status, default: i === 0 })),
  job_openings: [{ id: 'j', name_en: 'Job' }],
});

/** The expected list: filters ANDed, created_at ascending (updated_at with updated_at_since, contract §7), ties by id. */
function expected(f: Filters): string[] {
  return model
    .filter(
      (m) =>
        (f.application_status_id === undefined || m.application_status_id === f.application_status_id) &&
        (f.job_id === undefined || m.job_id === (f.job_id === 'null' ? null : f.job_id)) &&
        (f.created_at_since === undefined || ms(m.created_at) >= ms(f.created_at_since)) &&
        (f.updated_at_since === undefined || ms(m.updated_at) >= ms(f.updated_at_since)),
    )
    .sort((a, b) =>
      f.updated_at_since !== undefined
        ? a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id)
        : a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    )
    .map((m) => m.id);
}

const qs = (f: Filters, extra: Record<string, string | number> = {}): string =>
  new URLSearchParams({ ...f, ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) } as Record<
    string,
    string
  >).toString();

/** Walks every page (and one past the end) and compares with the model. */
async function checkAllPages(f: Filters, perPage: number): Promise<void> {
  const want = expected(f);
  const pages = Math.max(1, Math.ceil(want.length / perPage));
  const got: string[] = [];
  for (let page = 1; page <= pages + 1; page++) {
    const res = await list(qs(f, { page, per_page: perPage }));
    expect(res.status).toBe(200);
    expect(res.body.total_entries).toBe(want.length);
    expect(res.body.current_page).toBe(page);
    expect(res.body.per_page).toBe(perPage);
    expect(res.body.entries.length).toBe(page <= pages ? Math.min(perPage, want.length - (page - 1) * perPage) : 0);
    got.push(...res.body.entries.map((e: { id: string }) => e.id));
  }
  expect(got).toEqual(want);
}

const at = (i: number): string => model[i - 1]!.created_at;

describe('filters and combinations against the model', () => {
  const sinceCases = (): Record<string, string> => ({
    'before everything': '2000-01-01',
    'exactly the first': at(1),
    'mid-list': at(40),
    'just after a creation': new Date(ms(at(100)) + 1).toISOString(),
    'last one': at(SEEDED),
    'after everything': '2999-01-01T00:00:00Z',
  });

  it('no filter, job_id (incl. null), application_status_id', async () => {
    const cases: Filters[] = [
      {},
      { job_id: 'j1' },
      { job_id: 'j2' },
      { job_id: 'null' },
      { job_id: 'j3' },
      { job_id: 'unknown' },
      { application_status_id: 'a' },
      { application_status_id: 'b' },
      { application_status_id: 'c' },
      { application_status_id: 'empty' },
      { application_status_id: 'unknown' },
    ];
    for (const f of cases) await checkAllPages(f, 13);
  });

  it('created_at_since alone, with job_id, with application_status_id', async () => {
    for (const since of Object.values(sinceCases())) {
      for (const f of [
        { created_at_since: since },
        { created_at_since: since, job_id: 'j1' },
        { created_at_since: since, job_id: 'null' },
        { created_at_since: since, application_status_id: 'a' },
        { created_at_since: since, application_status_id: 'c' },
      ])
        await checkAllPages(f, 17);
    }
  });

  it('application_status_id + job_id, with and without created_at_since', async () => {
    for (const f of [
      { application_status_id: 'a', job_id: 'j1' },
      { application_status_id: 'b', job_id: 'null' },
      { application_status_id: 'c', job_id: 'j2', created_at_since: at(50) },
      { application_status_id: 'a', job_id: 'j3' },
    ])
      await checkAllPages(f, 9);
  });

  it('updated_at_since alone and combined with every other filter', async () => {
    expect(expected({ updated_at_since: firstChange }).length).toBeGreaterThan(10);
    for (const f of [
      { updated_at_since: '2000-01-01' },
      { updated_at_since: firstChange },
      { updated_at_since: firstChange, application_status_id: 'c' },
      { updated_at_since: firstChange, job_id: 'j1' },
      { updated_at_since: firstChange, job_id: 'null' },
      { updated_at_since: firstChange, created_at_since: at(70) },
      { updated_at_since: firstChange, created_at_since: at(30), application_status_id: 'b', job_id: 'j2' },
      { updated_at_since: '2999-01-01' },
    ])
      await checkAllPages(f, 11);
  });

  it('timestamps are inclusive (>=), with offsets and bare dates accepted', async () => {
    const sinceIso = at(77);
    const withOffset = new Date(ms(sinceIso)).toISOString().replace('Z', '+00:00');
    const a = await list(qs({ created_at_since: sinceIso }, { per_page: 1 }));
    const b = await list(qs({ created_at_since: withOffset }, { per_page: 1 }));
    expect(a.body.entries[0].id).toBe(model[76]!.id);
    expect(b.body).toEqual(a.body);
    const today = new Date().toISOString().slice(0, 10);
    const bare = await list(qs({ created_at_since: '1999-12-31' }));
    expect(bare.status).toBe(200);
    expect(bare.body.total_entries).toBe(SEEDED);
    expect((await list(qs({ updated_at_since: today }))).status).toBe(200);
  });

  it('defaults: page 1, per_page 30; per_page 1 and 100; pages past the end', async () => {
    const all = expected({});
    const first = await list('');
    expect(first.body.per_page).toBe(30);
    expect(first.body.current_page).toBe(1);
    expect(first.body.entries.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 30));
    const one = await list('per_page=1&page=7');
    expect(one.body.entries.map((e: { id: string }) => e.id)).toEqual([all[6]]);
    const hundred = await list('per_page=100&page=2');
    expect(hundred.body.entries.map((e: { id: string }) => e.id)).toEqual(all.slice(100, 200));
    const past = await list('page=99&application_status_id=b');
    expect(past.status).toBe(200);
    expect(past.body).toEqual({
      entries: [],
      current_page: 99,
      per_page: 30,
      total_entries: expected({ application_status_id: 'b' }).length,
    });
  });

  it('entries are whole application records', async () => {
    const res = await list('per_page=1');
    expect(Object.keys(res.body.entries[0]).sort()).toEqual(
      [
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
        'cf_7',
        'created_at',
        'updated_at',
      ].sort(),
    );
  });

  it('Link header keeps the filters and points at first/prev/next/last', async () => {
    const res = await list('application_status_id=a&page=2&per_page=10');
    const link = res.headers.get('link') ?? '';
    const last = Math.ceil(expected({ application_status_id: 'a' }).length / 10);
    expect(link).toContain(`<${API}/applications?application_status_id=a&page=1&per_page=10>; rel="first"`);
    expect(link).toContain(`page=1&per_page=10>; rel="prev"`);
    expect(link).toContain(`page=3&per_page=10>; rel="next"`);
    expect(link).toContain(`page=${last}&per_page=10>; rel="last"`);
  });
});

describe('query parameter errors (400, field-keyed)', () => {
  it.each([
    ['per_page=0', { per_page: ['is invalid'] }],
    ['per_page=101', { per_page: ['is invalid'] }],
    ['per_page=abc', { per_page: ['is invalid'] }],
    ['page=0', { page: ['is invalid'] }],
    ['page=1.5', { page: ['is invalid'] }],
    ['created_at_since=yesterday', { created_at_since: ['is invalid'] }],
    ['updated_at_since=2026-02-30', { updated_at_since: ['is invalid'] }],
    ['created_at_since=2026-01-01T10:00:00', { created_at_since: ['is invalid'] }],
    ['created_at_since=x&updated_at_since=y', { created_at_since: ['is invalid'], updated_at_since: ['is invalid'] }],
    ['colour=red', { colour: ['is not a known field'] }],
  ])('%s', async (query, body) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(body);
  });
});

describe('tenant isolation', () => {
  it('lists never contain another business’s applications', async () => {
    const other = await list('per_page=100', otherToken);
    expect(other.body.total_entries).toBe(1);
    expect(other.body.entries[0].job_id).toBe('cook-2026');
    const foreignJob = await list('job_id=cook-2026');
    expect(foreignJob.body.total_entries).toBe(0);
    const ids = new Set(model.map((m) => m.id));
    expect(ids.has(other.body.entries[0].id)).toBe(false);
  });
});

describe('cost of a page (DynamoDB calls and round trips, authentication included)', () => {
  beforeAll(() => void (process.env.AUTH_CACHE_SECONDS = '0'));
  afterAll(() => void (process.env.AUTH_CACHE_SECONDS = '60'));
  const lastPage = (f: Filters, perPage: number): number => Math.max(1, Math.ceil(expected(f).length / perPage));

  // The summary's Query (base and shards) and the Query of the maps this instance's hint names (when the page needs
  // maps), side by side; the key-only Query; the records with the config and the token: at most 4 calls in 3 round
  // trips on every page once the instance has read the list (here a page's maps are one run); a cold instance reads
  // the maps a page needs in a round trip of their own, and the config (with the token) with the summary when the
  // page filters by status: at most 5 calls in 4 round trips.
  it.each<[string, () => Filters]>([
    ['no filter', () => ({})],
    ['job_id', () => ({ job_id: 'j1' })],
    ['job_id=null', () => ({ job_id: 'null' })],
    ['created_at_since', () => ({ created_at_since: '2000-01-01' })],
    ['job_id + created_at_since', () => ({ job_id: 'j2', created_at_since: at(40) })],
    ['application_status_id', () => ({ application_status_id: 'a' })],
    ['status + job_id', () => ({ application_status_id: 'a', job_id: 'j1' })],
    ['status + created_at_since', () => ({ application_status_id: 'a', created_at_since: at(40) })],
    ['updated_at_since', () => ({ updated_at_since: '2000-01-01' })],
    ['updated_at_since + status', () => ({ updated_at_since: firstChange, application_status_id: 'c' })],
    ['updated_at_since + job_id', () => ({ updated_at_since: firstChange, job_id: 'j1' })],
  ])('%s: the same calls on page 1 and the last page, 3 round trips warm, 4 cold', async (_label, filters) => {
    const perPage = 5;
    const f = filters();
    forgetPageHints();
    const cold = await countCalls(() => list(qs(f, { page: 1, per_page: perPage })));
    const page1 = await countCalls(() => list(qs(f, { page: 1, per_page: perPage })));
    const late = await countCalls(() => list(qs(f, { page: lastPage(f, perPage), per_page: perPage })));
    expect(page1.result.status).toBe(200);
    expect(late.result.body.entries.length).toBeGreaterThan(0);
    expect(page1.result.body).toEqual(cold.result.body);
    expect(late.calls).toBe(page1.calls);
    expect(page1.calls).toBeLessThanOrEqual(4);
    expect({ page1: page1.roundTrips, late: late.roundTrips }).toEqual({ page1: 3, late: 3 });
    expect(cold.calls).toBeLessThanOrEqual(5);
    expect(cold.roundTrips).toBeLessThanOrEqual(4);
  });

  it('a status a re-import adds is found at once by an instance whose page hint predates it', async () => {
    // The page takes its status code from the hint's config (codes never change); a status that config lacks is
    // looked up in the config read first.
    const t = await api.provision(smallBusiness('hintco', ['open']));
    const byStatus = (status: string) => list(`application_status_id=${status}&created_at_since=2000-01-01`, t);
    await create('j', 'open', t);
    expect((await byStatus('open')).body.total_entries).toBe(1);
    expect((await byStatus('later')).body.total_entries).toBe(0);
    await api.provision(smallBusiness('hintco', ['open', 'later']));
    await create('j', 'later', t);
    const found = await countCalls(() => byStatus('later'));
    expect({ status: found.result.status, total: found.result.body.total_entries }).toEqual({ status: 200, total: 1 });
    // Not read twice: the config went out first, with the summary.
    expect(found.roundTrips).toBeLessThanOrEqual(4);
    expect((await byStatus('open')).body.total_entries).toBe(1);
  });

  it('a re-import that lists the statuses in another order keeps their codes: status pages stay right', async () => {
    const t = await api.provision(smallBusiness('orderco', ['open', 'done']));
    const open = await create('j', 'open', t);
    const done = await create('j', 'done', t);
    const ids = async (status: string) =>
      ((await list(`application_status_id=${status}`, t)).body.entries as { id: string }[]).map((e) => e.id);
    await api.provision(smallBusiness('orderco', ['later', 'done', 'open']));
    expect(await ids('open')).toEqual([open.id]);
    expect(await ids('done')).toEqual([done.id]);
    expect(await ids('later')).toEqual([]);
    const later = await create('j', 'later', t);
    expect(await ids('later')).toEqual([later.id]);
    expect(await ids('open')).toEqual([open.id]);
  });

  it('items read on a late page of the unfiltered list are those of the page (no walking)', async () => {
    const page1 = await countCalls(() => list('per_page=10&page=1'));
    const late = await countCalls(() => list('per_page=10&page=14'));
    expect(late.items).toBe(page1.items);
  });
});

describe('positions and counts under concurrency', () => {
  it('12 parallel creates keep business positions dense, created_at increasing and totals exact', async () => {
    const before = (await list('per_page=1')).body.total_entries as number;
    const jobBefore = (await list('per_page=1&job_id=j3')).body.total_entries as number;
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.request('POST', `${API}/applications`, {
          token,
          body: {
            accept_terms_and_conditions: true,
            first_name: 'P',
            last_name: `${i}`,
            email: `p${i}@example.com`,
            job_id: i % 2 ? 'j3' : null,
            application_status_id: 'empty',
          },
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(12).fill(201));
    for (const r of created)
      model.push({
        id: r.body.id,
        job_id: r.body.job_id,
        application_status_id: 'empty',
        created_at: r.body.created_at,
        updated_at: r.body.updated_at,
      });

    const n = before + 12;
    const { env } = process;
    expect(env.TABLE_NAME).toBeTruthy();
    const positions = (
      await readEntries(partitionOf(application.patterns.byPosition, { businessId: 'listco' }), {
        from: 1,
        limit: 10_000,
      })
    ).map((i) => positionsOf(i).position);
    expect(positions).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const jobPositions = (
      await readEntries(partitionOf(application.patterns.byJob, { businessId: 'listco', jobId: 'j3' }), {
        from: 1,
        limit: 10_000,
      })
    ).map((i) => positionsOf(i).jobPosition);
    // A job list holds its entries at their business positions: in the same order, holes where other jobs are.
    expect(jobPositions).toHaveLength(jobBefore + 6);
    expect(jobPositions.every((p, i) => i === 0 || p > jobPositions[i - 1]!)).toBe(true);
    expect(jobPositions.filter((p) => !positions.includes(p))).toEqual([]);

    const all = await list('per_page=100&page=2');
    expect(all.body.total_entries).toBe(n);
    const everything = [...(await list('per_page=100&page=1')).body.entries, ...all.body.entries] as {
      id: string;
      created_at: string;
    }[];
    expect(new Set(everything.map((e) => e.id)).size).toBe(n);
    for (let i = 1; i < everything.length; i++)
      expect(everything[i]!.created_at > everything[i - 1]!.created_at).toBe(true);

    await checkAllPages({ application_status_id: 'empty' }, 5);
    await checkAllPages({ job_id: 'j3' }, 4);
    await checkAllPages({ job_id: 'null', application_status_id: 'empty' }, 4);
  });

  it('status changes (also concurrent ones) move the summary counts and map entries; totals stay exact', async () => {
    const targets = model.slice(0, 10);
    await Promise.all(
      targets.map(async (m, i) => {
        const to = i % 2 ? 'b' : 'empty';
        const res = await api.request('PUT', `${API}/applications/${m.id}`, {
          token,
          body: { application_status_id: to },
        });
        expect(res.status).toBe(200);
        m.application_status_id = to;
        m.updated_at = res.body.updated_at;
      }),
    );
    const summary = await readSummary('listco', application.lists.business);
    ['a', 'b', 'c', 'empty'].forEach((s, code) =>
      expect(totalOf(countsOf(summary, code))).toBe(model.filter((m) => m.application_status_id === s).length),
    );
    for (const s of ['a', 'b', 'empty']) await checkAllPages({ application_status_id: s }, 16);
    await checkAllPages({ application_status_id: 'b', created_at_since: at(5) }, 3);
  });
});

describe('a since-cut counted by an earlier page', () => {
  it('is counted again once an entry before the cut is erased or changes status: totals and pages stay exact', async () => {
    const t = await api.provision(smallBusiness('cutco', ['open', 'done']));
    const made: Model[] = [];
    for (let i = 0; i < 12; i++) made.push(await create('j', 'open', t));
    const since = made[6]!.created_at;
    const page = async (query: string) => {
      const res = await list(`${query}&created_at_since=${encodeURIComponent(since)}&per_page=2&page=2`, t);
      expect(res.status).toBe(200);
      return { total: res.body.total_entries as number, ids: (res.body.entries as { id: string }[]).map((e) => e.id) };
    };
    const expected = { total: 6, ids: [made[8]!.id, made[9]!.id] };
    // This instance now knows how many entries precede the cut (page hints).
    expect(await page('')).toEqual(expected);
    expect(await page('application_status_id=open')).toEqual(expected);
    expect(await page('')).toEqual(expected);

    // Erased before the cut: the list loses an entry, the cut's count loses it too.
    const gone = await api.request('DELETE', `${API}/applications/${made[2]!.id}`, { token: t });
    expect(gone.status).toBe(204);
    expect(await page('')).toEqual(expected);
    // A status change before the cut: 'open' loses one before the cut, not after it.
    const moved = await api.request('PUT', `${API}/applications/${made[3]!.id}`, {
      token: t,
      body: { application_status_id: 'done' },
    });
    expect(moved.status).toBe(200);
    expect(await page('application_status_id=open')).toEqual(expected);
  });
});

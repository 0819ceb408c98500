/**
 * Erasure of applications (contract §17): DELETE answers 204, the id is gone
 * from reads, lists and totals; no item of the table keeps the applicant's
 * data (whole-table scan); a DELETE racing PUTs never resurrects a record or
 * leaves a count off by one; pages over many holes (an eighth of the
 * business erased at random) stay exact and cost what page 1 costs.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { readSummary } from '../../src/data/lists/page';
import { application } from '../../src/data/entities/application';
import { configOf } from '../../src/data/business-store';
import { inCallScope } from '../../src/data/dynamo/call-scope';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { keys } from '../../src/data/dynamo/keys';
import { batchPut, getItem } from '../../src/data/dynamo/table-io';
import { MAX_REDACTIONS_IN_TRANSACTION } from '../../src/domain/feed-refs';
import { countsOf, MAP_SIZE, totalOf } from '../../src/domain/list-map';
import { deleteApplication } from '../../src/services/applications';
import { setEnvForFile } from '../support/env';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import { storedApplication } from '../support/stored-application';
import { scanAll } from '../support/table-scan';
import { seedItems } from '../../scripts/lib/seed-applications';

const fixture = {
  business: { id: 'eraseco', name: 'Erase Co', locales: ['en', 'de'], timezone: 'Europe/Rome' },
  application_statuses: [
    { id: 'new', name_en: 'New', default: true },
    { id: 'interview', name_en: 'Interview' },
    { id: 'hired', name_en: 'Hired' },
  ],
  job_openings: [
    { id: 'cook', name_en: 'Cook' },
    { id: 'waiter', name_en: 'Waiter' },
  ],
  application_fields: [{ id: '7', type_of: 'text', name_en: 'Motivation', required: false }],
};
const BUSINESS = 'eraseco';
const STATUSES = ['new', 'interview', 'hired'] as const;

// Tokens are kept as deployed (lib/api-stack.ts): one lookup per token, not one per request. What a token's
// lookup costs, and a revoked one ending on every instance, are token-cache.test.ts's and instances.test.ts's.
setEnvForFile('AUTH_CACHE_SECONDS', '60');

let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await startApi();
  token = await api.provision(fixture);
}, 60_000);
afterAll(() => api.close());

const request = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api.request(method, `${API}${path}`, {
    token,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });

/** Live counts per status in a list's summary, and its total. */
async function summaryTotals(list: string): Promise<Record<string, number>> {
  const summary = await readSummary(BUSINESS, list);
  const out: Record<string, number> = { total: totalOf(countsOf(summary)) };
  STATUSES.forEach((s, code) => (out[s] = totalOf(countsOf(summary, code))));
  return out;
}

describe('DELETE /applications/{id}', () => {
  it('answers 204; afterwards the id is unknown (404, also for a second DELETE) and lists and totals drop it', async () => {
    const created = await request('POST', '/applications', {
      accept_terms_and_conditions: true,
      first_name: 'Gone',
      last_name: 'Soon',
      email: 'gone.soon@example.com',
      job_id: 'cook',
      application_status_id: 'interview',
    });
    expect(created.status).toBe(201);
    const before = (await request('GET', '/applications?job_id=cook&application_status_id=interview')).body;
    const all = (await request('GET', '/applications')).body.total_entries as number;

    const res = await request('DELETE', `/applications/${created.body.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await request('GET', `/applications/${created.body.id}`)).status).toBe(404);
    const again = await request('DELETE', `/applications/${created.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('not_found');
    expect((await request('PUT', `/applications/${created.body.id}`, { first_name: 'Back' })).status).toBe(404);

    const after = (await request('GET', '/applications?job_id=cook&application_status_id=interview')).body;
    expect(after.total_entries).toBe(before.total_entries - 1);
    expect(after.entries.map((e: { id: string }) => e.id)).not.toContain(created.body.id);
    expect((await request('GET', '/applications')).body.total_entries).toBe(all - 1);
    for (const q of [
      '',
      'job_id=cook',
      'application_status_id=interview',
      `updated_at_since=2000-01-01`,
      'created_at_since=2000-01-01',
    ])
      expect(
        ((await request('GET', `/applications?per_page=100&${q}`)).body.entries as { id: string }[]).map((e) => e.id),
      ).not.toContain(created.body.id);
  });

  it('leaves no trace of the applicant in any item of the table, idempotency record included', async () => {
    const applicant = {
      accept_terms_and_conditions: true,
      first_name: 'Zebulon',
      last_name: 'Quixtaffer',
      email: 'zebulon.quixtaffer@example.org',
      phone: '+39 0471 987654',
      campaign_id: 'campaign-xyzzy-42',
      job_id: 'waiter',
      cf_7: 'My secret motivation plugh-frobozz',
    };
    const created = await request('POST', '/applications', applicant, { 'Idempotency-Key': 'erase-me-1' });
    expect(created.status).toBe(201);
    const updated = await request('PUT', `/applications/${created.body.id}`, {
      application_status_id: 'hired',
      last_name: 'Quixtaffer-Renamed',
    });
    expect(updated.status).toBe(200);
    const traces = ['Zebulon', 'Quixtaffer', 'zebulon.quixtaffer', '987654', 'xyzzy', 'plugh-frobozz'];
    const holding = async () =>
      (await scanAll()).filter((item) => {
        const text = JSON.stringify(item);
        return traces.some((t) => text.includes(t));
      });
    // The record, the idempotency record, and both feed entries (created, updated).
    expect((await holding()).length).toBeGreaterThanOrEqual(4);

    expect((await request('DELETE', `/applications/${created.body.id}`)).status).toBe(204);
    expect(await holding()).toEqual([]);

    // The feed keeps every entry (no hole, no 410): the earlier ones without data, then the deletion.
    const feed = await request('GET', '/changes?limit=500');
    const mine = (feed.body.entries as { type: string; id: string; occurred_at: string; data: unknown }[]).filter(
      (e) => e.id === created.body.id,
    );
    expect(mine.map((e) => [e.type, e.data])).toEqual([
      ['application.created', null],
      ['application.updated', null],
      ['application.deleted', null],
    ]);
    expect(mine[0]!.occurred_at).toBe(created.body.created_at);
    expect(mine[1]!.occurred_at).toBe(updated.body.updated_at);
  });

  it('answers a retried create of an erased application 410 application_erased, creating nothing', async () => {
    const body = {
      accept_terms_and_conditions: true,
      first_name: 'Retry',
      last_name: 'Ghost',
      email: 'rg@example.com',
    };
    const headers = { 'Idempotency-Key': 'erase-then-retry' };
    const created = await request('POST', '/applications', body, headers);
    expect(created.status).toBe(201);
    expect((await request('POST', '/applications', body, headers)).body.id).toBe(created.body.id);
    expect((await request('DELETE', `/applications/${created.body.id}`)).status).toBe(204);
    const total = (await request('GET', '/applications')).body.total_entries as number;

    for (const retry of [body, { ...body, first_name: 'Other' }]) {
      const res = await request('POST', '/applications', retry, headers);
      expect(res.status).toBe(410);
      expect(res.body.error).toBe('application_erased');
    }
    // Another route with the key is still the other request's key (contract §11).
    const elsewhere = await request('POST', '/employees', { first_name: 'E', last_name: 'F' }, headers);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error).toBe('idempotency_key_reused');
    expect((await request('GET', '/applications')).body.total_entries).toBe(total);
    // A new key creates anew.
    expect((await request('POST', '/applications', body, { 'Idempotency-Key': 'erase-then-new' })).status).toBe(201);
  });
});

describe('redaction of earlier feed entries', () => {
  const feedOf = async (id: string) => {
    const entries: { type: string; id: string; data: unknown }[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await request('GET', `/changes?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      entries.push(...(page.body.entries as typeof entries));
      if ((page.body.entries as unknown[]).length === 0) break;
      after = page.body.next_cursor as string;
    }
    return entries.filter((e) => e.id === id);
  };

  // Writes enough that, besides the two entries aged below, more fresh entries remain than one transaction
  // redacts: the oldest of them are redacted one by one before it (the cap's other branch).
  const WRITES = MAX_REDACTIONS_IN_TRANSACTION + 4;

  it('redacts more entries than one transaction holds, and entries near or past their expiry', async () => {
    const created = await request('POST', '/applications', {
      accept_terms_and_conditions: true,
      first_name: 'Busy',
      last_name: 'Writer',
      email: 'busy@example.com',
    });
    const id = created.body.id as string;
    for (let i = 0; i < WRITES; i++)
      expect((await request('PUT', `/applications/${id}`, { last_name: `Writer-${i}` })).status).toBe(200);
    const key = keys.record(BUSINESS, 'application', id);
    const item = (await getItem(key))!;
    const refs = item.feed_refs as [number, number][];
    expect(refs).toHaveLength(WRITES + 1);
    // Pretend the first two entries are about to expire, and one more (never written: TTL removed it) expired.
    const nowS = Math.floor(Date.now() / 1000);
    const aged = [[refs[0]![0], nowS + 5], [refs[1]![0], nowS - 3600], [999_999, nowS - 7200], ...refs.slice(2)];
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET feed_refs = :r',
        ExpressionAttributeValues: { ':r': aged },
      }),
    );
    expect((await request('DELETE', `/applications/${id}`)).status).toBe(204);
    const entries = await feedOf(id);
    expect(entries).toHaveLength(WRITES + 2);
    expect(entries.filter((e) => e.data !== null)).toEqual([]);
    expect(entries.at(-1)!.type).toBe('application.deleted');
    const lane = keys.feedEntry(BUSINESS, 0, 999_999).PK.replace(/#0$/, '');
    expect((await scanAll()).filter((i) => String(i.PK).startsWith(lane) && String(i.SK) === '000000999999')).toEqual(
      [],
    );
  }, 120_000);
});

describe('a DELETE racing PUTs', () => {
  it('ends erased, never resurrected, with every count exact', async () => {
    const lists = [application.lists.business, application.lists.ofJob('cook'), application.writeOrder];
    for (let round = 0; round < 6; round++) {
      const created = await request('POST', '/applications', {
        accept_terms_and_conditions: true,
        first_name: 'Race',
        last_name: `${round}`,
        email: `race${round}@example.com`,
        job_id: 'cook',
      });
      expect(created.status).toBe(201);
      const before = await Promise.all(lists.map(summaryTotals));
      const id = created.body.id as string;
      const results = await Promise.all([
        request('PUT', `/applications/${id}`, { application_status_id: 'interview' }),
        request('DELETE', `/applications/${id}`),
        request('PUT', `/applications/${id}`, { application_status_id: 'hired', first_name: 'Racer' }),
      ]);
      expect(results[1]!.status).toBe(204);
      for (const put of [results[0]!, results[2]!]) expect([200, 404]).toContain(put.status);
      expect((await request('GET', `/applications/${id}`)).status).toBe(404);
      const after = await Promise.all(lists.map(summaryTotals));
      // The created application (status new) was counted once before; whatever the PUTs did, it counts nowhere now.
      after.forEach((a, i) => {
        const b = before[i]!;
        expect(a.total).toBe(b.total! - 1);
        expect(a.new).toBe(b.new! - 1);
        expect(a.interview).toBe(b.interview);
        expect(a.hired).toBe(b.hired);
      });
      expect((await request('GET', '/applications?per_page=1')).body.total_entries).toBe(after[0]!.total);
    }
  });
});

describe('pages over holes: an eighth of 1,200 applications erased at random', () => {
  const N = 1200;
  interface Row {
    id: string;
    job_id: string | null;
    status: string;
    created_at: string;
    updated_at: string;
  }
  let rows: Row[] = [];

  beforeAll(async () => {
    const config = configOf(await getItem(keys.business(BUSINESS)))!;
    // A business of its own so earlier tests' applications do not mix in: reuse the fixture's config under a new id.
    const bid = 'holes';
    const cfg = { ...config, id: bid };
    await batchPut([{ ...keys.business(bid), config: cfg }]);
    const start = Date.parse('2026-03-01T08:00:00.000Z');
    const apps = Array.from({ length: N }, (_, i) => {
      const created = new Date(start + i * 1000).toISOString();
      const updated = i % 5 === 0 ? new Date(start + (N + i) * 1000).toISOString() : created;
      return storedApplication({
        id: `hole-${String(i).padStart(5, '0')}`,
        job_id: i % 3 === 0 ? 'cook' : i % 3 === 1 ? 'waiter' : null,
        application_status_id: STATUSES[Math.floor(i / 3) % 3]!,
        first_name: 'Hole',
        last_name: `${i}`,
        email: `hole${i}@example.com`,
        created_at: created,
        updated_at: updated,
      });
    });
    await batchPut(seedItems(bid, cfg, apps));
    // The fixture imported under this id: the seeded lists stay (they are separate items).
    token = await api.provision({ ...fixture, business: { ...fixture.business, id: bid } });
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
    // An eighth leaves holes in every superblock and before almost every page start (both asserted below); each
    // erasure is a DELETE's writes (~50 ms of CPU here), so more holes would exercise the same writes and the same
    // page locating again.
    const erase = apps.filter(() => rnd() < 0.125).map((a) => a.id);
    // The service DELETE's handler calls, under its route's name (its calls are checked against the route's grants);
    // the HTTP answers of DELETE are the tests above. One at a time: concurrent erasures of one business conflict on
    // its shared maps and retry (races have tests of their own above); the holes are the same either way.
    for (const id of erase)
      expect((await inCallScope('delete-application', () => deleteApplication(bid, id))).status).toBe(204);
    const summary = await readSummary(bid, application.lists.business);
    expect(summary.live).toHaveLength(Math.ceil(N / MAP_SIZE));
    summary.live.forEach((live, sb) => expect(live).toBeLessThan(Math.min(MAP_SIZE, N - sb * MAP_SIZE)));
    const gone = new Set(erase);
    // Unfiltered pages of 30: a hole lies between nearly every two consecutive page starts.
    const kept = apps.flatMap((a, i) => (gone.has(a.id) ? [] : [i]));
    const starts = kept.filter((_, n) => n % 30 === 0);
    const holeBefore = starts.slice(1).filter((start, k) => start - starts[k]! > 30).length;
    expect(holeBefore).toBeGreaterThanOrEqual(0.9 * (starts.length - 1));
    rows = apps
      .filter((a) => !gone.has(a.id))
      .map((a) => ({
        id: a.id,
        job_id: a.job_id,
        status: a.application_status_id,
        created_at: a.created_at,
        updated_at: a.updated_at,
      }));
  }, 240_000);

  const cases: [string, Record<string, string>, (r: Row) => boolean, number][] = [
    ['none', {}, () => true, 1.2],
    ['job_id', { job_id: 'cook' }, (r) => r.job_id === 'cook', 1.2],
    ['job_id=null', { job_id: 'null' }, (r) => r.job_id === null, 1.2],
    ['application_status_id', { application_status_id: 'interview' }, (r) => r.status === 'interview', 3],
    [
      'status + job_id',
      { application_status_id: 'hired', job_id: 'waiter' },
      (r) => r.status === 'hired' && r.job_id === 'waiter',
      3,
    ],
    [
      'created_at_since',
      { created_at_since: '2026-03-01T08:07:00.000Z' },
      (r) => r.created_at >= '2026-03-01T08:07:00.000Z',
      1.2,
    ],
    [
      'status + created_at_since',
      { application_status_id: 'new', created_at_since: '2026-03-01T08:11:00.000Z' },
      (r) => r.status === 'new' && r.created_at >= '2026-03-01T08:11:00.000Z',
      3,
    ],
    [
      'updated_at_since',
      { updated_at_since: '2026-03-01T08:15:00.000Z' },
      (r) => r.updated_at >= '2026-03-01T08:15:00.000Z',
      3,
    ],
  ];

  it.each(cases)(
    '%s: every page exact (no duplicate, no skip), late pages cost what page 1 costs',
    async (_label, q, match, factor) => {
      const byUpdate = 'updated_at_since' in q;
      const want = rows
        .filter(match)
        .sort(
          (a, b) =>
            (byUpdate ? a.updated_at.localeCompare(b.updated_at) : 0) || a.created_at.localeCompare(b.created_at),
        )
        .map((r) => r.id);
      const perPage = 30;
      const pages = Math.max(1, Math.ceil(want.length / perPage));
      const got: string[] = [];
      let firstItems = 0;
      let worstItems = 0;
      for (let page = 1; page <= pages; page++) {
        const { result, items } = await countCalls(() =>
          request(
            'GET',
            `/applications?${new URLSearchParams({ ...q, page: String(page), per_page: String(perPage) })}`,
          ),
        );
        expect(result.status).toBe(200);
        expect(result.body.total_entries).toBe(want.length);
        got.push(...(result.body.entries as { id: string }[]).map((e) => e.id));
        if (page === 1) firstItems = items;
        else if (page < pages) worstItems = Math.max(worstItems, items);
      }
      expect(want.length).toBeGreaterThan(2 * perPage);
      expect(got).toEqual(want);
      expect(worstItems).toBeLessThanOrEqual(Math.ceil(firstItems * factor));
    },
  );
});

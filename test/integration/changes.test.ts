/* eslint-disable @typescript-eslint/no-explicit-any -- feed entries are arbitrary JSON the tests inspect freely */
import demo from '../../fixtures/demo.json';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import { proxyTheApi } from '../support/dynamo-proxy';
import { feedAppendWrites, feedEnd, type NewFeedEntry } from '../../src/data/feed-store';
import { APPLICATION_LANES, LANE_COUNT, encodeCursor, laneOf } from '../../src/domain/change-feed';
import { feedChangeSource } from '../../src/services/changes';
import { transactWrite } from '../../src/data/dynamo/transact-write';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { keys } from '../../src/data/dynamo/keys';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Contract §13: the change feed. Every committed write exactly once, per
 * record in commit order, atomically with the record; rejected writes never;
 * a reader that follows next_cursor misses nothing, also with concurrent
 * writers and lagging indexes; 410 past retention, 400 for bad input.
 */
jest.setTimeout(120_000);

let api: TestApi;
let token: string;
let other: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(demo);
  other = await api.provision({ ...demo, business: { ...demo.business, id: 'other-feed' } });
});
afterAll(() => api.close());

const get = (path: string, t = token) => api.request('GET', `${API}${path}`, { token: t });
const send = (
  method: string,
  path: string,
  body: unknown,
  extra: { token?: string; headers?: Record<string, string> } = {},
) => api.request(method, `${API}${path}`, { token: extra.token ?? token, body, headers: extra.headers ?? {} });
const changes = (query = '', t = token) => get(`/changes${query ? `?${query}` : ''}`, t);

const applicant = (n: number | string) => ({
  first_name: 'Feed',
  last_name: `Applicant ${n}`,
  email: `feed${n}@example.com`,
  accept_terms_and_conditions: true,
  job_id: 'cook-2026',
});

/** Follows next_cursor from `cursor` until a page comes back empty; every entry read. */
async function drain(cursor: string | undefined, t = token, limit = 50): Promise<{ entries: any[]; cursor: string }> {
  const entries: any[] = [];
  let after = cursor;
  for (;;) {
    const res = await changes(`limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`, t);
    expect(res.status).toBe(200);
    entries.push(...res.body.entries);
    if (res.body.entries.length === 0) return { entries, cursor: res.body.next_cursor };
    after = res.body.next_cursor;
  }
}

describe('what the feed records', () => {
  let start: string;
  beforeAll(async () => {
    start = (await drain(undefined)).cursor;
  });

  it('each write once, with the record exactly as its GET answered right after it', async () => {
    const employee = await send('POST', '/employees', { first_name: 'Ada', last_name: 'Feed' });
    expect(employee.status).toBe(201);
    const id = employee.body.id;
    const renamed = await send('PUT', `/employees/${id}`, { first_name: 'Adele' });
    expect(renamed.status).toBe(200);
    const job = await send('POST', '/employee_jobs', { employee_id: id, name: 'Cook', from: '2026-01-01' });
    expect(job.status).toBe(201);
    const employeeAfterJob = await get(`/employees/${id}`);
    const app = await send('POST', '/applications', applicant('one'));
    const moved = await send('PUT', `/applications/${app.body.id}`, { application_status_id: 'interview' });
    expect(moved.status).toBe(200);

    const { entries } = await drain(start);
    expect(entries.map((e) => [e.type, e.id])).toEqual([
      ['employee.created', id],
      ['employee.updated', id],
      ['employee_job.created', job.body.id],
      ['employee.updated', id],
      ['application.created', app.body.id],
      ['application.updated', app.body.id],
    ]);
    expect(entries.map((e) => e.data)).toEqual([
      employee.body,
      renamed.body,
      job.body,
      employeeAfterJob.body,
      app.body,
      moved.body,
    ]);
    // The data is what GET answers now (field order included).
    expect(JSON.stringify(entries[5].data)).toBe(JSON.stringify((await get(`/applications/${app.body.id}`)).body));
    for (const e of entries) expect(e.occurred_at).toBe(e.data.updated_at);
  });

  it('rejected and replayed writes add nothing', async () => {
    const before = (await drain(start)).cursor;
    const app = await send('POST', '/applications', applicant('rejects'), {
      headers: { 'idempotency-key': 'feed-k1' },
    });
    const after = (await drain(before)).cursor;

    expect((await send('POST', '/applications', { first_name: 'X' })).status).toBe(422);
    expect((await send('POST', '/employees', { first_name: 'X' })).status).toBe(422);
    expect(
      (await send('POST', '/applications', applicant('rejects'), { headers: { 'idempotency-key': 'feed-k1' } })).status,
    ).toBe(201); // replay
    expect(
      (await send('POST', '/applications', applicant('other'), { headers: { 'idempotency-key': 'feed-k1' } })).status,
    ).toBe(409);
    expect(
      (await send('PUT', `/applications/${app.body.id}`, { first_name: 'Y' }, { headers: { 'if-match': '"stale"' } }))
        .status,
    ).toBe(412);
    expect((await send('PUT', `/applications/${app.body.id}`, { gender: 'nope' })).status).toBe(422);
    expect((await send('POST', '/employee_jobs', { employee_id: 'ghost', name: 'X', from: '2026-01-01' })).status).toBe(
      404,
    );
    // A PUT that changes nothing writes nothing, in the feed too.
    expect((await send('PUT', `/applications/${app.body.id}`, { first_name: 'Feed' })).status).toBe(200);

    const res = await changes(`after=${encodeURIComponent(after)}`);
    expect(res.body).toEqual({ entries: [], next_cursor: after });
  });

  it('an erasure appends application.deleted without data; a failed one appends nothing', async () => {
    const from = (await drain(start)).cursor;
    const app = await send('POST', '/applications', applicant('erased'));
    expect((await send('DELETE', `/applications/${app.body.id}`, undefined)).status).toBe(204);
    expect((await send('DELETE', `/applications/${app.body.id}`, undefined)).status).toBe(404);
    const { entries } = await drain(from);
    expect(entries.map((e) => [e.type, e.id, e.type === 'application.deleted' ? e.data : 'data'])).toEqual([
      ['application.created', app.body.id, 'data'],
      ['application.deleted', app.body.id, null],
    ]);
  });

  it('types filters; next_cursor moves past skipped entries', async () => {
    const from = (await drain(start)).cursor;
    await send('POST', '/employees', { first_name: 'T', last_name: 'One' });
    const app = await send('POST', '/applications', applicant('typed'));
    await send('POST', '/employees', { first_name: 'T', last_name: 'Two' });
    const res = await changes(`types=application.created,application.deleted&after=${encodeURIComponent(from)}`);
    expect(res.body.entries.map((e: any) => [e.type, e.id])).toEqual([['application.created', app.body.id]]);
    const rest = await changes(`types=application.created&after=${encodeURIComponent(res.body.next_cursor)}`);
    expect(rest.body).toEqual({ entries: [], next_cursor: res.body.next_cursor });
    // Every entry's cursor continues right after it.
    const all = await changes(`after=${encodeURIComponent(from)}`);
    expect(all.body.entries).toHaveLength(3);
    const tail = await changes(`after=${encodeURIComponent(all.body.entries[0].cursor)}`);
    expect(tail.body.entries).toEqual(all.body.entries.slice(1));
  });

  it('a page costs the token, the lane counters and the entries; writes stay at 3 round trips', async () => {
    const page = await countCalls(() => changes('limit=5'));
    expect(page.result.status).toBe(200);
    expect(page.calls).toBeLessThanOrEqual(4);
    expect(page.calls).toBe(3);
    // An application create reserves its positions (which pick its lane) beside its read (a BatchGetItem and the
    // Query of its kind's lane counters): 5 calls, 3 round trips.
    const write = await countCalls(() => send('POST', '/applications', applicant('calls')));
    expect(write.calls).toBe(5);
    expect(write.roundTrips).toBe(3);
    // Creates take the application lanes in turn: the next ones land in the lanes after it.
    const next = [
      await send('POST', '/applications', applicant('next1')),
      await send('POST', '/applications', applicant('next2')),
    ];
    const lanes = [write.result, ...next].map((r) => laneOf('application', r.body.id));
    expect(lanes.slice(1)).toEqual([1, 2].map((d) => ((lanes[0] as number) + d) % APPLICATION_LANES));
    const update = await countCalls(() => send('PUT', `/applications/${write.result.body.id}`, { first_name: 'Z' }));
    expect(update.roundTrips).toBe(3);
    const job = await countCalls(async () => {
      const e = await send('POST', '/employees', { first_name: 'C', last_name: 'Calls' });
      return send('POST', '/employee_jobs', { employee_id: e.body.id, name: 'Cook', from: '2026-01-01' });
    });
    // Each reserves its list position beside its read, 3 round trips: the employee 5 calls (it reads every employee
    // lane, its position picks one), the job 4 (it appends to its employee's lane).
    expect({ calls: job.calls, roundTrips: job.roundTrips }).toEqual({ calls: 9, roundTrips: 6 });
  });
});

describe('bad input', () => {
  it.each([
    ['after=nonsense', { after: ['is invalid'] }],
    ['after=', { after: ['is invalid'] }],
    ['limit=0', { limit: ['is invalid'] }],
    ['limit=501', { limit: ['is invalid'] }],
    ['limit=1e1', { limit: ['is invalid'] }],
    ['limit=abc', { limit: ['is invalid'] }],
    ['types=employee.created,employee.fired', { types: ['is not included in the list'] }],
    ['since=2026-01-01', { since: ['is not a known field'] }],
    [
      'limit=0&after=x&types=x',
      { limit: ['is invalid'], after: ['is invalid'], types: ['is not included in the list'] },
    ],
  ])('%s → 400', async (query, fields) => {
    const res = await changes(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(fields);
  });

  it("another business's cursor is malformed here, and its entries are never visible", async () => {
    await send('POST', '/applications', applicant('theirs'), { token: other });
    const theirs = await drain(undefined, other);
    expect(theirs.entries.length).toBeGreaterThan(0);
    const ours = await drain(undefined);
    const ourIds = new Set(ours.entries.map((e) => e.id));
    for (const e of theirs.entries) expect(ourIds.has(e.id)).toBe(false);
    const res = await changes(`after=${encodeURIComponent(theirs.cursor)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ after: ['is invalid'] });
  });

  it('a cursor beyond the end of the feed was never issued: 400', async () => {
    const end = await feedEnd('demo');
    const { decodeCursor } = await import('../../src/domain/change-feed');
    const p = decodeCursor('demo', end as string)!;
    const forged = encodeCursor(
      'demo',
      p.map((seq, lane) => (lane === 0 ? seq + 5 : seq)),
    );
    expect((await changes(`after=${forged}`)).status).toBe(400);
  });
});

describe('retention', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const lane = laneOf('application', 'old');
  // Entries of applications erased since (`data` null, as the document allows): these tests are about cursors.
  const entry = (n: number, at: number): NewFeedEntry => ({
    type: 'application.created',
    id: `old-${n}`,
    occurred_at: new Date(at).toISOString(),
    data: null,
  });
  const append = (n: number, entries: NewFeedEntry[], now = Date.now()) =>
    transactWrite(feedAppendWrites('retention', { lane, n, days: {} }, entries, now));
  const drop = (seq: number) =>
    db().send(new DeleteCommand({ TableName: tableName(), Key: keys.feedEntry('retention', lane, seq) }));

  it('a cursor whose following entries expired answers 410; an idle old cursor does not', async () => {
    const t = await api.provision({ ...demo, business: { ...demo.business, id: 'retention' } });
    const old = Date.now() - 40 * DAY;
    // Three changes 40 days ago, as the writers appended them then.
    await append(0, [entry(1, old), entry(2, old + 1)], old);
    await append(2, [entry(3, old + 2)], old);
    // A reader that kept up then: cursors after the first and after the last entry.
    const p0 = new Array<number>(LANE_COUNT).fill(0);
    const afterFirst = encodeCursor(
      'retention',
      p0.map((s, l) => (l === lane ? 1 : s)),
    );
    const afterAll = encodeCursor(
      'retention',
      p0.map((s, l) => (l === lane ? 3 : s)),
    );
    expect((await changes(`after=${afterFirst}`, t)).body.entries.map((e: any) => e.id)).toEqual(['old-2', 'old-3']);

    // Nothing new after an old cursor: still valid (nothing was missed).
    expect((await changes(`after=${afterAll}`, t)).body).toEqual({ entries: [], next_cursor: afterAll });
    // Without a cursor: from 30 days back, so none of these.
    expect((await changes('', t)).body.entries).toEqual([]);

    // TTL removes entry 2 (past retention): the reader after entry 1 missed it.
    await drop(2);
    const expired = await changes(`after=${afterFirst}`, t);
    expect(expired.status).toBe(410);
    expect(expired.body.error).toBe('cursor_expired');

    // Today's changes: a reader without a cursor starts at them; an entry gone from there on is skipped.
    await append(3, [entry(4, Date.now()), entry(5, Date.now() + 1), entry(6, Date.now() + 2)]);
    await drop(5);
    expect((await changes('', t)).body.entries.map((e: any) => e.id)).toEqual(['old-4', 'old-6']);
    expect((await changes(`after=${afterAll}`, t)).status).toBe(410);
  });
});

describe('concurrency and lagging indexes', () => {
  it('parallel writers while a reader follows next_cursor: every change exactly once, per record in order', async () => {
    const t = await api.provision({ ...demo, business: { ...demo.business, id: 'busy' } });
    const proxy = await proxyTheApi({ indexLagMs: 1500 });
    try {
      const committed: { id: string; updated_at: string }[] = [];
      let writing = true;
      const seen: any[] = [];
      let failed = false;
      const reader = (async () => {
        let after: string | undefined;
        while (!failed) {
          const done = !writing;
          const res = await changes(`limit=7${after ? `&after=${encodeURIComponent(after)}` : ''}`, t);
          if (res.status === 503) continue; // overloaded: ask again with the same cursor
          expect(res.status).toBe(200);
          seen.push(...res.body.entries);
          after = res.body.next_cursor;
          if (done && res.body.entries.length === 0) return;
          if (res.body.entries.length === 0) await new Promise((r) => setTimeout(r, 20));
        }
      })();
      // A client retries a 503 (creates with their Idempotency-Key, so a retry never creates twice).
      let unavailable = 0;
      const write = async (method: string, path: string, body: unknown, key?: string) => {
        for (;;) {
          const res = await send(method, path, body, { token: t, headers: key ? { 'idempotency-key': key } : {} });
          if (res.status !== 503) return res;
          unavailable += 1;
        }
      };
      const writer = async (w: number): Promise<void> => {
        const app = await write('POST', '/applications', applicant(`busy-${w}`), `busy-app-${w}`);
        expect(app.status).toBe(201);
        committed.push(app.body);
        const employee = await write('POST', '/employees', { first_name: 'W', last_name: `${w}` }, `busy-emp-${w}`);
        expect(employee.status).toBe(201);
        committed.push(employee.body);
        for (let i = 0; i < 3; i++) {
          const put = await write('PUT', `/applications/${app.body.id}`, { last_name: `Busy ${w}.${i}` });
          expect(put.status).toBe(200);
          committed.push(put.body);
          const e = await write('PUT', `/employees/${employee.body.id}`, { last_name: `W${w}.${i}` });
          expect(e.status).toBe(200);
          committed.push(e.body);
        }
      };
      try {
        await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
      } catch (error) {
        failed = true;
        throw error;
      }
      writing = false;
      await reader;
      expect(unavailable).toBeLessThan(committed.length);

      const key = (r: { id: string; updated_at: string }) => `${r.id}@${r.updated_at}`;
      const seenKeys = seen.map((e) => key(e.data));
      expect(new Set(seenKeys).size).toBe(seenKeys.length); // exactly once
      expect(seenKeys.sort()).toEqual(committed.map(key).sort()); // nothing missed, nothing extra
      // Per record: feed order = commit order (updated_at strictly increasing).
      const last = new Map<string, string>();
      for (const e of seen) {
        const previous = last.get(e.id);
        if (previous !== undefined) expect(e.data.updated_at > previous).toBe(true);
        last.set(e.id, e.data.updated_at);
      }
      // The feed never read an index; lists did hide the newest entries meanwhile.
      const listing = await get('/applications?per_page=100', t);
      expect(listing.status).toBe(200);
    } finally {
      await proxy.restore();
    }
  });

  it('right after a write, the next page has it, while indexes lag', async () => {
    const t = await api.provision({ ...demo, business: { ...demo.business, id: 'lagging' } });
    const proxy = await proxyTheApi({ indexLagMs: 60_000 });
    try {
      let cursor = (await drain(undefined, t)).cursor;
      for (let i = 0; i < 5; i++) {
        const app = await send('POST', '/applications', applicant(`lag-${i}`), { token: t });
        const res = await changes(`after=${encodeURIComponent(cursor)}`, t);
        expect(res.body.entries.map((e: any) => e.id)).toEqual([app.body.id]);
        cursor = res.body.next_cursor;
      }
      // The list (an index) still hides them: the feed does not depend on it.
      expect((await get('/applications', t)).body.entries).toHaveLength(0);
      expect(proxy.stats.itemsHidden).toBeGreaterThan(0);
    } finally {
      await proxy.restore();
    }
  });
});

describe('webhooks change source', () => {
  it('reads after a cursor and names the newest one', async () => {
    const t = await api.provision({ ...demo, business: { ...demo.business, id: 'hooks' } });
    expect(await feedChangeSource.end('hooks')).toBeNull();
    const a = await send('POST', '/applications', applicant('hook-a'), { token: t });
    const end = await feedChangeSource.end('hooks');
    expect(end).not.toBeNull();
    const b = await send('POST', '/employees', { first_name: 'H', last_name: 'B' }, { token: t });
    expect((await feedChangeSource.readAfter('hooks', null, 10)).entries.map((e) => e.id)).toEqual([
      a.body.id,
      b.body.id,
    ]);
    expect((await feedChangeSource.readAfter('hooks', end, 10)).entries.map((e) => e.id)).toEqual([b.body.id]);
  });
});

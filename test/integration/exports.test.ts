/* eslint-disable @typescript-eslint/no-explicit-any -- records and feed entries are arbitrary JSON */
import demo from '../../fixtures/demo.json';
import { setEnvForFile } from '../support/env';
import { API, startApi, type TestApi } from '../support/harness';
import { createToken } from '../../src/data/token-store';
import type { Scope } from '../../src/domain/scopes';
import { asExportWorker, inProcessLauncher, runExport, useExportLauncher } from '../../src/services/exports';
import { db, dynamoStats } from '../../src/data/dynamo/client';

/**
 * Contract §20, exports: POST /exports (202), GET /exports/{id}, a JSON Lines
 * file in S3 behind a 5-minute URL. The file plus the change feed from
 * `feed_cursor` is exactly what the API serves, also when writers run during
 * the export; a worker run that stops midway is resumed by the next.
 */
jest.setTimeout(180_000);

// Tokens are kept as deployed (lib/api-stack.ts): one lookup per token, not one per request. What a token's
// lookup costs, and a revoked one ending on every instance, are token-cache.test.ts's and instances.test.ts's.
setEnvForFile('AUTH_CACHE_SECONDS', '60');

const BUSINESS = 'exports';
let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: BUSINESS } });
});
afterAll(async () => {
  useExportLauncher(inProcessLauncher());
  await api.close();
});

const send = (method: string, path: string, body?: unknown, t = token) =>
  api.request(method, `${API}${path}`, { token: t, ...(body !== undefined ? { body } : {}) });

const applicant = (n: string) => ({
  first_name: 'Export',
  last_name: n,
  email: `export-${n}@example.com`,
  accept_terms_and_conditions: true,
  job_id: n.length % 2 ? 'cook-2026' : null,
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const finished = (id: string, t = token) =>
  until(
    () => send('GET', `/exports/${id}`, undefined, t),
    (res) => res.body.status !== 'running',
    `export ${id}`,
  );

/** The file's records by `type:id`. */
async function download(url: string): Promise<Map<string, any>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const text = await res.text();
  const records = new Map<string, any>();
  for (const line of text.split('\n').filter(Boolean)) {
    const { type, data } = JSON.parse(line) as { type: string; data: any };
    expect(records.has(`${type}:${data.id}`)).toBe(false);
    records.set(`${type}:${data.id}`, data);
  }
  return records;
}

/** Applies the feed from `cursor` on top of `records` (upsert whole records, remove deleted ones). */
async function applyFeed(records: Map<string, any>, cursor: string, t = token): Promise<void> {
  let after = cursor;
  for (;;) {
    const res = await send('GET', `/changes?after=${encodeURIComponent(after)}&limit=100`, undefined, t);
    expect(res.status).toBe(200);
    for (const e of res.body.entries) {
      const [type, change] = String(e.type).split('.');
      const key = `${type}:${e.id}`;
      if (change === 'deleted') records.delete(key);
      else if (e.data !== null) records.set(key, e.data);
    }
    if (res.body.entries.length === 0) return;
    after = res.body.next_cursor;
  }
}

/** What the API serves now, by `type:id`. */
async function apiState(t = token): Promise<Map<string, any>> {
  const records = new Map<string, any>();
  for (const [path, type] of [
    ['/employees', 'employee'],
    ['/employee_jobs', 'employee_job'],
    ['/applications', 'application'],
  ] as const) {
    for (let page = 1; ; page++) {
      const res = await send('GET', `${path}?per_page=100&page=${page}`, undefined, t);
      for (const r of res.body.entries) records.set(`${type}:${r.id}`, r);
      if (res.body.entries.length < 100) break;
    }
  }
  return records;
}

const ALL = ['employees', 'employee_jobs', 'applications'];

describe('scopes', () => {
  const tokenWith = async (scopes: Scope[]) => (await createToken(BUSINESS, { name: 'scoped', scopes })).token;

  it.each([
    [['changes:read'], ['applications'], 'applications:read'],
    [['changes:read', 'applications:read'], ['applications', 'employee_jobs'], 'employees:read'],
    [['applications:read', 'employees:read'], ['applications'], 'changes:read'],
  ] as const)('a token with %j exporting %j gets 403 naming %s, and nothing starts', async (scopes, types, missing) => {
    const res = await send('POST', '/exports', { types }, await tokenWith([...scopes]));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', message: `This token lacks the scope ${missing}` });
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${missing}"`);
  });

  it('the read scope of every type named and changes:read suffice; reading an export needs changes:read', async () => {
    const t = await tokenWith(['changes:read', 'employees:read']);
    const res = await send('POST', '/exports', { types: ['employees', 'employee_jobs'] }, t);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.any(String), status: 'running', created_at: expect.any(String) });
    expect(res.headers.get('location')).toBe(`${API}/exports/${res.body.id}`);
    expect((await send('GET', `/exports/${res.body.id}`, undefined, await tokenWith(['employees:read']))).status).toBe(
      403,
    );
    expect((await finished(res.body.id)).body.status).toBe('completed');
  });

  it('bad bodies are 422 field errors; an unknown or another business’s export is 404', async () => {
    for (const body of [{}, { types: [] }, { types: ['payroll'] }, { types: ['employees', 'employees'] }]) {
      const res = await send('POST', '/exports', body);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body)).toEqual(['types']);
    }
    const other = await api.provision({ ...demo, business: { ...demo.business, id: 'exports-other' } });
    const theirs = await send('POST', '/exports', { types: ['employees'] }, other);
    expect((await send('GET', `/exports/${theirs.body.id}`)).status).toBe(404);
    expect((await send('GET', '/exports/exp_nothing')).status).toBe(404);
  });
});

describe('the file', () => {
  it('holds every record as its GET answers it; counts, expiry, a 5-minute download URL', async () => {
    const emp = await send('POST', '/employees', { first_name: 'Eve', last_name: 'Export', cf_12: '41' });
    await send('POST', '/employee_jobs', { employee_id: emp.body.id, name: 'Cook', from: '2024-01-01' });
    for (let i = 0; i < 5; i++) await send('POST', '/applications', applicant(`file-${i}`));
    const started = await send('POST', '/exports', { types: ALL });
    const done = await finished(started.body.id);
    expect(done.body).toMatchObject({ id: started.body.id, status: 'completed', types: ALL });
    expect(Date.parse(done.body.expires_at) - Date.parse(done.body.created_at)).toBe(24 * 3600 * 1000);
    const url = new URL(done.body.download_url);
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(300);

    const file = await download(done.body.download_url);
    const state = await apiState();
    expect(file).toEqual(state);
    expect(done.body.counts).toEqual({
      employees: [...state.keys()].filter((k) => k.startsWith('employee:')).length,
      employee_jobs: [...state.keys()].filter((k) => k.startsWith('employee_job:')).length,
      applications: [...state.keys()].filter((k) => k.startsWith('application:')).length,
    });
    // Field order as GET answers it.
    const app = [...state.values()].find((r) => r.last_name === 'file-0');
    expect(JSON.stringify(file.get(`application:${app.id}`))).toBe(JSON.stringify(app));
  });
});

describe('consistency and resumption (worker runs driven by the test)', () => {
  let runs: { businessId: string; id: string }[] = [];
  beforeAll(() => {
    runs = [];
    useExportLauncher(async (businessId, id) => {
      runs.push({ businessId, id });
    });
  });
  afterAll(() => useExportLauncher(inProcessLauncher()));

  it('file + feed from feed_cursor = the API state, with creates, updates and deletes racing the export', async () => {
    const seeded: string[] = [];
    for (let i = 0; i < 60; i++) seeded.push((await send('POST', '/applications', applicant(`race-${i}`))).body.id);
    const emps: string[] = [];
    for (let i = 0; i < 10; i++)
      emps.push((await send('POST', '/employees', { first_name: 'R', last_name: `${i}` })).body.id);

    const started = await send('POST', '/exports', { types: ALL });
    const id = started.body.id as string;
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing || i < 30; i++) {
        const victim = seeded[(i * 7) % seeded.length]!;
        const op = i % 4;
        if (op === 0) await send('POST', '/applications', applicant(`during-${i}`));
        else if (op === 1) await send('PUT', `/applications/${victim}`, { last_name: `moved-${i}` });
        else if (op === 2) await send('DELETE', `/applications/${victim}`);
        else {
          await send('PUT', `/employees/${emps[i % emps.length]}`, { last_name: `E${i}` });
          await send('POST', '/employee_jobs', {
            employee_id: emps[i % emps.length],
            name: `J${i}`,
            from: '2025-01-01',
          });
        }
      }
    })();
    // Small batches and parts (8 and more of each over the applications), so the writers interleave with many reads
    // and uploads.
    const outcome = await asExportWorker(() => runExport(BUSINESS, id, { batchSize: 8, partBytes: 2 * 1024 }));
    writing = false;
    await writer;
    expect(outcome).toBe('completed');
    // An erasure after completion sets the export running again without its file (contract §20): one more run.
    if ((await send('GET', `/exports/${id}`)).body.status === 'running')
      expect(await asExportWorker(() => runExport(BUSINESS, id, { batchSize: 8, partBytes: 2 * 1024 }))).toBe(
        'completed',
      );

    const done = (await send('GET', `/exports/${id}`)).body;
    expect(done.status).toBe('completed');
    const records = await download(done.download_url);
    await applyFeed(records, done.feed_cursor);
    expect(records).toEqual(await apiState());
    // Replaying the feed again changes nothing (idempotent).
    const again = new Map(records);
    await applyFeed(again, done.feed_cursor);
    expect(again).toEqual(records);
  });

  it('a run that stops midway is resumed by the next from its checkpoint: the same file, each record once', async () => {
    // With the earlier tests' records, more than the six batches of 10 the first run may do.
    for (let i = 0; i < 20; i++) await send('POST', '/applications', applicant(`resume-${i}`));
    expect((await apiState()).size).toBeGreaterThan(6 * 10);
    const started = await send('POST', '/exports', { types: ALL });
    const id = started.body.id as string;
    let batches = 0;
    const first = await asExportWorker(() =>
      runExport(BUSINESS, id, { batchSize: 10, partBytes: 2 * 1024, outOfTime: () => ++batches > 6 }),
    );
    expect(first).toBe('paused');
    const midway = (await send('GET', `/exports/${id}`)).body;
    expect(midway.status).toBe('running');
    expect(midway).not.toHaveProperty('download_url');
    const soFar = midway.counts.employees + midway.counts.employee_jobs + midway.counts.applications;
    expect(soFar).toBeGreaterThan(0);

    // The next run takes over (the stopped one gave its lease up) and does not start over.
    const second = await asExportWorker(() => runExport(BUSINESS, id, { batchSize: 10, partBytes: 2 * 1024 }));
    expect(second).toBe('completed');
    // A run for a finished export does nothing.
    expect(await asExportWorker(() => runExport(BUSINESS, id))).toBe('busy');
    const done = (await send('GET', `/exports/${id}`)).body;
    const file = await download(done.download_url);
    expect(file).toEqual(await apiState());
  });

  it('reads each record once: one consistent Query page of its record partition per type, no index', async () => {
    const id = (await send('POST', '/exports', { types: ALL })).body.id as string;
    const consistent: unknown[] = [];
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand')
          consistent.push((args.input as { ConsistentRead?: unknown }).ConsistentRead);
        return next(args);
      },
      { step: 'initialize', name: 'export-queries' },
    );
    dynamoStats.reset();
    try {
      expect(await asExportWorker(() => runExport(BUSINESS, id))).toBe('completed');
    } finally {
      db().middlewareStack.remove('export-queries');
    }
    const { itemsRead, indexItemsRead } = dynamoStats;
    const { counts } = (await send('GET', `/exports/${id}`)).body;
    const records = counts.employees + counts.employee_jobs + counts.applications;
    expect(records).toBeGreaterThanOrEqual(80);
    // The records and the business config; nothing read twice, no index entry, no record read by key.
    expect({ itemsRead, indexItemsRead, consistent }).toEqual({
      itemsRead: records + 1,
      indexItemsRead: 0,
      consistent: [true, true, true],
    });
  });
});

describe('erasure wins over exports (contract §20)', () => {
  // Worker runs are driven by these tests alone (POST /exports starts none here). A business of its own: the first
  // run below makes a batch and a part of every application: its ten here, not the hundred-odd the tests above made.
  const ERASURE = 'exports-erasure';
  let erasureToken: string;
  const erasing = (method: string, path: string, body?: unknown) => send(method, path, body, erasureToken);
  beforeAll(async () => {
    useExportLauncher(async () => undefined);
    erasureToken = await api.provision({ ...demo, business: { ...demo.business, id: ERASURE } });
  });
  /** Which of these applicants (id, last name) leave any trace in the file. */
  const traces = async (url: string, applicants: readonly (readonly [string, string])[]): Promise<string[]> => {
    const text = await (await fetch(url)).text();
    return applicants.filter(([id, name]) => text.includes(id) || text.includes(name)).map(([id]) => id);
  };

  it('8 of 10 applicants erased while the export runs: the file holds none of them, and file + feed = API state', async () => {
    const ids: string[] = [];
    const names = Array.from({ length: 10 }, (_, i) => `Erased-${Date.now()}-${i}`);
    for (const name of names) ids.push((await erasing('POST', '/applications', applicant(name))).body.id);
    const id = (await erasing('POST', '/exports', { types: ['applications'] })).body.id as string;
    // A first run reads every application (one per batch, each in its own uploaded part) and stops just before
    // it would complete: the ten are in the file's parts when the erasures come.
    const total = (await erasing('GET', '/applications?per_page=1')).body.total_entries as number;
    let batches = 0;
    const first = await asExportWorker(() =>
      runExport(ERASURE, id, { batchSize: 1, partBytes: 1, outOfTime: () => ++batches > total }),
    );
    expect(first).toBe('paused');
    // Four erasures answered while the export runs, after the worker wrote those applicants into parts: the run that
    // completes the file takes them out of it first.
    const before = await Promise.all(ids.slice(0, 4).map((victim) => erasing('DELETE', `/applications/${victim}`)));
    expect(await asExportWorker(() => runExport(ERASURE, id, { batchSize: 4, partBytes: 1024 }))).toBe('completed');
    const completed = (await erasing('GET', `/exports/${id}`)).body;
    expect(completed.status).toBe('completed');
    const named = ids.map((a, i) => [a, names[i]!] as const);
    expect(await traces(completed.download_url, named.slice(0, 4))).toEqual([]);
    expect(await traces(completed.download_url, named.slice(4))).toEqual(ids.slice(4));
    // Four more race worker runs after completion: the file goes, and a later run completes it without them.
    const [, ...after] = await Promise.all([
      asExportWorker(() => runExport(ERASURE, id, { batchSize: 4, partBytes: 1024 })),
      ...ids.slice(4, 8).map((victim) => erasing('DELETE', `/applications/${victim}`)),
    ]);
    expect((await fetch(completed.download_url)).status).toBe(404);
    expect([...before, ...after].map((r) => r.status)).toEqual(Array(8).fill(204));
    if ((await erasing('GET', `/exports/${id}`)).body.status === 'running')
      expect(await asExportWorker(() => runExport(ERASURE, id, { batchSize: 4, partBytes: 1024 }))).toBe('completed');
    const done = (await erasing('GET', `/exports/${id}`)).body;
    expect(done.status).toBe('completed');
    expect(await traces(done.download_url, named.slice(0, 8))).toEqual([]);
    const records = await download(done.download_url);
    expect(records.has(`application:${ids[8]}`) && records.has(`application:${ids[9]}`)).toBe(true);
    expect(done.counts.applications).toBe(records.size);
    await applyFeed(records, done.feed_cursor, erasureToken);
    const state = await apiState(erasureToken);
    expect(new Map([...records].filter(([k]) => k.startsWith('application:')))).toEqual(
      new Map([...state].filter(([k]) => k.startsWith('application:'))),
    );
  });

  it('an erasure after completion deletes the file before it answers; the export runs again without the applicant', async () => {
    const name = `Late-${Date.now()}`;
    const victim = (await erasing('POST', '/applications', applicant(name))).body.id as string;
    const id = (await erasing('POST', '/exports', { types: ['applications'] })).body.id as string;
    await asExportWorker(() => runExport(ERASURE, id));
    const done = await finished(id, erasureToken);
    expect(done.body.status).toBe('completed');
    const url = done.body.download_url as string;
    expect(await (await fetch(url)).text()).toContain(victim);

    expect((await erasing('DELETE', `/applications/${victim}`)).status).toBe(204);
    expect((await fetch(url)).status).toBe(404);
    const reopened = (await erasing('GET', `/exports/${id}`)).body;
    expect(reopened.status).toBe('running');
    expect(reopened).not.toHaveProperty('download_url');
    expect(await asExportWorker(() => runExport(ERASURE, id))).toBe('completed');
    const again = (await erasing('GET', `/exports/${id}`)).body;
    expect(again).toMatchObject({ status: 'completed', feed_cursor: done.body.feed_cursor });
    expect(await traces(again.download_url, [[victim, name]])).toEqual([]);
  });
});

/**
 * Retention (contract §17): applications whose updated_at is older than their
 * business's application_retention_days are erased, through the same path as
 * DELETE, by `npm run admin -- retention run [--now DATETIME]` and the
 * scheduled job (the same service). Due vs not due at the exact boundary,
 * twice and concurrently (nothing counted twice, no error), a large business
 * walked in bounded batches (items read per call, not wall time), and the
 * erased applicants leave no trace in the table (feed entries included).
 */
import { seedItems } from '../../scripts/lib/seed-applications';
import { configOf, readRegistry } from '../../src/data/business-store';
import { db } from '../../src/data/client';
import { keys } from '../../src/data/keys';
import { batchPut, getItem } from '../../src/data/table-io';
import { BATCH_SIZE, asRetentionJob, runRetention } from '../../src/services/retention';
import { handler as retentionJob } from '../../functions/apply-retention';
import type { Context } from 'aws-lambda';
import { retentionCommand } from '../../scripts/lib/retention-command';
import { admin } from '../support/admin';
import { API, startApi, type TestApi } from '../support/harness';
import { storedApplication } from '../support/stored-application';
import { scanAll } from '../support/table-scan';

const DAY = 24 * 60 * 60 * 1000;

const fixture = (id: string, days?: number | null) => ({
  business: {
    id,
    name: `Retention ${id}`,
    locales: ['en'],
    timezone: 'Europe/Rome',
    ...(days !== undefined ? { application_retention_days: days } : {}),
  },
  application_statuses: [
    { id: 'new', name_en: 'New', default: true },
    { id: 'hired', name_en: 'Hired' },
  ],
  job_openings: [{ id: 'cook', name_en: 'Cook' }],
  application_fields: [{ id: '7', type_of: 'text', name_en: 'Motivation', required: false }],
});

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
}, 60_000);
afterAll(() => api.close());

const erasedBy = (out: { stdout: string }): unknown => JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}');

describe('npm run admin -- retention run --now', () => {
  let token: string;
  const call = (method: string, path: string, body?: unknown) =>
    api.request(method, `${API}${path}`, { token, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    token = await api.provision(fixture('keep30', 30));
    await api.provision(fixture('keepforever'));
  });

  it('erases exactly the applications whose updated_at is older than the retention, at the boundary too', async () => {
    const applicant = (n: string) => ({
      accept_terms_and_conditions: true,
      first_name: `Olga${n}`,
      last_name: 'Retainova',
      email: `olga${n}@example.com`,
      phone: '+39 0471 555000',
      cf_7: `retention-secret-${n}`,
    });
    const a = (await call('POST', '/applications', applicant('a'))).body;
    const b = (await call('POST', '/applications', applicant('b'))).body;
    // A later write makes `a` younger than `b`: updated_at counts, not created_at.
    const a2 = (await call('PUT', `/applications/${a.id}`, { application_status_id: 'hired' })).body;
    expect(a2.updated_at > b.updated_at).toBe(true);
    const boundary = Date.parse(b.updated_at) + 30 * DAY;

    const atBoundary = await admin('retention', 'run', '--now', new Date(boundary).toISOString());
    expect(atBoundary.code).toBe(0);
    expect(erasedBy(atBoundary)).toEqual({ erased: 0 });
    expect(atBoundary.stderr).toContain('retention: done, 0 erased');

    const justAfter = await admin('retention', 'run', '--now', new Date(boundary + 1).toISOString());
    expect(erasedBy(justAfter)).toEqual({ erased: 1 });
    expect((await call('GET', `/applications/${b.id}`)).status).toBe(404);
    expect((await call('GET', `/applications/${a.id}`)).status).toBe(200);
    expect((await call('GET', '/applications')).body.total_entries).toBe(1);

    // Twice: nothing left to erase at that time.
    expect(erasedBy(await admin('retention', 'run', '--now', new Date(boundary + 1).toISOString()))).toEqual({
      erased: 0,
    });
    const later = Date.parse(a2.updated_at) + 31 * DAY;
    expect(
      erasedBy(await admin('retention', 'run', '--now', new Date(later).toISOString(), '--business', 'keep30')),
    ).toEqual({
      erased: 1,
    });
    expect((await call('GET', '/applications')).body.total_entries).toBe(0);
    const feed = (await call('GET', '/changes?limit=100')).body.entries as { type: string; data: unknown }[];
    expect(feed.map((e) => [e.type, e.data === null])).toEqual([
      ['application.created', true],
      ['application.created', true],
      ['application.updated', true],
      ['application.deleted', true],
      ['application.deleted', true],
    ]);
    const traces = ['Olga', 'Retainova', 'olgaa@', '555000', 'retention-secret'];
    expect((await scanAll()).filter((item) => traces.some((t) => JSON.stringify(item).includes(t)))).toEqual([]);
  }, 120_000);

  it('rejects a bad --now before connecting, and keeps businesses without a retention setting', async () => {
    const bad = await admin('retention', 'run', '--now', 'next tuesday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--now must be an ISO 8601/);
    expect(bad.stdout).toBe('');
    expect((await readRegistry()).map((b) => [b.businessId, b.retentionDays]).sort()).toEqual(
      expect.arrayContaining([
        ['keep30', 30],
        ['keepforever', undefined],
      ]),
    );
  }, 60_000);

  it('shows one live progress line on a terminal', async () => {
    let written = '';
    const tty = { isTTY: true, write: (s: string) => (written += s) };
    await retentionCommand({ nowMs: Date.now(), businessId: 'keep30' }, { out: { write: () => true }, err: tty });
    // Every batch rewrites the one progress line (\r, erase line), ended once.
    expect(written.split('\n')).toEqual([
      expect.stringMatching(/^retention: due = /),
      expect.stringMatching(/^\r\x1b\[2Kretention: business 1\/1 keep30: [^\n]*$/),
      expect.stringMatching(/^retention: done, \d+ erased$/),
      '',
    ]);
  });
});

describe('a business of many batches, walked in bounded batches, twice and concurrently', () => {
  const BID = 'bigretain';
  // More than four batches due (two runs race over several of them), then 40 more for the resumed run, and some
  // never due: the walk must end at the first one that is not.
  const DUE = 4 * BATCH_SIZE + 10;
  const N = DUE + 50;
  const start = Date.parse('2025-01-01T00:00:00.000Z');

  beforeAll(async () => {
    await api.provision(fixture(BID, 10));
    const config = configOf(await getItem(keys.business(BID)))!;
    const apps = Array.from({ length: N }, (_, i) => {
      const at = new Date(start + i * 60_000).toISOString();
      return storedApplication({
        id: `big-${String(i).padStart(4, '0')}`,
        job_id: i % 2 === 0 ? 'cook' : null,
        application_status_id: i % 3 === 0 ? 'hired' : 'new',
        first_name: 'Big',
        last_name: `${i}`,
        email: `big${i}@example.com`,
        created_at: at,
      });
    });
    await batchPut(seedItems(BID, config, apps));
  }, 120_000);

  it('erases the due ones exactly once across two concurrent runs; no call reads more than a batch', async () => {
    // Applications i < DUE are older than 10 days at `now`; the one at DUE is exactly 10 days old (kept).
    const now = start + DUE * 60_000 + 10 * DAY;
    const perCall: { command: string; items: number }[] = [];
    const stack = db().middlewareStack;
    stack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const out = result.output as { Items?: unknown[]; Responses?: Record<string, unknown[]>; Item?: unknown };
        const items =
          out.Items?.length ??
          (out.Responses ? Object.values(out.Responses).reduce((n, l) => n + l.length, 0) : out.Item ? 1 : 0);
        perCall.push({ command: context.commandName ?? '?', items });
        return result;
      },
      { step: 'initialize', name: 'retentionCounter' },
    );
    let results;
    try {
      // As the deployed job (its calls are checked against WORKER_GRANTS) and as the admin tool, at once.
      results = await Promise.all([
        asRetentionJob(() => runRetention({ nowMs: now, businessId: BID })),
        runRetention({ nowMs: now, businessId: BID }),
      ]);
    } finally {
      stack.remove('retentionCounter');
    }
    expect(results.map((r) => r.complete)).toEqual([true, true]);
    expect(results[0]!.erased + results[1]!.erased).toBe(DUE);
    expect(perCall.filter((c) => c.command === 'ScanCommand')).toEqual([]);
    const queries = perCall.filter((c) => c.command === 'QueryCommand');
    expect(queries.length).toBeGreaterThanOrEqual(Math.ceil(DUE / BATCH_SIZE));
    expect(Math.max(...perCall.map((c) => c.items))).toBeLessThanOrEqual(BATCH_SIZE);

    const token = await api.provision(fixture(BID, 10));
    const list = await api.request('GET', `${API}/applications?per_page=1`, { token });
    expect(list.body.total_entries).toBe(N - DUE);
    expect(list.body.entries[0].id).toBe(`big-${String(DUE).padStart(4, '0')}`);
    // A third run at the same time: nothing left.
    expect(await runRetention({ nowMs: now, businessId: BID })).toEqual({ erased: 0, complete: true });
  }, 240_000);

  it('stops at its deadline and the next run resumes where it stopped', async () => {
    const now = start + (DUE + 40) * 60_000 + 10 * DAY;
    const stopped = await runRetention({ nowMs: now, businessId: BID, deadline: Date.now() - 1 });
    expect(stopped).toEqual({ erased: 0, complete: false });
    // The Lambda keeps its last 30 s free: with less left it starts nothing (and says so), nothing fails.
    const lambda = (ms: number) => ({ getRemainingTimeInMillis: () => ms }) as unknown as Context;
    expect(await retentionJob({}, lambda(29_000))).toEqual({ erased: 0, complete: false });
    let calls = 0;
    const partial = await runRetention({
      nowMs: now,
      businessId: BID,
      batchSize: 5,
      onProgress: () => void (calls += 1),
      deadline: Date.now() + 60_000,
    });
    expect(partial).toEqual({ erased: 40, complete: true });
    expect(calls).toBeGreaterThanOrEqual(8);
  }, 120_000);
});

/**
 * Retention (contract §17): applications whose updated_at is older than their
 * business's application_retention_days are erased, through the same path as
 * DELETE, by `npm run admin -- retention run [--now DATETIME]` and the
 * scheduled job (the same service). Due vs not due at the exact boundary,
 * twice and concurrently (nothing counted twice, no error), a large business
 * walked in bounded batches (items read per call, not wall time), and the
 * erased applicants leave no trace in the table (feed entries included),
 * also when DynamoDB applies writes and loses their answers.
 */
import { seedItems } from '../../scripts/lib/seed-applications';
import { configOf, readRegistry } from '../../src/data/business-store';
import { db } from '../../src/data/dynamo/client';
import { keys } from '../../src/data/dynamo/keys';
import { batchPut, getItem } from '../../src/data/dynamo/table-io';
import { BATCH_SIZE, RetentionFailed, asRetentionJob, runRetention } from '../../src/services/retention';
import { handler as retentionJob } from '../../functions/apply-retention';
import type { Context } from 'aws-lambda';
import { retentionCommand } from '../../scripts/lib/retention-command';
import { runWithDeadline } from '../../src/data/deadline';
import { admin } from '../support/admin';
import { AMBIGUOUS_FAULTS, proxyTheApi, seededRandom } from '../support/dynamo-proxy';
import { runFailingJob } from '../support/failing-job';
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

describe('retention while DynamoDB applies writes and loses the answers, throttles and drops connections', () => {
  const BID = 'faultretain';
  // FIRST due on day one (random faults), DUE - FIRST more on day two (every transaction's answer lost), KEPT not due.
  const FIRST = 16;
  const DUE = FIRST + 4;
  const KEPT = 4;
  // As in ambiguous-writes.test.ts, on what an erasure sends: the API's rate count syncs (UpdateItem, on a timer
  // after the creates) would draw from the seeded sequence at moments that vary from run to run.
  const FAULTS = { ...AMBIGUOUS_FAULTS, operations: ['BatchGetItem', 'Query', 'TransactWriteItems', 'GetItem'] };
  // Every record read dropped before it reaches DynamoDB, each of the SDK's attempts.
  const READS_LOST = { dropBeforeForward: 1, operations: ['BatchGetItem'] };
  // Every erasure's transaction applied and each of the SDK's attempts answered 500: only its witness read can tell.
  const ANSWERS_LOST = { applyThenFail: 1, operations: ['TransactWriteItems'] };
  let token: string;
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api.request(method, `${API}${path}`, {
      token,
      ...(body !== undefined ? { body } : {}),
      ...(headers ? { headers } : {}),
    });
  const secret = (i: number) => `faultsecret-${i}-x`;

  beforeAll(async () => {
    token = await api.provision(fixture(BID, 30));
  });

  it('erases every due application exactly once, counts each once, and touches nothing else', async () => {
    // With Idempotency-Key (its record keeps the first answer: data to erase) and a PUT on some (an update entry).
    const create = async (i: number) => {
      const res = await call(
        'POST',
        '/applications',
        {
          accept_terms_and_conditions: true,
          first_name: `Faulty${i}`,
          last_name: 'Retainer',
          email: `faulty${i}@example.com`,
          cf_7: secret(i),
        },
        { 'Idempotency-Key': `fault-retain-${i}` },
      );
      expect(res.status).toBe(201);
      if (i % 4 === 0) {
        const put = await call('PUT', `/applications/${res.body.id}`, { application_status_id: 'hired' });
        expect(put.status).toBe(200);
        return put.body as { id: string; updated_at: string };
      }
      return res.body as { id: string; updated_at: string };
    };
    const apps: { id: string; updated_at: string }[] = [];
    for (let i = 0; i < DUE + KEPT; i++) apps.push(await create(i));
    const due = apps.slice(0, DUE);
    const kept = apps.slice(DUE);
    const newest = (list: typeof apps) => Math.max(...list.map((a) => Date.parse(a.updated_at)));
    const oldest = (list: typeof apps) => Math.min(...list.map((a) => Date.parse(a.updated_at)));
    expect(oldest(due.slice(FIRST))).toBeGreaterThan(newest(due.slice(0, FIRST)));
    expect(oldest(kept)).toBeGreaterThan(newest(due));
    const keptBefore = await Promise.all(kept.map(async (a) => (await call('GET', `/applications/${a.id}`)).body));
    // At each `now` the due ones are older than 30 days, and the next one is not.
    const firstDay = newest(due.slice(0, FIRST)) + 30 * DAY + 1;
    const nextDay = newest(due) + 30 * DAY + 1;

    // As the deployed job runs (functions/apply-retention.ts): in its call scope (its calls are checked against
    // WORKER_GRANTS), under a deadline, starting no erasure after its stop time. A run that stops (its deadline, or
    // a fault its retries did not absorb: RetentionFailed) is run again, as the next invocation would.
    const proxy = await proxyTheApi({}, seededRandom(20261126));
    const reported: number[] = [];
    const runUntilComplete = async (nowMs: number): Promise<void> => {
      for (let run = 0; run < 5; run++) {
        try {
          const result = await asRetentionJob(() =>
            runWithDeadline(60_000, () => runRetention({ nowMs, businessId: BID, deadline: Date.now() + 30_000 })),
          );
          reported.push(result.erased);
          if (result.complete) return;
        } catch (error) {
          expect(error).toBeInstanceOf(RetentionFailed);
          reported.push((error as RetentionFailed).erased);
        }
      }
      throw new Error(`retention did not complete in 5 runs: ${JSON.stringify(reported)}`);
    };
    let witnessed: number;
    try {
      // A run that fails part-way (after its first batch every record read is refused) still says what it erased.
      proxy.setModes(FAULTS);
      const failed: unknown = await asRetentionJob(() =>
        runWithDeadline(60_000, () =>
          runRetention({
            nowMs: firstDay,
            businessId: BID,
            batchSize: 4,
            onProgress: () => proxy.setModes(READS_LOST),
          }),
        ),
      ).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(RetentionFailed);
      expect((failed as RetentionFailed).erased).toBe(4);
      reported.push(4);
      proxy.setModes(FAULTS);
      await runUntilComplete(firstDay);
      // The faults really happened.
      expect(proxy.stats.faults.applyThenFail ?? 0).toBeGreaterThanOrEqual(3);
      expect(proxy.stats.faults.throttle ?? 0).toBeGreaterThanOrEqual(1);
      expect(
        (proxy.stats.faults.dropBeforeForward ?? 0) + (proxy.stats.faults.dropAfterForward ?? 0),
      ).toBeGreaterThanOrEqual(1);
      // What the runs reported is what they erased: none counted twice, none left out.
      expect(reported.reduce((n, e) => n + e, 0)).toBe(FIRST);

      proxy.resetStats();
      proxy.setModes(ANSWERS_LOST);
      await runUntilComplete(nextDay);
      expect(proxy.stats.faults.applyThenFail).toBeGreaterThanOrEqual(DUE - FIRST);
      witnessed = proxy.stats.requests.GetItem ?? 0;
    } finally {
      proxy.setModes({});
      await proxy.restore();
    }
    // Each of those erasures was found applied by its witness read, and counted once.
    expect(witnessed).toBeGreaterThanOrEqual(DUE - FIRST);
    expect(reported.reduce((n, e) => n + e, 0)).toBe(DUE);

    for (const a of due) expect((await call('GET', `/applications/${a.id}`)).status).toBe(404);
    for (const [i, a] of kept.entries())
      expect((await call('GET', `/applications/${a.id}`)).body).toEqual(keptBefore[i]);
    const list = await call('GET', '/applications?per_page=100');
    expect(list.body.total_entries).toBe(KEPT);
    expect((list.body.entries as { id: string }[]).map((e) => e.id).sort()).toEqual(kept.map((a) => a.id).sort());
    const feed = (await call('GET', '/changes?limit=100')).body.entries as {
      type: string;
      id: string;
      data: unknown;
    }[];
    const deleted = feed.filter((e) => e.type === 'application.deleted').map((e) => e.id);
    expect(deleted.sort()).toEqual(due.map((a) => a.id).sort());
    // Earlier entries of the erased are redacted; those of the kept still carry their data.
    for (const e of feed) expect(e.data === null).toBe(due.some((a) => a.id === e.id));
    const traces = due.map((_, i) => secret(i)).concat(due.map((_, i) => `faulty${i}@`));
    expect((await scanAll()).filter((item) => traces.some((t) => JSON.stringify(item).includes(t)))).toEqual([]);
    // A run after: nothing left, nothing of the kept ones erased.
    expect(await runRetention({ nowMs: nextDay, businessId: BID })).toEqual({ erased: 0, complete: true });
  }, 120_000);

  it('the scheduled job logs the runbook line at ERROR when a run fails, and fails the invocation', async () => {
    const { failure, logged } = await runFailingJob(retentionJob, 20261128);
    expect(failure).toBeInstanceOf(Error);
    expect(logged.filter((l) => l.message === 'retention run')).toEqual([
      expect.objectContaining({ level: 'ERROR', erased: 0 }),
    ]);
  }, 60_000);

  it('the admin command prints what a failed run erased, exits 1, and its re-run finishes', async () => {
    // A business of its own, one batch and a part due; after the first batch's progress line every record read is
    // lost, as the service-level case above does with its onProgress.
    const OWN = 'adminfail';
    const count = BATCH_SIZE + 5;
    await api.provision(fixture(OWN, 30));
    const config = configOf(await getItem(keys.business(OWN)))!;
    const at = (i: number) => new Date(Date.parse('2025-01-01T00:00:00.000Z') + i * 60_000).toISOString();
    await batchPut(
      seedItems(
        OWN,
        config,
        Array.from({ length: count }, (_, i) =>
          storedApplication({
            id: `af-${i}`,
            first_name: 'Fail',
            last_name: `${i}`,
            email: `af${i}@example.com`,
            created_at: at(i),
          }),
        ),
      ),
    );
    const command = { nowMs: Date.parse(at(count)) + 31 * DAY, businessId: OWN };
    const proxy = await proxyTheApi({}, seededRandom(20261127));
    let out = '';
    let err = '';
    let code: number;
    try {
      code = await retentionCommand(command, {
        out: { write: (t: string) => (out += t) },
        err: {
          isTTY: false,
          write: (t: string) => {
            if (t.startsWith('retention: business')) proxy.setModes(READS_LOST);
            return (err += t);
          },
        },
      });
      expect(proxy.stats.faults.dropBeforeForward ?? 0).toBeGreaterThanOrEqual(1);
    } finally {
      proxy.setModes({});
      await proxy.restore();
    }
    expect(code).toBe(1);
    expect(erasedBy({ stdout: out })).toEqual({ erased: BATCH_SIZE });
    expect(err).toMatch(/run it again to resume\n$/);
    const again = await admin('retention', 'run', '--now', new Date(command.nowMs).toISOString(), '--business', OWN);
    expect(again.code).toBe(0);
    expect(erasedBy(again)).toEqual({ erased: count - BATCH_SIZE });
    // Off a terminal, one progress line per batch: the last batch, then the walk's end, are not the same line twice.
    expect(again.stderr.split('\n').filter((line) => line.startsWith('retention: business'))).toEqual([
      `retention: business 1/1 ${OWN}: ${count - BATCH_SIZE} examined, ${count - BATCH_SIZE} erased in this run`,
    ]);
  }, 60_000);
});

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON */
import demo from '../../fixtures/demo.json';
import { API, startApi, type TestApi } from '../support/harness';
import { objectCreatedEvent, uploadAs } from '../support/attachment-upload';
import {
  AMBIGUOUS_FAULTS,
  proxyTheApi,
  seededRandom,
  type DynamoProxy,
  type FaultModes,
} from '../support/dynamo-proxy';
import { handler as runImportFunction } from '../../functions/run-import';
import { runImport, watchImports } from '../../src/services/import-run';
import { IMPORT_STALL_MS } from '../../src/domain/imports';
import { inCallScope } from '../../src/data/dynamo/call-scope';
import { createToken } from '../../src/data/token-store';
import { uploadBytes, uploadSize } from '../../src/data/s3/import-objects';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { keys } from '../../src/data/dynamo/keys';
import { importJob } from '../../src/data/entities/import-job';

/**
 * Contract §22 over HTTP and the local S3: POST /imports with its presigned
 * upload, the run on the upload's object-created event, GET and the list,
 * cancel and 409, whole-file failures, the results file, the feed, and runs
 * that stop anywhere (a time limit, a crash, DynamoDB faults) resumed with
 * every row applied exactly once.
 */
jest.setTimeout(120_000);

const BUSINESS = 'imports';
let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: BUSINESS } });
});
afterAll(() => api.close());

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, t = token) =>
  api.request(method, `${API}${path}`, { token: t, headers, ...(body !== undefined ? { body } : {}) });

/** POST /imports for `file`, its upload as a client makes it, and the run the upload's event starts. */
async function importFile(
  file: string | Buffer,
  options: { type?: string; format?: string; mode?: string; size?: number; language?: string; run?: boolean } = {},
) {
  const bytes = Buffer.isBuffer(file) ? file : Buffer.from(file);
  const created = await send(
    'POST',
    '/imports',
    {
      type: options.type ?? 'employees',
      format: options.format ?? 'csv',
      mode: options.mode ?? 'apply',
      size: options.size ?? bytes.length,
    },
    options.language ? { 'accept-language': options.language } : {},
  );
  expect(created.status).toBe(201);
  expect(await uploadAs(created.body.upload, bytes)).toBe(204);
  if (options.run !== false) await runImportFunction(objectCreatedEvent(created.body.upload.fields.key, bytes.length));
  return created;
}

const show = async (id: string) => (await send('GET', `/imports/${id}`)).body;
const results = async (url: string) =>
  (await (await fetch(url)).text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('an import from POST to results (contract §22)', () => {
  let feedStart: string;
  beforeAll(async () => {
    feedStart = (await send('GET', '/changes?limit=1')).body.next_cursor;
  });

  it('answers a presigned upload; one import at a time (409 naming it); cancel while awaiting the upload', async () => {
    const first = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      type: 'employees',
      format: 'csv',
      mode: 'apply',
      status: 'awaiting_upload',
      upload: { method: 'POST', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/), fields: expect.any(Object) },
    });
    expect(first.headers.get('location')).toBe(`${API}/imports/${first.body.id}`);
    const second = await send(
      'POST',
      '/imports',
      { type: 'applications', format: 'jsonl', size: 10 },
      {
        'accept-language': 'de',
      },
    );
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('import_in_progress');
    expect(second.body.message).toContain(first.body.id);
    expect(await send('DELETE', `/imports/${first.body.id}`)).toMatchObject({ status: 204 });
    expect(await show(first.body.id)).toMatchObject({ status: 'cancelled', results_url: null });
    expect((await send('DELETE', `/imports/${first.body.id}`)).body.error).toBe('import_finished');
    expect((await send('GET', '/imports/0000000001-0000000000000000')).status).toBe(404);
  });

  it('an upload not made within 24 hours: the next POST ends that import as failed, with its import.failed entry', async () => {
    const stale = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
    // Created a day and an hour ago.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.importJob(BUSINESS, stale.body.id),
        UpdateExpression: 'SET created_at = :t',
        ExpressionAttributeValues: { ':t': new Date(Date.now() - 25 * 3600_000).toISOString() },
      }),
    );
    const next = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
    expect(next.status).toBe(201);
    expect(await show(stale.body.id)).toMatchObject({ status: 'failed', failure_reason: 'upload_expired' });
    const entries = (await send('GET', '/changes?limit=500&types=import.failed')).body.entries as any[];
    expect(entries.filter((e) => e.id === stale.body.id).map((e) => e.data)).toEqual([
      expect.objectContaining({ id: stale.body.id, status: 'failed', failure_reason: 'upload_expired' }),
    ]);
    expect(await send('DELETE', `/imports/${next.body.id}`)).toMatchObject({ status: 204 });
  });

  it('the type decides the scope: an applications token may not import employees', async () => {
    const apps = (await createToken(BUSINESS, { scopes: ['applications:write', 'applications:read'] })).token;
    const refused = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 }, {}, apps);
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 403, error: 'insufficient_scope' });
    const bad = await send('POST', '/imports', { type: 'people', format: 'xlsx', size: 0 });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body).sort()).toEqual(['format', 'size', 'type']);
  });

  it('applies a CSV as people export it, reports every row in the import language, and ends completed', async () => {
    const file = [
      '\ufeffexternal_id;first_name;last_name;employee_number;birthday',
      'hr-1;Anna;"Huber; Jr.";I-1;1990-01-02',
      'hr-2;;Moser;I-2;',
      '',
      'hr-3;"Karl',
      'Otto";Gruber;I-1;',
    ].join('\r\n');
    const created = await importFile(file, { language: 'it' });
    const shown = await show(created.body.id);
    expect(shown).toMatchObject({
      status: 'completed',
      counts: { rows: 3, created: 1, updated: 0, unchanged: 0, skipped: 0, failed: 2 },
    });
    const lines = await results(shown.results_url);
    expect(lines).toEqual([
      { row: 1, external_id: 'hr-1', result: 'created', id: expect.any(String), errors: null },
      {
        row: 2,
        external_id: 'hr-2',
        result: 'failed',
        id: null,
        errors: { first_name: ['non può essere lasciato in bianco'] },
      },
      { row: 3, external_id: 'hr-3', result: 'failed', id: null, errors: { employee_number: ['è già presente'] } },
    ]);
    // No field values in the results; the upload is gone.
    expect(JSON.stringify(lines)).not.toContain('Huber');
    expect(await uploadSize(BUSINESS, created.body.id)).toBeUndefined();
    const anna = (await send('GET', `/employees/${lines[0].id}`)).body;
    expect(anna).toMatchObject({ last_name: 'Huber; Jr.', birthday: '1990-01-02' });

    // The feed: the employee's entry made by the import on behalf of the POST, then import.completed.
    const feed = (await send('GET', `/changes?after=${feedStart}&limit=100`)).body.entries as any[];
    const mine = feed.filter((e) => e.actor.type === 'import' && e.actor.import_id === created.body.id);
    expect(mine.map((e) => e.type)).toEqual(['employee.created', 'import.completed']);
    for (const e of mine) expect(e.request_id).toBe(created.headers.get('x-request-id'));
    expect(mine[1].data).toMatchObject({ id: created.body.id, status: 'completed', counts: shown.counts });

    // Newest first.
    const list = (await send('GET', '/imports?per_page=2')).body;
    expect(list.entries[0].id).toBe(created.body.id);
    expect(list.entries[0].results_url).toEqual(expect.any(String));
    expect(list.total_entries).toBeGreaterThanOrEqual(2);
    // A token of the other type lists it too (the same total), but not where its results are: they name employees.
    const apps = (await createToken(BUSINESS, { scopes: ['applications:read'] })).token;
    const theirs = (await send('GET', '/imports?per_page=2', undefined, {}, apps)).body;
    expect(theirs.total_entries).toBe(list.total_entries);
    expect(theirs.entries[0]).toEqual({ ...list.entries[0], results_url: null });
    expect((await send('GET', `/imports/${created.body.id}`, undefined, {}, apps)).status).toBe(403);
  });

  it('a re-run of a file with external ids changes only what changed; validate writes nothing', async () => {
    const file =
      '{"external_id":"hr-1","first_name":"Anna","last_name":"Huber"}\n{"external_id":"hr-9","first_name":"Neu","last_name":"Person"}\n';
    const validated = await show((await importFile(file, { format: 'jsonl', mode: 'validate' })).body.id);
    expect(validated.counts).toMatchObject({ rows: 2, created: 1, updated: 1 });
    expect((await results(validated.results_url)).map((l: any) => [l.result, l.id === null])).toEqual([
      ['updated', false],
      ['created', true],
    ]);
    const applied = await show((await importFile(file, { format: 'jsonl' })).body.id);
    expect(applied.counts).toMatchObject({ rows: 2, created: 1, updated: 1 });
    const again = await show((await importFile(file, { format: 'jsonl' })).body.id);
    expect(again.counts).toMatchObject({ rows: 2, unchanged: 2 });
    // An update of employee_number frees the number it replaces; a job names its supervisor: as their requests.
    const renumbered = await show(
      (
        await importFile(
          '{"external_id":"hr-9","employee_number":"N-9"}\n{"external_id":"hr-9","employee_number":"N-10"}\n{"first_name":"Nina","last_name":"Neu","employee_number":"N-9"}\n',
          { format: 'jsonl' },
        )
      ).body.id,
    );
    expect(renumbered.counts).toMatchObject({ rows: 3, updated: 2, created: 1 });
    const [anna] = await results(applied.results_url);
    const job = await show(
      (
        await importFile(
          `employee_external_id,name,from,time_table,time_percentage,supervisor_id\nhr-9,Cook,2026-01-01,"[8,8,8,8,8,0,0]",100,${anna.id}\nhr-9,Cook,2026-01-01,"[8,8,8,8,8,0,0]",100,nobody\n`,
          { type: 'employee_jobs' },
        )
      ).body.id,
    );
    expect(job.counts).toMatchObject({ rows: 2, created: 1, failed: 1 });
    expect((await results(job.results_url))[1].errors).toEqual({ supervisor_id: ['does not exist'] });
  });

  it.each([
    ['size_mismatch', 'first_name,last_name\nA,B\n', { size: 5 }],
    ['not_utf8', Buffer.from([0x61, 0x0a, 0xff]), {}],
    ['malformed_file', 'first_name,last_name\n"A,B\n', {}],
  ])('a whole-file failure (%s) writes nothing', async (reason, file, extra) => {
    const before = (await send('GET', '/employees')).body.total_entries;
    const created = await importFile(file, extra);
    expect(await show(created.body.id)).toMatchObject({ status: 'failed', failure_reason: reason, results_url: null });
    expect((await send('GET', '/employees')).body.total_entries).toBe(before);
    expect(await uploadSize(BUSINESS, created.body.id)).toBeUndefined();
  });
});

describe('every import ends (contract §22): failures name their reason, no import stays running', () => {
  it('a CSV with a quote inside an unquoted cell fails as malformed_file at its row, and the next import starts', async () => {
    const created = await importFile('first_name,last_name\nAnna,Huber\nAnna,O"Brien\n');
    expect(await show(created.body.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'malformed_file',
      failure_row: 2,
      results_url: null,
    });
    const next = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
    expect(next.status).toBe(201);
    expect(await send('DELETE', `/imports/${next.body.id}`)).toMatchObject({ status: 204 });
  });

  it('results hold no value: an invalid external_id (a formula, 800 KB) is null with its message; a broken line fails alone', async () => {
    const file = [
      JSON.stringify({ external_id: "=cmd|' /C calc'!A0", first_name: 'Eva', last_name: 'Formel' }),
      JSON.stringify({ external_id: 'x'.repeat(800_000), first_name: 'Lang', last_name: 'Id' }),
      '{"first_name": "Kaputt",',
      JSON.stringify({ external_id: 'ok-1', first_name: 'Gut', last_name: 'Zeile' }),
    ].join('\n');
    const created = await importFile(file, { format: 'jsonl', language: 'de' });
    const shown = await show(created.body.id);
    expect(shown).toMatchObject({ status: 'completed', counts: { rows: 4, created: 1, failed: 3 } });
    const lines = await results(shown.results_url);
    expect(lines).toEqual([
      { row: 1, external_id: null, result: 'failed', id: null, errors: { external_id: ['ist nicht gültig'] } },
      { row: 2, external_id: null, result: 'failed', id: null, errors: { external_id: ['ist nicht gültig'] } },
      { row: 3, external_id: null, result: 'failed', id: null, errors: { row: ['ist nicht gültig'] } },
      { row: 4, external_id: 'ok-1', result: 'created', id: expect.any(String), errors: null },
    ]);
    const text = JSON.stringify(lines);
    for (const value of ['calc', 'Formel', 'xxxx', 'Kaputt']) expect(text).not.toContain(value);
  });

  it('an upload that lands after its import ended is deleted when it lands', async () => {
    const file = 'first_name,last_name\nLate,Upload\n';
    const created = await importFile(file);
    expect(await show(created.body.id)).toMatchObject({ status: 'completed' });
    // The form is still valid: the same file again, after the end.
    expect(await uploadAs(created.body.upload, Buffer.from(file))).toBe(204);
    expect(await uploadSize(BUSINESS, created.body.id)).toBe(file.length);
    await runImportFunction(objectCreatedEvent(created.body.upload.fields.key, file.length));
    expect(await uploadSize(BUSINESS, created.body.id)).toBeUndefined();
    expect(await show(created.body.id)).toMatchObject({ status: 'completed', counts: { rows: 1, created: 1 } });
  });

  it('a re-upload during the file check: the read that stalls fails, and the run tried again ends the import', async () => {
    // One row, then blank lines: more than the socket buffers between the S3 server and this reader hold.
    const file = Buffer.from(`first_name,last_name\nRe,Upload\n${'\n'.repeat(8_000_000)}`);
    const created = await importFile(file, { run: false });
    const { id } = created.body;
    // The check's read has its first bytes when the same form uploads a smaller file.
    const read = uploadBytes(BUSINESS, id, 1000);
    expect((await read.next()).done).toBe(false);
    expect(await uploadAs(created.body.upload, Buffer.from('first_name,last_name\nRo,Upload\n'))).toBe(204);
    // The local S3 server rewrote the file under the read: its answer stops short, the socket open. The read fails.
    await expect(
      (async () => {
        for await (const chunk of read) void chunk;
      })(),
    ).rejects.toThrow(/no bytes/);
    // The run the new upload's event starts ends the import: the file there is now is not the declared size.
    await runImportFunction(objectCreatedEvent(created.body.upload.fields.key, 30));
    expect(await show(id)).toMatchObject({ status: 'failed', failure_reason: 'size_mismatch' });
  });

  it('the watchdog ends an import whose progress stopped for longer than a run may take, and only such', async () => {
    const total = (await send('GET', '/employees')).body.total_entries;
    const created = await importFile('external_id,first_name,last_name\nw-1,Wach,Hund\nw-2,Wach,Hund\n', {
      run: false,
    });
    const { id } = created.body;
    // A run that applied the first row and then died (no error reaches anybody, no lease renewed).
    let rows = 0;
    await expect(
      inCallScope('run-import', () =>
        runImport(BUSINESS, id, {
          timeLeftMs: () => {
            if (++rows > 1) throw new Error('killed');
            return Infinity;
          },
        }),
      ),
    ).rejects.toThrow('killed');
    expect(await show(id)).toMatchObject({ status: 'running' });
    const blocked = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
    expect(blocked.body.error).toBe('import_in_progress');
    // Within a run's timeout plus the margin: left alone.
    expect(await inCallScope('run-import', () => watchImports(Date.now() + IMPORT_STALL_MS - 60_000))).toEqual([]);
    expect(await show(id)).toMatchObject({ status: 'running' });
    const ended = await inCallScope('run-import', () => watchImports(Date.now() + IMPORT_STALL_MS + 1000));
    expect(ended).toContainEqual({ businessId: BUSINESS, id, reason: 'run_failed' });
    const shown = await show(id);
    expect(shown).toMatchObject({ status: 'failed', failure_reason: 'run_failed', results_url: null });
    // The rows applied before stay, counted.
    expect(shown.counts.created).toBeGreaterThan(0);
    expect(shown.counts.rows).toBe(shown.counts.created);
    expect((await send('GET', '/employees')).body.total_entries).toBe(total + shown.counts.created);
    const entries = (await send('GET', '/changes?limit=500&types=import.failed')).body.entries as any[];
    expect(entries.filter((e) => e.id === id).map((e) => e.data.failure_reason)).toEqual(['run_failed']);
    expect(await uploadSize(BUSINESS, id)).toBeUndefined();
    // The next import starts; a later round finds nothing to end.
    const next = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
    expect(next.status).toBe(201);
    expect(await inCallScope('run-import', () => watchImports(Date.now() + 60_000))).toEqual([]);
    expect(await send('DELETE', `/imports/${next.body.id}`)).toMatchObject({ status: 204 });
  });
});

describe('runs that stop anywhere are resumed, every row applied exactly once', () => {
  const ROWS = 24;
  const file = (prefix: string) =>
    ['external_id,first_name,last_name', ...Array.from({ length: ROWS }, (_, i) => `${prefix}-${i},F${i},L${i}`)].join(
      '\n',
    );

  async function expectExactlyOnce(id: string, prefix: string, total: number) {
    const shown = await show(id);
    expect(shown).toMatchObject({ status: 'completed', counts: { rows: ROWS, created: ROWS, failed: 0 } });
    const lines = await results(shown.results_url);
    expect(lines.map((l: any) => l.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(new Set(lines.map((l: any) => l.id)).size).toBe(ROWS);
    expect(lines.map((l: any) => l.external_id)).toEqual(Array.from({ length: ROWS }, (_, i) => `${prefix}-${i}`));
    expect((await send('GET', '/employees')).body.total_entries).toBe(total + ROWS);
    // Every page of the feed (a page holds at most 100 entries), until one comes back empty.
    const created: string[] = [];
    for (let after = ''; ;) {
      const page = (await send('GET', `/changes?limit=100&types=employee.created${after && `&after=${after}`}`)).body;
      const entries = page.entries as any[];
      if (entries.length === 0) break;
      created.push(...entries.filter((e) => e.actor.import_id === id).map((e) => e.data.first_name));
      after = encodeURIComponent(page.next_cursor);
    }
    expect(created.sort()).toEqual(Array.from({ length: ROWS }, (_, i) => `F${i}`).sort());
  }

  it('a run that reaches its time limit, and one that crashes without its last checkpoint', async () => {
    const total = (await send('GET', '/employees')).body.total_entries;
    const created = await importFile(file('t'), { run: false });
    const { id } = created.body;
    // First run: "out of time" after 5 rows (checkpoint stored, paused).
    let rows = 0;
    const paused = await inCallScope('run-import', () =>
      runImport(BUSINESS, id, { timeLeftMs: () => (++rows > 5 ? 0 : Infinity) }),
    );
    expect(paused.outcome).toBe('paused');
    expect((await show(id)).counts.rows).toBe(6);
    // Second run: crashes after 8 more rows, before any checkpoint (results stored, progress not).
    rows = 0;
    await expect(
      inCallScope('run-import', () =>
        runImport(BUSINESS, id, {
          timeLeftMs: () => {
            if (++rows > 8) throw new Error('crash');
            return Infinity;
          },
        }),
      ),
    ).rejects.toThrow('crash');
    expect((await show(id)).counts.rows).toBe(6);
    // The next run (as the event's retry would start it) finishes, applying no row twice.
    expect((await inCallScope('run-import', () => runImport(BUSINESS, id))).outcome).toBe('finished');
    await expectExactlyOnce(id, 't', total);
  });

  describe('under DynamoDB faults', () => {
    let proxy: DynamoProxy & { restore(): Promise<void> };
    beforeAll(async () => {
      proxy = await proxyTheApi({}, seededRandom(20261127));
    });
    afterAll(() => proxy.restore());

    /** AMBIGUOUS_FAULTS with more writes applied and then failed (for a file of few writes). */
    const HARDER_FAULTS = { ...AMBIGUOUS_FAULTS, applyThenFail: 0.5 };

    /**
     * Runs the import under `faults` until one run finishes, as the function's retries would. A run that fails under the
     * faults gives its lease back, but that release can fail too; the next invocation then waits the lease out
     * (LEASE_MS, a minute). Runs here follow each other, so a lease left after one ended is a dead run's: it is let
     * go at once (faults paused for that write), instead of spending the attempts idle.
     */
    async function runUntilFinished(id: string, faults: FaultModes = AMBIGUOUS_FAULTS): Promise<void> {
      for (let attempt = 0; attempt < 40; attempt++) {
        const outcome = await inCallScope('run-import', () => runImport(BUSINESS, id)).catch(() => undefined);
        if (outcome?.outcome === 'finished') return;
        proxy.setModes({});
        await db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.importJob(BUSINESS, id),
            UpdateExpression: 'SET #until = :past',
            ExpressionAttributeNames: { '#until': importJob.leaseAttributes.until },
            ExpressionAttributeValues: { ':past': 0 },
          }),
        );
        proxy.setModes(faults);
      }
    }

    it('ambiguous writes, throttles and dropped connections: runs retried until done', async () => {
      const total = (await send('GET', '/employees')).body.total_entries;
      const created = await importFile(file('f'), { run: false });
      proxy.resetStats();
      // The import sends about ten writes (two chunks): at AMBIGUOUS_FAULTS' 0.3 none is applied and then failed in
      // about 3 % of runs, and then nothing ambiguous was tested; at 0.5, in about 0.1 %.
      proxy.setModes(HARDER_FAULTS);
      try {
        await runUntilFinished(created.body.id, HARDER_FAULTS);
      } finally {
        proxy.setModes({});
      }
      expect(proxy.stats.faults.applyThenFail).toBeGreaterThan(0);
      await expectExactlyOnce(created.body.id, 'f', total);
    });

    it('a chunk transaction applied but answered 500, then a crash before the checkpoint: neither lost nor doubled', async () => {
      const total = (await send('GET', '/employees')).body.total_entries;
      const created = await importFile(file('a'), { run: false });
      proxy.resetStats();
      // The one transaction of the 24 new employees is applied and answered 500, its re-sends too.
      proxy.setModes({ applyThenFail: 1, operations: ['TransactWriteItems'] });
      try {
        await expect(
          inCallScope('run-import', () =>
            runImport(BUSINESS, created.body.id, {
              timeLeftMs: () => {
                throw new Error('crash after the chunk');
              },
            }),
          ),
        ).rejects.toThrow('crash after the chunk');
      } finally {
        proxy.setModes({});
      }
      expect(proxy.stats.faults.applyThenFail).toBeGreaterThan(0);
      expect((await show(created.body.id)).counts.rows).toBe(0);
      expect((await inCallScope('run-import', () => runImport(BUSINESS, created.body.id))).outcome).toBe('finished');
      await expectExactlyOnce(created.body.id, 'a', total);
    });

    it('job rows in chunks: one applied but answered 500 and a crash, then runs under faults: each job once', async () => {
      // Jobs of the employees of the first run above (t-0..t-4), five each, so one employee's jobs straddle chunks.
      const jobFile = [
        'external_id,employee_external_id,name,from',
        ...Array.from({ length: ROWS }, (_, i) => `job-${i},t-${Math.floor(i / 5)},Job ${i},${2000 + i}-01-01`),
      ].join('\n');
      const jobsBefore = (await send('GET', '/employee_jobs')).body.total_entries;
      const created = await importFile(jobFile, { type: 'employee_jobs', run: false });
      const { id } = created.body;
      proxy.setModes({ applyThenFail: 1, operations: ['TransactWriteItems'] });
      try {
        await expect(
          inCallScope('run-import', () =>
            runImport(BUSINESS, id, {
              timeLeftMs: () => {
                throw new Error('crash after the chunk');
              },
            }),
          ),
        ).rejects.toThrow('crash after the chunk');
        proxy.setModes(AMBIGUOUS_FAULTS);
        await runUntilFinished(id);
      } finally {
        proxy.setModes({});
      }
      const shown = await show(id);
      expect(shown).toMatchObject({ status: 'completed', counts: { rows: ROWS, created: ROWS, failed: 0 } });
      const lines = await results(shown.results_url);
      expect(new Set(lines.map((l: any) => l.id)).size).toBe(ROWS);
      expect((await send('GET', '/employee_jobs')).body.total_entries).toBe(jobsBefore + ROWS);
      // Each employee's own list is dense and holds its jobs once, in row order.
      for (let n = 0; n < ROWS / 5; n++) {
        const employee = (await send('GET', `/employee_jobs/${lines[n * 5].id}`)).body.employee_id;
        const own = (await send('GET', `/employee_jobs?employee_id=${employee}`)).body;
        expect(own.entries.map((j: any) => j.name)).toEqual(
          Array.from({ length: ROWS }, (_, i) => `Job ${i}`).filter((_, i) => Math.floor(i / 5) === n),
        );
        expect(own.total_entries).toBe(own.entries.length);
      }
      // Every external id was kept: the same file again is all skipped.
      expect((await show((await importFile(jobFile, { type: 'employee_jobs' })).body.id)).counts).toMatchObject({
        rows: ROWS,
        skipped: ROWS,
      });
    });

    it('a run that keeps failing is tried again, then the import ends as run_failed with what it applied', async () => {
      const total = (await send('GET', '/employees')).body.total_entries;
      const created = await importFile(file('r'), { run: false });
      // Every run commits its chunk, then cannot keep its external ids: it fails, each time.
      proxy.setModes({ throttle: 1, operations: ['BatchWriteItem'] });
      try {
        await runImportFunction(objectCreatedEvent(created.body.upload.fields.key, 1));
      } finally {
        proxy.setModes({});
      }
      const shown = await show(created.body.id);
      expect(shown).toMatchObject({ status: 'failed', failure_reason: 'run_failed' });
      // Its first chunk was committed: those rows stay, counted.
      expect(shown.counts.created).toBeGreaterThan(0);
      expect(shown.counts.rows).toBe(shown.counts.created);
      expect((await send('GET', '/employees')).body.total_entries).toBe(total + shown.counts.created);
      expect(await uploadSize(BUSINESS, created.body.id)).toBeUndefined();
      // The next import starts.
      const next = await send('POST', '/imports', { type: 'employees', format: 'csv', size: 10 });
      expect(next.status).toBe(201);
      expect(await send('DELETE', `/imports/${next.body.id}`)).toMatchObject({ status: 204 });
    });

    it('a chunk committed, then the run stops before its external ids are kept: the next run keeps them', async () => {
      const total = (await send('GET', '/employees')).body.total_entries;
      const created = await importFile(file('k'), { run: false });
      // The chunk's transaction commits; the BatchWriteItem keeping its external ids after it is refused.
      proxy.setModes({ throttle: 1, operations: ['BatchWriteItem'] });
      try {
        await expect(inCallScope('run-import', () => runImport(BUSINESS, created.body.id))).rejects.toThrow();
      } finally {
        proxy.setModes({});
      }
      expect((await show(created.body.id)).counts.rows).toBe(0);
      expect((await inCallScope('run-import', () => runImport(BUSINESS, created.body.id))).outcome).toBe('finished');
      expect(await show(created.body.id)).toMatchObject({ status: 'completed', counts: { rows: ROWS, created: ROWS } });
      expect((await send('GET', '/employees')).body.total_entries).toBe(total + ROWS);
      // Each external id names its record: the same file again changes nothing.
      expect((await show((await importFile(file('k'))).body.id)).counts).toMatchObject({ rows: ROWS, unchanged: ROWS });
    });
  });
});

/**
 * `LOAD_SCENARIO=import npm run load` (issue 54 item 5, contract §22): one
 * business imports the largest file the contract allows while another sends
 * its normal traffic, served by one process as `npm start` serves them: the
 * API, the local S3 server (its gate and s3rver) and the import's run on the
 * upload's object-created event. The quiet business sends QUIET_PER_SECOND
 * requests a second in an open loop (reads, list pages, updates: the
 * isolation scenario's mix) before the import, while the file is uploaded
 * through the presigned form, while the run reads and applies it, and after
 * it; its p50 and p99 in each phase and their ratios to the baseline (before
 * and after together; goal: p50 during the import <= 1.5x), its errors, the
 * event loop's lateness, and the import's durations and end.
 * The upload is made by curl in a process of its own (the client's CPU is
 * not the server's); the file is written to a private temporary folder
 * first, before the baseline.
 *   LOAD_IMPORT_FILE: rows (default; LOAD_IMPORT_ROWS valid employee rows,
 *     default 200,000, padded to LOAD_IMPORT_BYTES in all) or no-breaks (a
 *     CSV of LOAD_IMPORT_BYTES without a line break: the reader stops at
 *     1 MiB, malformed_file);
 *   LOAD_IMPORT_BYTES (default 100,000,000; at most 104,857,600);
 *   LOAD_IMPORT_MODE: validate (default) or apply;
 *   LOAD_IMPORT_IDLE_SECONDS (default 15): the baseline, and the time after;
 *   IMPORT_RUN_SHARE (default as `npm start`: LOCAL_IMPORT_RUN_SHARE; 1: the run takes all it can).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, writeSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../../src/domain/imports';
import { handler as runImportFunction } from '../../functions/run-import';
import { ensureBucket, DEFAULT_LOCAL_BUCKET, startS3Local, type RunningS3 } from './s3-local';
import { LOCAL_IMPORT_RUN_SHARE } from './environment';
import { pct, provision, quietMixOf, type Sample } from './load-isolation';

const API = '/services/api/v1';
/** The quiet business's normal traffic, as in the isolation scenario. */
const QUIET_PER_SECOND = 30;
const GOAL = 1.5;

interface Timed extends Sample {
  /** When the request was sent, ms after the scenario's start. */
  readonly at: number;
}

/** Requests at a steady rate until stopped, not waiting for answers (an open loop); each with its start time. */
function openLoop(
  perSecond: number,
  origin: number,
  send: (i: number) => Promise<Sample>,
): { stop: () => Promise<Timed[]> } {
  const sent: Promise<Timed>[] = [];
  let stopped = false;
  const start = performance.now();
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const wait = start + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const at = performance.now() - origin;
      sent.push(
        send(i).then(
          (s) => ({ ...s, at }),
          () => ({ status: 0, ms: performance.now() - origin - at, at }),
        ),
      );
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return Promise.all(sent);
    },
  };
}

/** The file: valid employee rows padded to `bytes` in all, or one CSV line of `bytes` that never ends. */
function writeFile(path: string, kind: 'rows' | 'no-breaks', bytes: number, rows: number): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    if (kind === 'no-breaks') {
      const head = 'first_name,last_name,';
      writeSync(fd, head);
      const chunk = Buffer.alloc(1 << 20, 'x');
      for (let left = bytes - head.length; left > 0; left -= chunk.length)
        writeSync(fd, chunk, 0, Math.min(chunk.length, left));
      return;
    }
    const header = 'external_id,first_name,last_name,employee_number,email,street,birthplace,region\n';
    writeSync(fd, header);
    // Each row as long as the size allows (the padding in three text fields of at most 255 characters each).
    const rowBytes = Math.floor((bytes - header.length) / rows);
    let batch = '';
    for (let i = 0; i < rows; i++) {
      const base = `imp-${i},First${i},Last${i},IMP-${i},p${i}@example.com,`;
      const pad = Math.max(0, Math.min(3 * 255, rowBytes - base.length - 3));
      const third = Math.ceil(pad / 3);
      batch += `${base}${'s'.repeat(third)},${'b'.repeat(third)},${'r'.repeat(pad - 2 * third)}\n`;
      if (batch.length > 1 << 20) {
        writeSync(fd, batch);
        batch = '';
      }
    }
    writeSync(fd, batch);
  } finally {
    closeSync(fd);
  }
}

/** The local S3 server in this process, whose uploads to imports start their run here (as `npm start` does). */
async function startLocalS3(directory: string): Promise<{ s3: RunningS3; runs: Promise<void>[]; runStarts: number[] }> {
  const s3 = await startS3Local({ path: join(directory, 's3') });
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.ATTACHMENTS_BUCKET = DEFAULT_LOCAL_BUCKET;
  process.env.IMPORT_RUN_SHARE ??= LOCAL_IMPORT_RUN_SHARE;
  await ensureBucket(s3.endpoint, DEFAULT_LOCAL_BUCKET);
  const runs: Promise<void>[] = [];
  const runStarts: number[] = [];
  s3.onEvent((event) => {
    if (!event.Records.some((r) => r.eventName.startsWith('ObjectCreated'))) return;
    runStarts.push(performance.now());
    runs.push(runImportFunction(event).catch((error: unknown) => console.error('import run failed', error)));
  });
  return { s3, runs, runStarts };
}

/** The event loop's lateness in one phase, ms. */
interface LoopDelay {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** A phase of the run: the requests sent within one or more spans of it (ms after its start). */
interface Phase {
  readonly name: string;
  readonly spans: readonly (readonly [number, number])[];
}

export interface ImportIsolationResult {
  readonly file: { kind: string; bytes: number; rows: number; mode: string };
  readonly phases: { name: string; seconds: number; n: number; p50: number; p99: number; errors: number }[];
  readonly uploadStatus: string;
  readonly uploadSeconds: number;
  readonly runSeconds: number;
  readonly importEnd: { status: string; counts?: Record<string, number>; failure_reason?: string };
  readonly statuses: Record<number, number>;
  /** The event loop's lateness before, during and after the import. */
  readonly loopDelays: LoopDelay[];
  readonly problems: string[];
}

/** Runs the scenario against the local server at `url` (in this process: the import's run is started here). */
export async function runImportIsolation(url: string, fixture: object): Promise<ImportIsolationResult> {
  const kind = process.env.LOAD_IMPORT_FILE === 'no-breaks' ? 'no-breaks' : 'rows';
  const bytes = Number(process.env.LOAD_IMPORT_BYTES ?? 100_000_000);
  const rows = kind === 'rows' ? Number(process.env.LOAD_IMPORT_ROWS ?? MAX_IMPORT_ROWS) : 0;
  const mode = process.env.LOAD_IMPORT_MODE === 'apply' ? 'apply' : 'validate';
  const idle = Number(process.env.LOAD_IMPORT_IDLE_SECONDS ?? 15) * 1000;
  if (!(bytes > 0 && bytes <= MAX_IMPORT_BYTES)) throw new Error(`LOAD_IMPORT_BYTES: 1 to ${MAX_IMPORT_BYTES}`);
  const directory = mkdtempSync(join(tmpdir(), 'load-import-'));
  const { s3, runs, runStarts } = await startLocalS3(directory);
  try {
    const path = join(directory, 'import.csv');
    writeFile(path, kind, bytes, rows);
    const size = statSync(path).size;
    const high = { requests: 100_000, window_seconds: 10 };
    const [quiet = ''] = await provision(fixture, 'quiet', { token_rate_limit: high, rate_limit: high });
    const [importer = ''] = await provision(fixture, 'importer', { token_rate_limit: high, rate_limit: high });
    const quietMix = await quietMixOf(url, quiet);
    // Unmeasured: every route warm.
    for (let i = 0; i < 2 * QUIET_PER_SECOND; i++) await quietMix(i);

    // How long ready work waited for the event loop, per phase (a 1 ms timer's lateness; quantiles in ms).
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const loopDelays: LoopDelay[] = [];
    const noteDelay = (): void => {
      loopDelays.push({
        p50: delay.percentile(50) / 1e6,
        p99: delay.percentile(99) / 1e6,
        max: delay.max / 1e6,
      });
      delay.reset();
    };
    const origin = performance.now();
    const traffic = openLoop(QUIET_PER_SECOND, origin, quietMix);
    delay.enable();
    await new Promise((r) => setTimeout(r, idle));
    noteDelay();
    const createdRes = await fetch(`${url}${API}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${importer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'employees', format: 'csv', mode, size }),
    });
    const created = (await createdRes.json()) as {
      id: string;
      upload: { url: string; fields: Record<string, string> };
    };
    if (createdRes.status !== 201) throw new Error(`POST /imports answered ${createdRes.status}`);
    const uploadFrom = performance.now() - origin;
    const { stdout } = await promisify(execFile)('curl', [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      ...Object.entries(created.upload.fields).flatMap(([k, v]) => ['--form-string', `${k}=${v}`]),
      '-F',
      `file=@${path}`,
      created.upload.url,
    ]);
    const uploadTo = performance.now() - origin;
    // The run the upload's event started, to its end.
    while (runs.length === 0 && performance.now() - origin - uploadTo < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    await Promise.all(runs);
    noteDelay();
    const runFrom = (runStarts[0] ?? origin + uploadTo) - origin;
    const runTo = performance.now() - origin;
    await new Promise((r) => setTimeout(r, idle));
    noteDelay();
    delay.disable();
    const end = performance.now() - origin;
    const samples = await traffic.stop();
    const shown = await fetch(`${url}${API}/imports/${created.id}`, {
      headers: { authorization: `Bearer ${importer}` },
    });
    if (shown.status !== 200) throw new Error(`GET /imports/${created.id} answered ${shown.status}`);
    const importEnd = (await shown.json()) as ImportIsolationResult['importEnd'];

    // The baseline is the time before the import and after it together: what else the machine does in the
    // run falls on both alike (as in the isolation scenario).
    const phases: Phase[] = [
      {
        name: 'baseline',
        spans: [
          [0, uploadFrom],
          [runTo, end],
        ],
      },
      { name: 'during', spans: [[uploadFrom, runTo]] },
      { name: ' upload', spans: [[uploadFrom, Math.min(uploadTo, runFrom)]] },
      { name: ' run', spans: [[Math.min(uploadTo, runFrom), runTo]] },
      { name: ' before', spans: [[0, uploadFrom]] },
      { name: ' after', spans: [[runTo, end]] },
    ];
    const summaries = phases.map(({ name, spans }) => {
      const inPhase = samples.filter((s) => spans.some(([from, to]) => s.at >= from && s.at < to));
      const sorted = inPhase.map((s) => s.ms).sort((a, b) => a - b);
      return {
        name,
        seconds: spans.reduce((sum, [from, to]) => sum + to - from, 0) / 1000,
        n: inPhase.length,
        p50: pct(sorted, 0.5),
        p99: pct(sorted, 0.99),
        errors: inPhase.filter((s) => s.status === 0 || s.status >= 400).length,
      };
    });
    const statuses = samples.reduce<Record<number, number>>(
      (a, s) => ({ ...a, [s.status]: (a[s.status] ?? 0) + 1 }),
      {},
    );
    const [baseline, during] = summaries;
    const problems = [
      ...(stdout.trim() === '204' ? [] : [`the upload answered ${stdout.trim()}`]),
      ...(during && baseline && during.p50 > GOAL * baseline.p50
        ? [`the quiet business's p50 during the import is ${(during.p50 / baseline.p50).toFixed(2)}x its baseline`]
        : []),
      ...(samples.some((s) => s.status === 0 || s.status >= 400)
        ? [`the quiet business got errors: ${JSON.stringify(statuses)}`]
        : []),
    ];
    return {
      file: { kind, bytes: size, rows, mode },
      phases: summaries,
      uploadStatus: stdout.trim(),
      uploadSeconds: (uploadTo - uploadFrom) / 1000,
      runSeconds: (runTo - runFrom) / 1000,
      importEnd,
      statuses,
      loopDelays,
      problems,
    };
  } finally {
    // A read of an upload that the run stopped early (a file without line breaks) leaves the local S3 server's
    // close waiting for good; the process exits after the report.
    await Promise.race([s3.stop(), new Promise((r) => setTimeout(r, 3000).unref())]);
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The scenario's lines of the load test's report. */
export function importIsolationReport(r: ImportIsolationResult): string[] {
  const ms = (v: number): string => `${v.toFixed(0)} ms`;
  const [baseline] = r.phases;
  const ratio = (v: number, of: number): string => `${(v / Math.max(1, of)).toFixed(2)}x`;
  return [
    `import        quiet business ${QUIET_PER_SECOND} req/s; the other imports ${r.file.bytes.toLocaleString('en')} bytes (${
      r.file.kind === 'rows' ? `${r.file.rows.toLocaleString('en')} employee rows` : 'CSV without a line break'
    }, mode ${r.file.mode}; run share ${process.env.IMPORT_RUN_SHARE}) through the presigned form to the local S3 in this process`,
    ...r.phases.map(
      (p) =>
        `  quiet ${p.name.padEnd(9)} ${p.seconds.toFixed(1).padStart(6)} s ${String(p.n).padStart(5)} req  p50 ${ms(p.p50)}, p99 ${ms(p.p99)}` +
        (baseline && p !== baseline ? ` (p50 ${ratio(p.p50, baseline.p50)}, p99 ${ratio(p.p99, baseline.p99)})` : '') +
        `  errors ${p.errors}`,
    ),
    `  goal          p50 during the import <= ${GOAL}x the baseline`,
    `  import        upload ${r.uploadSeconds.toFixed(1)} s (${r.uploadStatus}), run ${r.runSeconds.toFixed(1)} s: ${JSON.stringify(r.importEnd.status)} ${JSON.stringify(r.importEnd.counts ?? {})}${r.importEnd.failure_reason ? ` ${r.importEnd.failure_reason}` : ''}`,
    `  event loop    lateness p50 / p99 / max: ${r.loopDelays
      .map(
        (d, i) =>
          `${['before', 'during', 'after'][i]} ${d.p50.toFixed(1)} / ${d.p99.toFixed(1)} / ${d.max.toFixed(0)} ms`,
      )
      .join(', ')}`,
    `  quiet statuses ${JSON.stringify(r.statuses)}`,
  ];
}

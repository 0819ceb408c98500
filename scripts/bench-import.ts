/**
 * `npm run bench` (import part, contract §22): employee rows through the
 * import's run, on an in-memory DynamoDB Local and the local S3 server, every
 * figure from this one run:
 * - apply and validate of N and 4N rows (N = BENCH_IMPORT_ROWS, default
 *   2,000): time, rows/s, CPU seconds of the import process and of DynamoDB
 *   Local's JVM (and per row), peak RSS of the import process (4N / N), its
 *   transactions; 100,000 rows applied extrapolated from 4N (measured when 4N
 *   is 100,000), validated measured (BENCH_IMPORT_VALIDATE_ROWS, default
 *   100,000);
 * - DynamoDB write units per imported row beside those of the same records
 *   created one by one through the API's service (createEmployee, without and
 *   with an Idempotency-Key), derived from the written items
 *   (scripts/lib/write-units.ts: DynamoDB Local counts a transaction as one
 *   item), its own ConsumedCapacity beside; and both again sized from the
 *   items read before and after each write (countTrueUnits: an Update's
 *   whole item, as DynamoDB bills it), in runs of their own at the end;
 * - the same business's API traffic (POST, GET, list page through the
 *   services, one after another): p50/p99 alone, during a 4N import, alone again;
 * - a run killed mid-import and resumed by another process;
 * - employee job rows (BENCH_IMPORT_JOB_ROWS, default 1,000, four per
 *   employee of an employee import before them, named by
 *   employee_external_id): transactions, write units per row beside
 *   POST /employee_jobs's (createEmployeeJob). BENCH_IMPORT_ONLY=jobs runs
 *   this part alone;
 * - reading a file's rows: CPU seconds for 8, 16 and 32 MB, CSV and JSON
 *   Lines, with and without line breaks (scripts/lib/bench-import-parse.ts).
 *   BENCH_IMPORT_ONLY=parse runs this part alone.
 * The CSV is uploaded to the local S3 and streamed back by the run, as
 * deployed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { dynamoStats, resetClient } from '../src/data/dynamo/client';
import { resetS3Client, s3 } from '../src/data/s3/client';
import { attachmentsBucket } from '../src/data/config';
import { runWithOrigin } from '../src/data/write-origin';
import { runWithDeadline } from '../src/data/deadline';
import { uploadKeyOf } from '../src/domain/imports';
import { FieldErrorCollector } from '../src/domain/errors';
import { createImport } from '../src/services/imports';
import { showImport } from '../src/services/imports';
import { createEmployee, listEmployees, showEmployee } from '../src/services/employees';
import { createEmployeeJob } from '../src/services/employee-jobs';
import { adminContext } from '../src/services/request-context';
import { countDerivedWriteUnits, countTrueUnits, derivedWrites, trueUnits } from './lib/write-units';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { ensureBucket, startS3Local } from './lib/s3-local';
import { seedBusiness } from './lib/bench-applications';
import type { ImportRunReport } from './lib/import-run-once';
import { parseFigures, printParseFigures } from './lib/bench-import-parse';

/** An import run in a process of its own (its peak RSS is the run's alone). */
function runProcess(
  businessId: string,
  id: string,
  trueUnits = false,
): { child: ChildProcess; done: Promise<ImportRunReport> } {
  const tsx = join(__dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn(process.execPath, [tsx, join(__dirname, 'lib', 'import-run-once.ts'), businessId, id], {
    env: { ...process.env, ...(trueUnits ? { IMPORT_TRUE_UNITS: '1' } : {}) },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<ImportRunReport>((resolve, reject) =>
    child.on('close', (code, signal) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ImportRunReport)
        : reject(new Error(`import run ended ${code ?? signal}: ${stderr}`)),
    ),
  );
  return { child, done };
}

const N = Number(process.env.BENCH_IMPORT_ROWS ?? 2_000);
/** Rows of the validate run measured at the contract's size (no extrapolation). */
const VALIDATE_ROWS = Number(process.env.BENCH_IMPORT_VALIDATE_ROWS ?? 100_000);
/** DynamoDB Local's JVM, whose CPU time each run reports beside the import process's. */
let dynamoPid: number | undefined;
/** Records created through the API's service for the write-unit baseline. */
const API_RECORDS = 200;
/** How long the API traffic runs alone, before and after the import it runs beside. */
const IDLE_MS = 15_000;

const csv = (prefix: string, n: number): Buffer => {
  const lines = ['external_id,first_name,last_name,employee_number,email'];
  for (let i = 0; i < n; i++) lines.push(`${prefix}-${i},First${i},Last${i},${prefix}-N${i},p${i}@example.com`);
  return Buffer.from(`${lines.join('\n')}\n`);
};

interface Measured {
  readonly label: string;
  readonly rows: number;
  readonly ms: number;
  readonly peakRssMb: number;
  readonly writeUnits: number;
  readonly derivedWriteUnits: number;
  readonly trueWriteUnits: number | null;
  readonly transactions: number;
  readonly cpuMs: number;
  /** CPU seconds DynamoDB Local's JVM used meanwhile. */
  readonly dynamoCpuS: number;
  readonly failedRuns: number;
  readonly counts: Record<string, number>;
}

async function startImport(
  businessId: string,
  file: Buffer,
  mode: 'apply' | 'validate',
  type: 'employees' | 'employee_jobs' = 'employees',
): Promise<string> {
  const created = await createImport(
    adminContext(businessId),
    { type, format: 'csv', mode, size: file.length },
    {
      tokenId: 'bench0000000',
      tokenName: 'bench',
      requestId: null,
      language: 'en',
    },
  );
  const id = (created.body as { id: string }).id;
  await s3().send(new PutObjectCommand({ Bucket: attachmentsBucket(), Key: uploadKeyOf(businessId, id), Body: file }));
  return id;
}

const shownImport = async (businessId: string, id: string) =>
  (await showImport(businessId, id, () => undefined)).body as { status: string; counts: Record<string, number> };

async function importOnce(
  businessId: string,
  label: string,
  rows: number,
  mode: 'apply' | 'validate',
  beside?: (running: Promise<unknown>) => Promise<void>,
  trueUnits = false,
  job?: { readonly file: Buffer },
): Promise<Measured> {
  const id = job
    ? await startImport(businessId, job.file, mode, 'employee_jobs')
    : await startImport(businessId, csv(`${label}-${mode}`, rows), mode);
  const dynamoCpu0 = cpuSecondsOf(dynamoPid);
  const run = runProcess(businessId, id, trueUnits).done;
  const [report] = await Promise.all([run, beside?.(run.catch(() => undefined))]);
  const dynamoCpuS = cpuSecondsOf(dynamoPid) - dynamoCpu0;
  const shown = await shownImport(businessId, id);
  if (shown.status !== 'completed' || shown.counts.rows !== rows)
    throw new Error(`import ${label} ${mode}: ${shown.status} ${JSON.stringify(shown.counts)}`);
  return {
    label: `${label} ${mode}`,
    rows,
    ms: report.ms,
    peakRssMb: report.maxRssMb,
    writeUnits: report.writeUnits,
    derivedWriteUnits: report.derivedWriteUnits,
    trueWriteUnits: report.trueWriteUnits,
    transactions: report.transactions,
    cpuMs: report.cpuMs,
    dynamoCpuS,
    failedRuns: report.failedRuns,
    counts: shown.counts,
  };
}

/**
 * A run killed (SIGKILL) once it has stored progress, then resumed by another process once its lease (60 s)
 * expired: every row applied exactly once (the employees list grows by the rows, each created once).
 */
async function killedAndResumed(businessId: string, rows: number): Promise<string> {
  const before = (await listEmployees(businessId, { page: 1, perPage: 1 })).total;
  const id = await startImport(businessId, csv('killed', rows), 'apply');
  const first = runProcess(businessId, id);
  first.done.catch(() => undefined);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (((await shownImport(businessId, id)).counts.rows ?? 0) > 0) break;
  }
  first.child.kill('SIGKILL');
  const killedAt = (await shownImport(businessId, id)).counts.rows;
  await new Promise((resolve) => setTimeout(resolve, 61_000));
  await runProcess(businessId, id).done;
  const shown = await shownImport(businessId, id);
  const after = (await listEmployees(businessId, { page: 1, perPage: 1 })).total;
  const ok = shown.status === 'completed' && shown.counts.created === rows && after - before === rows;
  if (!ok) throw new Error(`killed import: ${JSON.stringify(shown)}; employees +${after - before} of ${rows}`);
  return `killed after ${killedAt} rows were checkpointed, resumed by another process: ${rows} rows, ${after - before} employees created, each once`;
}

/**
 * Write units of creating `n` employees one by one through the API's service (what POST /employees sends),
 * without and with an Idempotency-Key (how a client makes its retries safe, as the import's result items do).
 */
async function apiCreates(
  businessId: string,
  n: number,
): Promise<{ reported: number; derived: number; derivedWithKey: number }> {
  dynamoStats.reset();
  derivedWrites.units = 0;
  for (let i = 0; i < n; i++) await withRetriesOnce(() => apiCreate(businessId, `API-${i}`));
  const reported = (dynamoStats.units.write + dynamoStats.units.indexWrite) / n;
  const derived = derivedWrites.units / n;
  derivedWrites.units = 0;
  for (let i = 0; i < n; i++)
    await withRetriesOnce(
      (
        (key) => () =>
          apiCreate(businessId, `APIK-${i}`, key)
      )(randomUUID()),
    );
  return { reported, derived, derivedWithKey: derivedWrites.units / n };
}

const apiCreate = (businessId: string, number: string, idempotencyKey?: string) =>
  runWithOrigin({ actor: { type: 'admin' }, request_id: null }, () =>
    runWithDeadline(5000, () =>
      createEmployee(
        adminContext(businessId, { path: '/services/api/v1/employees', idempotencyKey }),
        { first_name: 'Api', last_name: 'Made', employee_number: number, email: `${number}@example.com` },
        new FieldErrorCollector(),
      ),
    ),
  );

/**
 * Write units of `n` API creates (without and with an Idempotency-Key) sized from the items read before and after
 * each write (countTrueUnits; it stays on this process's client, so it runs last).
 */
async function apiCreatesTrueUnits(businessId: string, n: number): Promise<{ plain: number; withKey: number }> {
  countTrueUnits();
  const measure = async (tag: string, key: () => string | undefined): Promise<number> => {
    trueUnits.reset();
    for (let i = 0; i < n; i++)
      await withRetriesOnce(
        (
          (k) => () =>
            apiCreate(businessId, `${tag}-${i}`, k)
        )(key()),
      );
    return (trueUnits.units.write + trueUnits.units.indexWrite) / n;
  };
  return { plain: await measure('APIT', () => undefined), withKey: await measure('APITK', () => randomUUID()) };
}

/** CPU seconds the process `pid` (DynamoDB Local's JVM) has used so far (Linux /proc). */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100/s).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

interface Latencies {
  readonly requests: number;
  /** Requests answered 503 (their deadline passed). */
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * The business's own API traffic, one request after another through the
 * services (what the routes call): a third each POST /employees (the list
 * counter the import's chunks move), GET /employees/{id}, GET /employees
 * (page 1 of 30); until `stop` resolves and at least `minRequests` were made.
 */
async function apiTraffic(
  businessId: string,
  tag: string,
  stop: Promise<unknown>,
  minRequests = 150,
): Promise<Latencies> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const someId = String(((await withRetriesOnce(() => apiCreate(businessId, `${tag}-0`))).body as { id: string }).id);
  const ms: number[] = [];
  let failed = 0;
  for (let i = 1; !stopped || ms.length < minRequests; i++) {
    const t0 = performance.now();
    try {
      if (i % 3 === 0) await apiCreate(businessId, `${tag}-${i}`);
      else if (i % 3 === 1) await runWithDeadline(5000, () => showEmployee(businessId, someId));
      else await runWithDeadline(5000, () => listEmployees(businessId, { page: 1, perPage: 30 }));
    } catch {
      // A 503 (its deadline passed) is an answer too, at the time it took.
      failed += 1;
    }
    ms.push(performance.now() - t0);
  }
  ms.sort((x, y) => x - y);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return { requests: ms.length, failed, p50: at(0.5), p99: at(0.99) };
}

/** One more try of a call that failed under load (the shared machine), as a client would. */
const withRetriesOnce = <T>(call: () => Promise<T>): Promise<T> => call().catch(() => call());

/** Job rows of one run of this bench (BENCH_IMPORT_JOB_ROWS). */
const JOB_ROWS = Number(process.env.BENCH_IMPORT_JOB_ROWS ?? 1_000);
/** Jobs per employee in the job file: a job history, one row after another. */
const JOBS_PER_EMPLOYEE = 4;

/** `n` job rows, JOBS_PER_EMPLOYEE consecutive ones per employee of the employee import `employees`. */
const jobCsv = (employees: string, n: number): Buffer => {
  const lines = ['external_id,employee_external_id,name,from,to,time_type'];
  for (let i = 0; i < n; i++) {
    const year = 2010 + (i % JOBS_PER_EMPLOYEE) * 3;
    const to = i % JOBS_PER_EMPLOYEE === JOBS_PER_EMPLOYEE - 1 ? '' : `${year + 2}-12-31`;
    lines.push(
      `${employees}-job-${i},${employees}-${Math.floor(i / JOBS_PER_EMPLOYEE)},Job ${i},${year}-01-01,${to},full_time`,
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
};

/**
 * Employee job rows: an import of their employees, then JOB_ROWS job rows naming them (apply); write units per row
 * beside API_RECORDS jobs created one by one through createEmployeeJob (what POST /employee_jobs sends, no key).
 */
async function jobRows(businessId: string): Promise<{ run: Measured; apiPerRow: number }> {
  const employees = Math.ceil(JOB_ROWS / JOBS_PER_EMPLOYEE);
  await importOnce(businessId, 'jobs-emp', employees, 'apply');
  const run = await importOnce(businessId, 'jobs', JOB_ROWS, 'apply', undefined, false, {
    file: jobCsv('jobs-emp-apply', JOB_ROWS),
  });
  if (run.counts.created !== JOB_ROWS) throw new Error(`job rows: ${JSON.stringify(run.counts)}`);
  const employee = String(((await withRetriesOnce(() => apiCreate(businessId, 'JOBS-API'))).body as { id: string }).id);
  derivedWrites.units = 0;
  for (let i = 0; i < API_RECORDS; i++)
    await withRetriesOnce(() =>
      runWithOrigin({ actor: { type: 'admin' }, request_id: null }, () =>
        runWithDeadline(5000, () =>
          createEmployeeJob(
            adminContext(businessId, { method: 'POST', path: '/services/api/v1/employee_jobs' }),
            { employee_id: employee, name: `Api ${i}`, from: '2020-01-01', time_type: 'full_time' },
            new FieldErrorCollector(),
          ),
        ),
      ),
    );
  return { run, apiPerRow: derivedWrites.units / API_RECORDS };
}

const printJobRows = ({ run, apiPerRow }: { run: Measured; apiPerRow: number }): void => {
  const perRow = run.derivedWriteUnits / run.rows;
  console.log(
    `\nEmployee job rows (${JOBS_PER_EMPLOYEE} per employee, named by employee_external_id): ${run.rows.toLocaleString('en')} rows in ${(run.ms / 1000).toFixed(1)} s, CPU s import / DynamoDB Local ${(run.cpuMs / 1000).toFixed(1)} / ${run.dynamoCpuS.toFixed(1)}; ${run.transactions} transactions (${((run.transactions * 1000) / run.rows).toFixed(0)} per 1,000 rows); write units per row (derived) ${perRow.toFixed(2)}, POST /employee_jobs ${apiPerRow.toFixed(2)} (${API_RECORDS} jobs of one employee, no Idempotency-Key): ratio ${(perRow / apiPerRow).toFixed(2)}x`,
  );
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  const began = performance.now();
  // Reading alone first, in a quiet process (no DynamoDB Local, no S3 server started yet).
  const parsing = await parseFigures();
  if (process.env.BENCH_IMPORT_ONLY === 'parse') {
    printParseFigures(parsing);
    return;
  }
  const cpu0 = process.cpuUsage();
  const dynamo = await startDynamoLocal();
  const s3Local = await startS3Local();
  try {
    dynamoPid = dynamo.process.pid;
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-import';
    process.env.S3_ENDPOINT = s3Local.endpoint;
    process.env.ATTACHMENTS_BUCKET = 'bench-import';
    resetClient();
    resetS3Client();
    countDerivedWriteUnits();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
    await ensureBucket(s3Local.endpoint, attachmentsBucket());
    const businessId = `bench-import-${randomUUID().slice(0, 8)}`;
    await seedBusiness(businessId, 0);
    if (process.env.BENCH_IMPORT_ONLY === 'jobs') {
      printJobRows(await jobRows(businessId));
      const cpu = process.cpuUsage(cpu0);
      console.log(
        `\nnpm run bench:import (job rows only) took ${((performance.now() - began) / 1000).toFixed(0)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU s in this process`,
      );
      return;
    }

    const api = await apiCreates(businessId, API_RECORDS);
    const runs: Measured[] = [];
    for (const [label, rows] of [
      ['N', N],
      ['4N', 4 * N],
    ] as const) {
      for (const mode of ['validate', 'apply'] as const) {
        runs.push(await importOnce(businessId, label, rows, mode));
        console.error(`${label} ${mode} done`);
      }
    }
    // The same business's API alone, during an import of 4N rows (apply), and alone again.
    const idleBefore = await apiTraffic(businessId, 'idle1', sleep(IDLE_MS));
    let during: Latencies | undefined;
    const busy = await importOnce(businessId, '4N-busy', 4 * N, 'apply', async (running) => {
      during = await apiTraffic(businessId, 'busy', running);
    });
    const idleAfter = await apiTraffic(businessId, 'idle2', sleep(IDLE_MS));
    const killed = await killedAndResumed(businessId, Math.min(2 * N, 4_000));
    const apply = (label: string) => runs.find((r) => r.label === `${label} apply`)!;
    const validate = (label: string) => runs.find((r) => r.label === `${label} validate`)!;
    const validated =
      4 * N === VALIDATE_ROWS ? validate('4N') : await importOnce(businessId, 'full', VALIDATE_ROWS, 'validate');
    // Units sized from the items themselves: reads around every write, so in runs of their own, last.
    const exact = await importOnce(businessId, 'N-sized', N, 'apply', undefined, true);
    const jobs = await jobRows(businessId);
    const apiExact = await apiCreatesTrueUnits(businessId, API_RECORDS);
    printParseFigures(parsing);

    console.log(
      `\nImport of employee rows (CSV via the local S3; DynamoDB Local in memory; each run a process of its own):\n`,
    );
    console.log(
      '| run | rows | time | rows/s | CPU s import / DynamoDB Local | CPU ms per row import / DynamoDB Local | peak RSS | transactions | write units per row (derived) |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    const perRowMs = (r: Measured) =>
      `${(r.cpuMs / r.rows).toFixed(2)} / ${((r.dynamoCpuS * 1000) / r.rows).toFixed(2)}`;
    for (const r of [...runs, ...(validated === validate('4N') ? [] : [validated]), busy])
      console.log(
        `| ${r.label} | ${r.rows.toLocaleString('en')} | ${(r.ms / 1000).toFixed(1)} s | ${Math.round(r.rows / (r.ms / 1000))} | ${(r.cpuMs / 1000).toFixed(1)} / ${r.dynamoCpuS.toFixed(1)} | ${perRowMs(r)} | ${r.peakRssMb.toFixed(0)} MB | ${r.transactions} | ${(r.derivedWriteUnits / r.rows).toFixed(2)} |`,
      );
    const failedRuns = [...runs, busy].reduce((n, r) => n + r.failedRuns, 0);
    if (failedRuns) console.log(`(${failedRuns} runs failed under load and were run again, as Lambda retries them)`);
    const perRow = apply('4N').derivedWriteUnits / apply('4N').rows;
    console.log(
      `\nWrite units per row (derived from the items written, scripts/lib/write-units.ts): import ${perRow.toFixed(2)}; API create ${api.derived.toFixed(2)} without an Idempotency-Key, ${api.derivedWithKey.toFixed(2)} with one (${API_RECORDS} records each): ratio ${(perRow / api.derived).toFixed(2)}x and ${(perRow / api.derivedWithKey).toFixed(2)}x (goal <= 0.75x)`,
    );
    const exactPerRow = (exact.trueWriteUnits ?? 0) / exact.rows;
    console.log(
      `  sized from the items read around each write (an Update's whole item; ${N.toLocaleString('en')} rows, ${API_RECORDS} API records each): import ${exactPerRow.toFixed(2)}; API create ${apiExact.plain.toFixed(2)} without an Idempotency-Key, ${apiExact.withKey.toFixed(2)} with one: ratio ${(exactPerRow / apiExact.plain).toFixed(2)}x and ${(exactPerRow / apiExact.withKey).toFixed(2)}x`,
    );
    console.log(
      `  as DynamoDB Local reports them (a whole transaction counted as one item): import ${(apply('4N').writeUnits / apply('4N').rows).toFixed(2)}, API create ${api.reported.toFixed(2)}`,
    );
    console.log(
      `Peak RSS 4N / N: apply ${(apply('4N').peakRssMb / apply('N').peakRssMb).toFixed(2)}x, validate ${(validate('4N').peakRssMb / validate('N').peakRssMb).toFixed(2)}x (goal <= 1.1x)`,
    );
    const per100k = (r: Measured) => ((r.ms / r.rows) * 100_000) / 1000;
    const cpu100k = (r: Measured) => ((r.cpuMs / 1000 + r.dynamoCpuS) / r.rows) * 100_000;
    const rows100k =
      4 * N === 100_000 ? 'measured at 100,000 rows' : `extrapolated from ${(4 * N).toLocaleString('en')} rows`;
    console.log(
      `100,000 rows: apply ${per100k(apply('4N')).toFixed(0)} s (${rows100k}; goal < 300 s), validate ${per100k(validated).toFixed(0)} s (${validated.rows === 100_000 ? 'measured at 100,000 rows' : `extrapolated from ${validated.rows.toLocaleString('en')} rows`}; goal < 60 s); CPU s (import process + DynamoDB Local): apply ${cpu100k(apply('4N')).toFixed(0)}, validate ${cpu100k(validated).toFixed(0)}`,
    );
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    console.log(
      `CPU per row: the import process (what the import's Lambda pays) ${perRowMs(apply('4N')).split(' / ')[0]} ms applied, ${perRowMs(validated).split(' / ')[0]} ms validated; DynamoDB Local's JVM ${perRowMs(apply('4N')).split(' / ')[1]} ms applied, ${perRowMs(validated).split(' / ')[1]} ms validated`,
    );
    const d = during!;
    console.log(
      `API of the same business (POST, GET, list page; one after another): alone ${idleBefore.requests} requests (${idleBefore.failed} 503) p50 ${ms(idleBefore.p50)} p99 ${ms(idleBefore.p99)}; during the 4N import ${d.requests} requests (${d.failed} 503) p50 ${ms(d.p50)} p99 ${ms(d.p99)}; alone again ${idleAfter.requests} requests (${idleAfter.failed} 503) p99 ${ms(idleAfter.p99)}: p99 ratio ${(d.p99 / Math.max(idleBefore.p99, idleAfter.p99)).toFixed(2)}x of the slower idle phase, ${(d.p99 / idleBefore.p99).toFixed(2)}x of the first (goal <= 1.5x)`,
    );
    console.log(`A run killed mid-import (SIGKILL): ${killed}`);
    printJobRows(jobs);
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `\nnpm run bench (import part) took ${((performance.now() - began) / 1000).toFixed(0)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU s in this process`,
    );
  } finally {
    await s3Local.stop();
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench` (export part, contract §20): an export of N and of 4N
 * applications (N = BENCH_EXPORT_APPLICATIONS, default 25,000; 4N = 100,000,
 * the contract's "100,000 applications in under 5 minutes"), seeded through
 * the store, on an in-memory DynamoDB Local and the local S3 server.
 *
 * Each export's worker run is its own process (scripts/lib/export-worker-run.ts),
 * so its peak RSS is the worker's alone; it reports its time and the DynamoDB
 * items it read (Query pages of the record partitions; index entries, none
 * expected, apart) and read units.
 * The file is then downloaded and its lines counted against the seed.
 */
import { SCOPES } from '../src/domain/scopes';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { dynamoStats, resetClient } from '../src/data/dynamo/client';
import { resetS3Client } from '../src/data/s3/client';
import { exportsBucket } from '../src/data/config';
import { showExport, startExport, useExportLauncher } from '../src/services/exports';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { ensureBucket, startS3Local } from './lib/s3-local';
import { seedBusiness } from './lib/bench-applications';
import type { WorkerReport } from './lib/export-worker-run';
import { adminContext } from '../src/services/request-context';

/** The worker's V8 heap limit, below the 4N file alone (51 MB): an export that grew with N would fail there. */
const WORKER_HEAP_MB = 64;

const N = Number(process.env.BENCH_EXPORT_APPLICATIONS ?? 25_000);

interface Row {
  readonly n: number;
  readonly report: WorkerReport;
  readonly lines: number;
  readonly bytes: number;
}

function runWorker(businessId: string, id: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const tsx = join(__dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn(process.execPath, [tsx, join(__dirname, 'lib', 'export-worker-run.ts'), businessId, id], {
    // A heap far below what the file or the records take: an export that held them would fail at 4N.
    env: {
      ...process.env,
      DYNAMODB_CAPACITY_DETAIL: 'INDEXES',
      NODE_OPTIONS: `--max-old-space-size=${WORKER_HEAP_MB}`,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function exportOnce(businessId: string, n: number): Promise<Row> {
  const started = await startExport(adminContext(businessId), { types: ['applications'] }, async () => undefined);
  const id = (started.body as { id: string }).id;
  // Not spawnSync: the local S3 server runs in this process and must keep answering.
  const run = await runWorker(businessId, id);
  if (run.code !== 0) throw new Error(`worker run failed: ${run.stderr}`);
  const report = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as WorkerReport;
  const shown = (await showExport(businessId, id, { scopes: SCOPES })).body as {
    download_url: string;
    counts: { applications: number };
  };
  // Streamed: the file is counted line by line, never held whole.
  const res = await fetch(shown.download_url);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  if (lines !== n || shown.counts.applications !== n)
    throw new Error(`export of ${n}: ${lines} lines, counts ${shown.counts.applications}`);
  return { n, report, lines, bytes };
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const began = performance.now();
  const dynamo = await startDynamoLocal();
  const s3 = await startS3Local();
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-export';
    process.env.S3_ENDPOINT = s3.endpoint;
    process.env.ATTACHMENTS_BUCKET = 'bench-export';
    resetClient();
    resetS3Client();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
    await ensureBucket(s3.endpoint, exportsBucket());
    // The worker runs are started by this script, one process each.
    useExportLauncher(async () => undefined);

    const rows: Row[] = [];
    for (const [id, n] of [
      ['export-n', N],
      ['export-4n', 4 * N],
    ] as const) {
      await seedBusiness(id, n);
      dynamoStats.reset();
      rows.push(await exportOnce(id, n));
    }
    console.log(`\nExport of applications (one worker process per export; DynamoDB Local in memory, local S3):\n`);
    console.log(
      '| applications | time | records/s | items read per record (of them index entries) | read units per record | calls | peak RSS of the worker | file |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const { n, report, bytes } of rows)
      console.log(
        `| ${n.toLocaleString('en')} | ${(report.ms / 1000).toFixed(1)} s | ${Math.round(n / (report.ms / 1000)).toLocaleString('en')} | ${(report.itemsRead / n).toFixed(3)} (${(report.indexItemsRead / n).toFixed(3)}) | ${(report.readUnits / n).toFixed(3)} | ${report.calls} | ${report.maxRssMb.toFixed(0)} MB | ${(bytes / 1024 / 1024).toFixed(1)} MB |`,
      );
    const [small, large] = rows as [Row, Row];
    console.log(
      `\n4N / N: time ${(large.report.ms / small.report.ms).toFixed(2)}x, items read ${(large.report.itemsRead / small.report.itemsRead).toFixed(2)}x, peak RSS ${(large.report.maxRssMb / small.report.maxRssMb).toFixed(2)}x (linear growth: 4.00x, 4.00x, flat memory: 1.00x)`,
    );
    console.log(
      `${(4 * N).toLocaleString('en')} applications exported in ${(large.report.ms / 1000).toFixed(1)} s (contract: under 300 s for 100,000)`,
    );
    console.log(`\nnpm run bench (export part) took ${((performance.now() - began) / 1000).toFixed(0)} s`);
  } finally {
    await s3.stop();
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

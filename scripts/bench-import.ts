/**
 * `npm run bench` (import part, contract §22): employee rows through the
 * import's run, on an in-memory DynamoDB Local and the local S3 server, every
 * figure from this one run:
 * - apply and validate of N and 4N rows (N = BENCH_IMPORT_ROWS, default
 *   2,000): time, rows/s, peak RSS of this process while each runs (4N / N);
 * - DynamoDB write units per imported row beside those of the same records
 *   created one by one through the API's service (createEmployee, no
 *   Idempotency-Key), ConsumedCapacity with indexes.
 * The CSV is uploaded to the local S3 and streamed back by the run, as
 * deployed.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { dynamoStats, resetClient } from '../src/data/client';
import { resetS3Client, s3 } from '../src/data/s3-client';
import { attachmentsBucket } from '../src/data/config';
import { runWithOrigin } from '../src/data/write-origin';
import { runWithDeadline } from '../src/data/deadline';
import { uploadKeyOf } from '../src/domain/imports';
import { FieldErrorCollector } from '../src/domain/errors';
import { createImport } from '../src/services/imports';
import { runImport } from '../src/services/import-run';
import { showImport } from '../src/services/imports';
import { createEmployee } from '../src/services/employees';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { ensureBucket, startS3Local } from './lib/s3-local';
import { seedBusiness } from './lib/bench-applications';

const N = Number(process.env.BENCH_IMPORT_ROWS ?? 2_000);
/** Records created through the API's service for the write-unit baseline. */
const API_RECORDS = 200;

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
  readonly counts: Record<string, number>;
}

async function importOnce(
  businessId: string,
  label: string,
  rows: number,
  mode: 'apply' | 'validate',
): Promise<Measured> {
  const file = csv(`${label}-${mode}`, rows);
  const created = await createImport(
    businessId,
    { type: 'employees', format: 'csv', mode, size: file.length },
    undefined,
    { tokenId: 'bench0000000', tokenName: 'bench', requestId: null, language: 'en' },
  );
  const id = (created.body as { id: string }).id;
  await s3().send(new PutObjectCommand({ Bucket: attachmentsBucket(), Key: uploadKeyOf(businessId, id), Body: file }));
  global.gc?.();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  dynamoStats.reset();
  const t0 = performance.now();
  while ((await runImport(businessId, id)).outcome === 'paused');
  const ms = performance.now() - t0;
  clearInterval(sampler);
  const writeUnits = dynamoStats.units.write + dynamoStats.units.indexWrite;
  const shown = (await showImport(businessId, id, () => undefined)).body as {
    status: string;
    counts: Record<string, number>;
  };
  if (shown.status !== 'completed' || shown.counts.rows !== rows)
    throw new Error(`import ${label} ${mode}: ${shown.status} ${JSON.stringify(shown.counts)}`);
  return { label: `${label} ${mode}`, rows, ms, peakRssMb: peak / 1024 / 1024, writeUnits, counts: shown.counts };
}

/** Write units of creating `n` employees one by one through the API's service (what POST /employees sends). */
async function apiCreates(businessId: string, n: number): Promise<number> {
  dynamoStats.reset();
  for (let i = 0; i < n; i++) {
    await runWithOrigin({ actor: { type: 'admin' }, request_id: null }, () =>
      runWithDeadline(5000, () =>
        createEmployee(
          businessId,
          { first_name: `Api${i}`, last_name: 'Made', employee_number: `API-${i}`, email: `a${i}@example.com` },
          new FieldErrorCollector(),
          undefined,
          { method: 'POST', path: '/services/api/v1/employees' },
        ),
      ),
    );
  }
  return (dynamoStats.units.write + dynamoStats.units.indexWrite) / n;
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  const began = performance.now();
  const cpu0 = process.cpuUsage();
  const dynamo = await startDynamoLocal();
  const s3Local = await startS3Local();
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-import';
    process.env.S3_ENDPOINT = s3Local.endpoint;
    process.env.ATTACHMENTS_BUCKET = 'bench-import';
    resetClient();
    resetS3Client();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
    await ensureBucket(s3Local.endpoint, attachmentsBucket());
    const businessId = `bench-import-${randomUUID().slice(0, 8)}`;
    await seedBusiness(businessId, 0);

    const apiUnits = await apiCreates(businessId, API_RECORDS);
    const runs: Measured[] = [];
    for (const [label, rows] of [
      ['N', N],
      ['4N', 4 * N],
    ] as const) {
      runs.push(await importOnce(businessId, label, rows, 'validate'));
      runs.push(await importOnce(businessId, label, rows, 'apply'));
    }
    console.log(`\nImport of employee rows (CSV via the local S3; DynamoDB Local in memory; this process):\n`);
    console.log('| run | rows | time | rows/s | peak RSS | write units per row |');
    console.log('|---|---|---|---|---|---|');
    for (const r of runs)
      console.log(
        `| ${r.label} | ${r.rows.toLocaleString('en')} | ${(r.ms / 1000).toFixed(1)} s | ${Math.round(r.rows / (r.ms / 1000))} | ${r.peakRssMb.toFixed(0)} MB | ${(r.writeUnits / r.rows).toFixed(2)} |`,
      );
    const apply = (label: string) => runs.find((r) => r.label === `${label} apply`)!;
    const validate = (label: string) => runs.find((r) => r.label === `${label} validate`)!;
    const perRow = apply('4N').writeUnits / apply('4N').rows;
    console.log(
      `\nWrite units per row: import ${perRow.toFixed(2)}, API create ${apiUnits.toFixed(2)} (${API_RECORDS} records): ratio ${(perRow / apiUnits).toFixed(2)}x (goal <= 0.75x)`,
    );
    console.log(
      `Peak RSS 4N / N: apply ${(apply('4N').peakRssMb / apply('N').peakRssMb).toFixed(2)}x, validate ${(validate('4N').peakRssMb / validate('N').peakRssMb).toFixed(2)}x (goal <= 1.1x)`,
    );
    const per100k = (r: Measured) => ((r.ms / r.rows) * 100_000) / 1000;
    console.log(
      `Extrapolated to 100,000 rows: apply ${per100k(apply('4N')).toFixed(0)} s (goal < 300 s), validate ${per100k(validate('4N')).toFixed(0)} s (goal < 60 s)`,
    );
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

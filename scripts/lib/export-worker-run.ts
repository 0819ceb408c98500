/**
 * One export worker run in a process of its own (scripts/bench-export.ts):
 * `tsx scripts/lib/export-worker-run.ts BUSINESS_ID EXPORT_ID`, with the
 * table and S3 from the environment. Prints one JSON line: time, DynamoDB
 * calls, items and read units, the process's peak RSS.
 */
import { dynamoStats } from '../../src/data/dynamo/client';
import { asExportWorker, runExport } from '../../src/services/exports';

export interface WorkerReport {
  readonly outcome: string;
  readonly ms: number;
  readonly calls: number;
  readonly itemsRead: number;
  readonly indexItemsRead: number;
  readonly readUnits: number;
  readonly maxRssMb: number;
}

async function main(): Promise<void> {
  const [businessId, id] = process.argv.slice(2);
  if (!businessId || !id) throw new Error('usage: export-worker-run.ts BUSINESS_ID EXPORT_ID');
  dynamoStats.reset();
  const t0 = performance.now();
  const outcome = await asExportWorker(() => runExport(businessId, id));
  const report: WorkerReport = {
    outcome,
    ms: performance.now() - t0,
    calls: dynamoStats.calls,
    itemsRead: dynamoStats.itemsRead,
    indexItemsRead: dynamoStats.indexItemsRead,
    readUnits: dynamoStats.units.read + dynamoStats.units.indexRead,
    // ru_maxrss is in kilobytes on Linux.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

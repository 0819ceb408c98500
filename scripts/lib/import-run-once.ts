/**
 * One import run in a process of its own (scripts/bench-import.ts):
 * `tsx scripts/lib/import-run-once.ts BUSINESS_ID IMPORT_ID`, with the table
 * and S3 from the environment. Prints one JSON line: outcome, time, DynamoDB
 * write units (table and indexes), the process's peak RSS. The bench also
 * kills one of these mid-run (SIGKILL) and resumes the import in another.
 */
import { dynamoStats } from '../../src/data/client';
import { inCallScope } from '../../src/data/call-scope';
import { IMPORT_WORKER_NAME, runImport } from '../../src/services/import-run';

export interface ImportRunReport {
  readonly outcome: string;
  readonly ms: number;
  readonly writeUnits: number;
  readonly maxRssMb: number;
}

async function main(): Promise<void> {
  const [businessId, id] = process.argv.slice(2);
  if (!businessId || !id) throw new Error('usage: import-run-once.ts BUSINESS_ID IMPORT_ID');
  dynamoStats.reset();
  const t0 = performance.now();
  let outcome = 'paused';
  while (outcome === 'paused')
    outcome = (await inCallScope(IMPORT_WORKER_NAME, () => runImport(businessId, id))).outcome;
  const report: ImportRunReport = {
    outcome,
    ms: performance.now() - t0,
    writeUnits: dynamoStats.units.write + dynamoStats.units.indexWrite,
    // ru_maxrss is in kilobytes on Linux.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * One import run in a process of its own (scripts/bench-import.ts):
 * `tsx scripts/lib/import-run-once.ts BUSINESS_ID IMPORT_ID`, with the table
 * and S3 from the environment. Prints one JSON line: outcome, time, DynamoDB
 * write units (table and indexes), the process's peak RSS. The bench also
 * kills one of these mid-run (SIGKILL) and resumes the import in another.
 * With IMPORT_TRUE_UNITS=1 it also counts write units from the items read
 * around each write (countTrueUnits: slower, for the unit figures only).
 */
import { dynamoStats } from '../../src/data/dynamo/client';
import { inCallScope } from '../../src/data/dynamo/call-scope';
import { IMPORT_WORKER_NAME, runImport } from '../../src/services/import-run';
import { countDerivedWriteUnits, countTrueUnits, derivedWrites, trueUnits } from './write-units';

export interface ImportRunReport {
  readonly outcome: string;
  readonly ms: number;
  /** As DynamoDB Local reports them (a transaction counted as one item: scripts/lib/write-units.ts). */
  readonly writeUnits: number;
  /** Derived from the items written, by DynamoDB's pricing rules (scripts/lib/write-units.ts). */
  readonly derivedWriteUnits: number;
  /** With IMPORT_TRUE_UNITS=1: by the same rules from the items read before and after each write; else null. */
  readonly trueWriteUnits: number | null;
  readonly transactions: number;
  readonly transactionItems: number;
  readonly cpuMs: number;
  /** Transactions' answer times: median and slowest (ms). */
  readonly transactionMs: { readonly p50: number; readonly max: number };
  readonly maxRssMb: number;
  /** Runs that failed and were run again. */
  readonly failedRuns: number;
}

async function main(): Promise<void> {
  const [businessId, id] = process.argv.slice(2);
  if (!businessId || !id) throw new Error('usage: import-run-once.ts BUSINESS_ID IMPORT_ID');
  dynamoStats.reset();
  countDerivedWriteUnits();
  const counting = process.env.IMPORT_TRUE_UNITS === '1';
  if (counting) countTrueUnits();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let outcome = 'paused';
  let failedRuns = 0;
  // As deployed: a paused run is continued, a failed one (a 503 under load) run again (Lambda retries it).
  while (outcome !== 'finished' && outcome !== 'idle') {
    try {
      outcome = (await inCallScope(IMPORT_WORKER_NAME, () => runImport(businessId, id))).outcome;
    } catch (error) {
      if (++failedRuns > 5) throw error;
      console.error(`run failed, run again: ${String(error)}`);
    }
  }
  const report: ImportRunReport = {
    outcome,
    ms: performance.now() - t0,
    writeUnits: dynamoStats.units.write + dynamoStats.units.indexWrite,
    derivedWriteUnits: derivedWrites.units,
    trueWriteUnits: counting ? trueUnits.units.write + trueUnits.units.indexWrite : null,
    transactions: derivedWrites.transactions,
    transactionItems: derivedWrites.transactionItems,
    transactionMs: ((ms) => ({ p50: ms[Math.floor(ms.length / 2)] ?? 0, max: ms[ms.length - 1] ?? 0 }))(
      [...derivedWrites.transactionMs].sort((a, b) => a - b),
    ),
    cpuMs: ((u) => (u.user + u.system) / 1000)(process.cpuUsage(cpu0)),
    // ru_maxrss is in kilobytes on Linux.
    failedRuns,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench:effective`: what one effective-date run (contract §26) costs
 * for a day with CHANGES changed employees, in a business of N employees and in
 * one of 4N (default N = 2,500; `EFFECTIVE_BENCH_N` sets it). Each business is
 * seeded with plain batch writes (the items the API's creates would leave:
 * every employee with one job since a year ago, open-ended), plus CHANGES
 * employees whose derived fields change that day (half leave the day before,
 * half start that day), each in a feed lane of its own. The run is timed against an in-memory DynamoDB Local:
 * its DynamoDB calls, items read, read units (as DynamoDB Local reports them,
 * index reads included) and write units (by DynamoDB's rules,
 * scripts/lib/write-units.ts). A run whose cost grew with N would show here
 * (docs/decisions/028).
 */
import { randomUUID } from 'node:crypto';
import { importBusiness, markEffectiveThrough } from '../src/data/business-store';
import { dynamoStats, resetClient } from '../src/data/dynamo/client';
import { employee, employeeJob } from '../src/data/entities/employee';
import { batchPut, type Item } from '../src/data/dynamo/table-io';
import { buildBusiness } from '../src/domain/fixture';
import { idsInLane, laneOfTicket } from '../src/domain/change-feed';
import { addDays } from '../src/domain/effective-dates';
import { todayIn } from '../src/domain/job-dates';
import { parseFixture } from '../src/schemas/fixture';
import { runEffectiveDates } from '../src/services/effective-dates';
import fixture from '../fixtures/demo.json';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { countTrueUnits, trueUnits } from './lib/write-units';

const N = Number(process.env.EFFECTIVE_BENCH_N ?? 2_500);
const CHANGES = 10;
const TZ = 'Europe/Rome';

interface Row {
  readonly employees: number;
  readonly updated: number;
  readonly calls: number;
  readonly byCommand: Record<string, number>;
  readonly itemsRead: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly ms: number;
  readonly seedS: number;
}

/** An employee with one job, as the API's creates would store them (a year ago). */
function employeeWithJob(
  businessId: string,
  position: number,
  job: { from: string; to: string | null },
  createdAt: string,
  id: string = randomUUID(),
): Item[] {
  const jobId = randomUUID();
  const span = { seq: 1, from: job.from, to: job.to, supervisor_id: null, location_id: 'hq', department_id: null };
  const person = employee.newItem(
    businessId,
    { id, createdAt, fields: { first_name: `E${position}`, last_name: 'Bench', language: 'en' } },
    position,
  );
  const fields = { employee_id: id, name: 'Cook', from: job.from, to: job.to, location_id: 'hq' };
  return [
    { ...person, job_count: 1, job_summary: { [jobId]: span } },
    employeeJob.newItem(businessId, id, { id: jobId, createdAt, fields }, { position, seq: 1 }),
  ];
}

async function measure(size: number, day: string): Promise<Row> {
  const businessId = `effective-${size}`;
  const parsed = parseFixture({ ...fixture, business: { ...fixture.business, id: businessId, timezone: TZ } });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);

  const seedStart = performance.now();
  const yearAgo = addDays(day, -365);
  const createdAt = `${yearAgo}T08:00:00.000Z`;
  const items: Item[] = [];
  for (let i = 1; i <= size - CHANGES; i++)
    items.push(...employeeWithJob(businessId, i, { from: yearAgo, to: null }, createdAt));
  for (let i = 0; i < CHANGES; i++) {
    const job = i % 2 === 0 ? { from: yearAgo, to: addDays(day, -1) } : { from: day, to: null };
    // Each in a feed lane of its own (ids picked by lane), so both runs write the same number of lane groups.
    const [id] = idsInLane('employee', laneOfTicket('employee', i), 1, randomUUID);
    items.push(...employeeWithJob(businessId, size - CHANGES + 1 + i, job, createdAt, id));
  }
  // Puts in parallel batches: seeding is not what is measured.
  const parts: Item[][] = [];
  for (let i = 0; i < items.length; i += 2_500) parts.push(items.slice(i, i + 2_500));
  for (let i = 0; i < parts.length; i += 4) await Promise.all(parts.slice(i, i + 4).map((p) => batchPut(p)));
  // The days before are done: the run writes `day` alone.
  await markEffectiveThrough(businessId, addDays(day, -1));
  const seedS = (performance.now() - seedStart) / 1000;

  dynamoStats.reset();
  trueUnits.reset();
  const start = performance.now();
  const result = await runEffectiveDates({ nowMs: Date.parse(`${day}T10:00:00Z`), businessId });
  const ms = performance.now() - start;
  return {
    employees: size,
    updated: result.updated,
    calls: dynamoStats.calls,
    byCommand: { ...dynamoStats.byCommand },
    itemsRead: dynamoStats.itemsRead,
    readUnits: dynamoStats.units.read + dynamoStats.units.indexRead + trueUnits.units.read,
    writeUnits: trueUnits.units.write + trueUnits.units.indexWrite,
    ms,
    seedS,
  };
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  const dynamo = await startDynamoLocal();
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-effective';
    resetClient();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
    countTrueUnits();
    const day = todayIn(TZ);
    const rows = [await measure(N, day), await measure(4 * N, day)];
    console.log(
      `\nOne effective-date run for a day with ${CHANGES} changed employees (${day}, ${TZ}; DynamoDB Local in memory):\n`,
    );
    console.log('| employees | updated | DynamoDB calls (by command) | items read | read units | write units | run |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) {
      const commands = Object.entries(r.byCommand)
        .map(([c, n]) => `${c.replace(/Command$/, '')} ${n}`)
        .join(', ');
      console.log(
        `| ${r.employees.toLocaleString('en')} | ${r.updated} | ${r.calls} (${commands}) | ${r.itemsRead} | ${r.readUnits} | ${r.writeUnits} | ${r.ms.toFixed(0)} ms |`,
      );
    }
    const [small, large] = rows as [Row, Row];
    console.log(
      `\n4N / N: calls ${(large.calls / small.calls).toFixed(2)}, read units ${(large.readUnits / small.readUnits).toFixed(2)}, write units ${(large.writeUnits / small.writeUnits).toFixed(2)} (seeding took ${small.seedS.toFixed(0)} s and ${large.seedS.toFixed(0)} s, not measured)`,
    );
    if (small.updated !== CHANGES || large.updated !== CHANGES)
      throw new Error(`expected ${CHANGES} updated in each run, got ${small.updated} and ${large.updated}`);
  } finally {
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench:cost` (contract §21): what one million requests of the `sync`
 * and `recruiting` mixes cost, for three ways to serve list pages. Each
 * request type of the mixes is sent several times through the local server
 * (the deployed handlers) on an in-memory DynamoDB Local, twice: on the table
 * as defined (key-only list indexes) and on the same table with every list
 * index projecting ALL. Reads are what DynamoDB Local reports for every call,
 * indexes included (ReturnConsumedCapacity INDEXES); a list page's records
 * read is its last BatchGetItem (dynamoStats.log), less the business's config
 * and the token it reads with them (src/data/lists/page.ts; the bench's pages
 * have 30 records and read their token every time), whose units are measured
 * on their own. The designs differ in list
 * pages only: other requests cost the same in all three. Writes are counted by
 * DynamoDB's rules from the items written (scripts/lib/write-units.ts: Local
 * reports a TransactWriteItems as one item, whatever it writes); Local's
 * figure is printed beside, and the USD it would give.
 *
 * - `all-projection`: measured on the ALL table (its index writes, its Query
 *   of full items); the page is the Query's items, so the records read (and
 *   its round trip) is taken off. Measured.
 * - `keys-only+eventual-records` (main): measured on the key-only table.
 * - `keys-only+consistent-records`: the same with the records read at twice
 *   the units (DynamoDB's price of a consistent read). Derived from the
 *   measured units of that read.
 * Lambda: the stack's memory (lib/constructs/api-function.ts) times the billed
 * duration, taken as the request's node CPU time measured here plus
 * ROUND_TRIP_MS per sequential DynamoDB round trip (an assumed in-region
 * latency: DynamoDB Local's latency on this machine says nothing about AWS).
 * The last line is the JSON object of §21.
 */
import fixture from '../fixtures/demo.json';
import { FUNCTION_SETTINGS } from '../lib/constructs/function-settings';
import { dynamoStats } from '../src/data/dynamo/client';
import { TABLE, type IndexDefinition } from '../src/data/dynamo/table-definition';
import { API_PREFIX } from '../src/domain/api-paths';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../src/data/dynamo/client';
import { business } from '../src/data/entities/business';
import type { Key } from '../src/data/dynamo/keys';
import { tokenKeyOf } from '../src/data/token-store';
import { startBenchStack, type BenchStack } from './lib/bench-stack';
import { countTrueUnits, trueUnits } from './lib/write-units';

const PRICES = {
  http_api_per_million_requests: 1.0,
  lambda_arm64_per_million_requests: 0.2,
  lambda_per_gb_second: 0.0000133334,
  dynamodb_per_million_write_units: 0.625,
  dynamodb_per_million_read_units: 0.125,
};
const ROUND_TRIP_MS = 10;
const SAMPLES = Number(process.env.BENCH_COST_SAMPLES ?? 8);
const APPLICATIONS = 130;

type Design = 'all-projection' | 'keys-only+consistent-records' | 'keys-only+eventual-records';
const DESIGNS: readonly Design[] = ['all-projection', 'keys-only+consistent-records', 'keys-only+eventual-records'];
/** The design main runs: list indexes as src/data/dynamo/table-definition.ts has them, records read as application-store's pageRecords. */
const CHOSEN: Design = 'keys-only+eventual-records';

/** What one request of a type consumed, averaged over its samples. */
interface Measured {
  readonly read: number;
  /** Write units (table + indexes) by DynamoDB's rules. */
  readonly write: number;
  /** Write units (table + indexes) as DynamoDB Local reports them, for comparison. */
  readonly localWrite: number;
  /** Of `read`, a list page's records read by key (eventually consistent); 0 for any other request. */
  readonly recordsRead: number;
  readonly roundTrips: number;
  readonly cpuMs: number;
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

const MIXES: Record<'sync' | 'recruiting', Record<string, number>> = {
  sync: {
    'list applications': 0.1,
    'list applications by status': 0.1,
    'list applications by job': 0.1,
    'list applications updated since': 0.1,
    'get application': 0.2,
    'change feed page': 0.1,
    'get employee': 0.1,
    'update application name': 0.05,
    'update application status': 0.05,
    'create application': 0.05,
    'create employee': 0.05,
  },
  recruiting: { 'create application': 0.5, 'update application status': 0.2, 'get application': 0.3 },
};

const applicant = (i: number, jobId: string | null): Record<string, unknown> => ({
  accept_terms_and_conditions: true,
  first_name: `Lena${i}`,
  last_name: 'Huber',
  email: `lena.huber.${i}@example.com`,
  phone: '+39 0471 123456',
  ...(jobId ? { job_id: jobId } : {}),
  cf_31: 'I would love to work in your team. '.repeat(8),
});

async function send(stack: BenchStack, r: Request): Promise<unknown> {
  const res = await stack.send(r.method, `${API_PREFIX}${r.path}`, r.body);
  if (res.status >= 300) throw new Error(`${r.method} ${r.path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Sends `sample(i)` SAMPLES times (after one unmeasured warm-up) and averages the units and CPU; of a list page
 * (`besideUnits` given: what the config and the token read with its records cost) the records' units apart.
 */
async function measure(stack: BenchStack, sample: (i: number) => Request, besideUnits?: number): Promise<Measured> {
  await send(stack, sample(0));
  const sum = { read: 0, write: 0, localWrite: 0, recordsRead: 0, roundTrips: 0, cpuMs: 0 };
  for (let i = 1; i <= SAMPLES; i++) {
    dynamoStats.reset();
    trueUnits.reset();
    const cpu = process.cpuUsage();
    await send(stack, sample(i));
    const used = process.cpuUsage(cpu);
    // The counting's own reads are no part of the request.
    sum.cpuMs += (used.user + used.system) / 1000 - trueUnits.cpuMs;
    sum.roundTrips += dynamoStats.roundTrips;
    sum.read += dynamoStats.units.read + dynamoStats.units.indexRead + trueUnits.units.read;
    sum.write += trueUnits.units.write + trueUnits.units.indexWrite;
    sum.localWrite += dynamoStats.units.write + dynamoStats.units.indexWrite;
    const records =
      besideUnits === undefined ? undefined : dynamoStats.log.findLast((c) => c.command === 'BatchGetItemCommand');
    if (besideUnits !== undefined && !records) throw new Error(`${sample(i).path}: no records read`);
    sum.recordsRead += records ? records.read + records.indexRead - besideUnits! : 0;
  }
  const avg = (n: number): number => n / SAMPLES;
  return {
    read: avg(sum.read),
    write: avg(sum.write),
    localWrite: avg(sum.localWrite),
    recordsRead: avg(sum.recordsRead),
    roundTrips: avg(sum.roundTrips),
    cpuMs: avg(sum.cpuMs),
  };
}

/** Every request type of the mixes, measured on one table. */
async function measureAll(tableName: string, indexes: readonly IndexDefinition[]): Promise<Record<string, Measured>> {
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  const stack = await startBenchStack(tableName, fixture, indexes);
  try {
    const since = new Date().toISOString();
    const ids: string[] = [];
    // A list of a few pages and a change feed of more than one page of 100 entries.
    for (let i = 0; i < APPLICATIONS; i++)
      ids.push(
        (
          (await send(stack, {
            method: 'POST',
            path: '/applications',
            body: applicant(i, i % 2 ? 'cook-2026' : null),
          })) as { id: string }
        ).id,
      );
    const employee = (await send(stack, {
      method: 'POST',
      path: '/employees',
      body: { first_name: 'Ana', last_name: 'Lopez', email: 'ana.lopez@example.com' },
    })) as { id: string };
    // From here on every write's units by DynamoDB's rules (the setup above is not measured).
    countTrueUnits(indexes);
    const pick = (i: number): string => ids[(i * 37) % ids.length]!;
    const page = (query: string) => (i: number) => ({
      method: 'GET',
      path: `/applications?per_page=30&page=${1 + (i % 2)}${query}`,
    });
    const unitsOf = async (key: Key): Promise<number> => {
      const out = await db().send(new GetCommand({ TableName: tableName, Key: key, ReturnConsumedCapacity: 'TOTAL' }));
      // Read eventually consistent with the records: half the units of this consistent read.
      return (out.ConsumedCapacity?.CapacityUnits ?? 0) / 2;
    };
    const besideUnits =
      (await unitsOf(business.configKey(fixture.business.id))) + (await unitsOf(tokenKeyOf(stack.token)));
    const statuses = ['interview', 'hired', 'rejected', 'new'];
    const out: Record<string, Measured> = {};
    out['list applications'] = await measure(stack, page(''), besideUnits);
    out['list applications by status'] = await measure(stack, page('&application_status_id=new'), besideUnits);
    out['list applications by job'] = await measure(stack, page('&job_id=cook-2026'), besideUnits);
    out['list applications updated since'] = await measure(stack, page(`&updated_at_since=${since}`), besideUnits);
    out['get application'] = await measure(stack, (i) => ({ method: 'GET', path: `/applications/${pick(i)}` }));
    out['change feed page'] = await measure(stack, () => ({ method: 'GET', path: '/changes?limit=100' }));
    out['get employee'] = await measure(stack, () => ({ method: 'GET', path: `/employees/${employee.id}` }));
    out['update application name'] = await measure(stack, (i) => ({
      method: 'PUT',
      path: `/applications/${pick(i)}`,
      body: { first_name: `Lea${i}` },
    }));
    out['update application status'] = await measure(stack, (i) => ({
      method: 'PUT',
      path: `/applications/${pick(i + 50)}`,
      body: { application_status_id: statuses[i % statuses.length] },
    }));
    out['create application'] = await measure(stack, (i) => ({
      method: 'POST',
      path: '/applications',
      body: applicant(1000 + i, i % 2 ? 'cook-2026' : null),
    }));
    out['create employee'] = await measure(stack, (i) => ({
      method: 'POST',
      path: '/employees',
      body: { first_name: 'Ana', last_name: `Lopez${i}`, email: `ana.lopez.${i}@example.com` },
    }));
    return out;
  } finally {
    await stack.stop();
  }
}

/**
 * USD of one request of a design, from what was measured on the key-only and the ALL table (`local`: with the
 * write units as DynamoDB Local reports them, for comparison).
 */
function requestCost(
  design: Design,
  keys: Measured,
  all: Measured,
  local = false,
): { usd: number; read: number; write: number } {
  const measured = design === 'all-projection' ? all : keys;
  const m = local ? { ...measured, write: measured.localWrite } : measured;
  let read = m.read;
  let roundTrips = m.roundTrips;
  if (design === 'all-projection' && m.recordsRead > 0) {
    read -= m.recordsRead;
    roundTrips -= 1;
  }
  if (design === 'keys-only+consistent-records') read += m.recordsRead;
  const gbSeconds = (FUNCTION_SETTINGS.memorySize / 1024) * (Math.ceil(m.cpuMs + roundTrips * ROUND_TRIP_MS) / 1000);
  const usd =
    (PRICES.http_api_per_million_requests +
      PRICES.lambda_arm64_per_million_requests +
      PRICES.dynamodb_per_million_write_units * m.write +
      PRICES.dynamodb_per_million_read_units * read) /
      1e6 +
    gbSeconds * PRICES.lambda_per_gb_second;
  return { usd, read, write: m.write };
}

const round = (usd: number): number => Math.round(usd * 1000) / 1000;

async function main(): Promise<void> {
  // Each request's calls in order: which BatchGetItem read a list page's records.
  dynamoStats.keepLog = true;
  const allIndexes: IndexDefinition[] = TABLE.indexes.map(({ include: _include, ...keysOnly }) => keysOnly);
  const keys = await measureAll('bench-cost-keys', TABLE.indexes);
  const all = await measureAll('bench-cost-all', allIndexes);

  console.log(
    `\nPer request (mean of ${SAMPLES}; reads as DynamoDB Local reports them, writes by DynamoDB's rules; Local's write units and USD beside):`,
  );
  console.log(
    'request | design | read units | write units | USD per million | Local: write units | Local: USD per million',
  );
  for (const name of Object.keys(keys))
    for (const design of DESIGNS) {
      const c = requestCost(design, keys[name]!, all[name]!);
      const l = requestCost(design, keys[name]!, all[name]!, true);
      console.log(
        `${name} | ${design} | ${c.read.toFixed(1)} | ${c.write.toFixed(1)} | ${(c.usd * 1e6).toFixed(3)} | ${l.write.toFixed(1)} | ${(l.usd * 1e6).toFixed(3)}`,
      );
    }

  const result: Record<string, unknown> = { prices: PRICES };
  for (const [mix, shares] of Object.entries(MIXES)) {
    const designs = Object.fromEntries(
      DESIGNS.map((design) => [
        design,
        round(
          Object.entries(shares).reduce(
            (sum, [name, share]) => sum + share * requestCost(design, keys[name]!, all[name]!).usd * 1e6,
            0,
          ),
        ),
      ]),
    );
    result[mix] = { chosen: designs[CHOSEN], designs };
    const cheapest = Math.min(...Object.values(designs));
    const localUsd = round(
      Object.entries(shares).reduce(
        (sum, [name, share]) => sum + share * requestCost(CHOSEN, keys[name]!, all[name]!, true).usd * 1e6,
        0,
      ),
    );
    console.log(
      `${mix}: chosen ${CHOSEN} ${designs[CHOSEN]} USD per million, ${(designs[CHOSEN]! / cheapest).toFixed(2)}x the cheapest (with DynamoDB Local's write units: ${localUsd})`,
    );
  }
  console.log(
    `Lambda: ${FUNCTION_SETTINGS.memorySize} MB arm64, billed duration = node CPU measured + ${ROUND_TRIP_MS} ms per DynamoDB round trip (assumed)`,
  );
  console.log(JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench`: what a page of GET /applications costs, page 1 vs a middle
 * page vs the last page, for every filter (docs/pagination.md).
 *
 * Starts its own in-memory DynamoDB Local, imports a business, seeds
 * BENCH_APPLICATIONS (default 3,000) applications directly (the items,
 * counters and status blocks the API itself would have written), then sends
 * real HTTP requests through the deployed handlers (local server) and reads
 * the per-request DynamoDB statistics: calls, items read, consumed capacity.
 */
import type { AddressInfo } from 'node:net';
import type { StoredApplication } from '../src/data/application-store';
import { batchPut } from '../src/data/table-io';
import { seedItems } from './lib/seed-applications';
import { importBusiness } from '../src/data/business-store';
import { dynamoStats, resetClient } from '../src/data/client';
import { issueToken } from '../src/data/token-store';
import { MAP_SIZE } from '../src/domain/list-map';
import { buildBusiness } from '../src/domain/fixture';
import { parseFixture } from '../src/schemas/fixture';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { createLocalServer } from './lib/server';
import { benchChangeFeed } from './lib/bench-feed';

const N = Number(process.env.BENCH_APPLICATIONS ?? 3000);
const PER_PAGE = 30;
const REPEAT = 5;
const BUSINESS = 'bench';

const fixture = {
  business: { id: BUSINESS, name: 'Bench', locales: ['de', 'en'], timezone: 'Europe/Rome' },
  application_statuses: [
    { id: 'new', name_de: 'Neu', default: true },
    { id: 'interview', name_de: 'Gespräch' },
    { id: 'hired', name_de: 'Eingestellt' },
    { id: 'rejected', name_de: 'Abgelehnt' },
  ],
  job_openings: [
    { id: 'cook', name_de: 'Koch' },
    { id: 'waiter', name_de: 'Kellner' },
    { id: 'spa', name_de: 'Spa' },
  ],
  application_fields: [
    { id: '31', type_of: 'text', name_de: 'Motivation', required: false },
    { id: '32', type_of: 'integer', name_de: 'Erfahrung', required: false },
  ],
};

/** Deterministic pseudo-random mix (no dependency, same data every run). */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: number, table: readonly [T, number][]): T => {
  let acc = 0;
  for (const [value, weight] of table) {
    acc += weight;
    if (r < acc) return value;
  }
  return table[table.length - 1]![0];
};

const START = Date.parse('2026-01-01T08:00:00.000Z');
const createdAtOf = (i: number): string => new Date(START + i * 60_000).toISOString();
/** 10 % of the applications were updated after all creations. */
const UPDATED_FROM = new Date(START + (N + 10) * 60_000).toISOString();

function applications(): StoredApplication[] {
  const rnd = mulberry32(42);
  return Array.from({ length: N }, (_, i) => {
    const created = createdAtOf(i);
    const updated = rnd() < 0.1 ? new Date(Date.parse(UPDATED_FROM) + i * 1000).toISOString() : created;
    return {
      id: `app-${String(i + 1).padStart(6, '0')}`,
      job_id: pick(rnd(), [
        ['cook', 0.4],
        ['waiter', 0.3],
        ['spa', 0.1],
        [null, 0.2],
      ] as const),
      application_status_id: pick(rnd(), [
        ['new', 0.5],
        ['interview', 0.25],
        ['hired', 0.1],
        ['rejected', 0.15],
      ] as const),
      accept_terms_and_conditions: true,
      accept_archivation: rnd() < 0.5,
      language: 'de',
      campaign_id: rnd() < 0.3 ? 'spring-campaign' : null,
      first_name: `Applicant ${i + 1}`,
      last_name: 'Mustermann-Bergstein',
      gender: pick(rnd(), [
        ['female', 0.45],
        ['male', 0.45],
        ['diverse', 0.1],
      ] as const),
      email: `applicant${i + 1}@example.com`,
      phone: '+39 0471 555 0000',
      birthday: '1994-05-17',
      cf: { cf_31: 'I would love to work in your team because of its great reputation.', cf_32: i % 20 },
      created_at: created,
      updated_at: updated,
      version: updated === created ? 1 : 2,
    };
  });
}

interface Measure {
  calls: number;
  items: number;
  capacity: number;
  ms: number;
  total: number;
  entries: number;
}

async function measure(base: string, token: string, query: string): Promise<Measure> {
  const times: number[] = [];
  let last: Measure | undefined;
  for (let i = 0; i < REPEAT; i++) {
    dynamoStats.reset();
    const t0 = performance.now();
    const res = await fetch(`${base}/services/api/v1/applications?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { entries: unknown[]; total_entries: number };
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
    last = {
      calls: dynamoStats.calls,
      items: dynamoStats.itemsRead,
      capacity: dynamoStats.capacityUnits,
      ms: 0,
      total: body.total_entries,
      entries: body.entries.length,
    };
  }
  times.sort((a, b) => a - b);
  return { ...last!, ms: times[Math.floor(times.length / 2)]! };
}

const fmt = (n: number, digits = 1): string => (Number.isInteger(n) ? String(n) : n.toFixed(digits));

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const dynamo = await startDynamoLocal();
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-pagination';
    resetClient();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);

    const parsed = parseFixture(fixture);
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const { config, records } = buildBusiness(parsed.fixture);
    await importBusiness(config, records);
    const token = await issueToken(BUSINESS, 'bench');

    const apps = applications();
    const t0 = performance.now();
    const items = seedItems(BUSINESS, config, apps);
    await batchPut(items);
    console.log(
      `Seeded ${N} applications (${items.length} items incl. counters and position maps, ${MAP_SIZE} positions per map) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const server = createLocalServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const midSince = apps[Math.floor(N / 3) + 17]!.created_at; // inside a block, ~2/3 of the list after it
    const filters: [string, string][] = [
      ['none', ''],
      ['job_id', 'job_id=cook'],
      ['job_id=null', 'job_id=null'],
      ['created_at_since', `created_at_since=${midSince}`],
      ['job_id + created_at_since', `job_id=waiter&created_at_since=${midSince}`],
      ['application_status_id', 'application_status_id=interview'],
      ['status + created_at_since', `application_status_id=new&created_at_since=${midSince}`],
      ['updated_at_since', `updated_at_since=${UPDATED_FROM}`],
      ['job_id + status', 'job_id=cook&application_status_id=hired'],
    ];

    const rows: string[][] = [];
    const summary: string[][] = [];
    for (const [label, q] of filters) {
      const first = await measure(base, token, `${q}&per_page=${PER_PAGE}&page=1`);
      const lastPage = Math.max(1, Math.ceil(first.total / PER_PAGE));
      const midPage = Math.max(1, Math.ceil(lastPage / 2));
      const mid = await measure(base, token, `${q}&per_page=${PER_PAGE}&page=${midPage}`);
      const last = await measure(base, token, `${q}&per_page=${PER_PAGE}&page=${lastPage}`);
      for (const [name, m, page] of [
        ['first', first, 1],
        ['middle', mid, midPage],
        ['last', last, lastPage],
      ] as const) {
        rows.push([
          label,
          `${name} (${page})`,
          String(m.entries),
          String(m.total),
          String(m.calls),
          String(m.items),
          fmt(m.capacity),
          fmt(m.ms),
        ]);
      }
      const ratio = (a: number, b: number): string => (b === 0 ? '-' : (a / b).toFixed(2));
      // The worst later page against page 1 (the last page may be short, so the middle one counts too).
      const worst = (f: (m: Measure) => number): number => Math.max(f(mid), f(last));
      summary.push([
        label,
        String(first.total),
        ratio(
          worst((m) => m.calls),
          first.calls,
        ),
        ratio(
          worst((m) => m.items),
          first.items,
        ),
        ratio(
          worst((m) => m.capacity),
          first.capacity,
        ),
      ]);
    }
    server.close();

    const table = (header: string[], body: string[][]): string => {
      const lines = [header, header.map(() => '---'), ...body].map((r) => `| ${r.join(' | ')} |`);
      return lines.join('\n');
    };
    console.log(
      `\nGET /applications, ${N} applications, per_page ${PER_PAGE}, median of ${REPEAT} runs (DynamoDB Local, in memory)\n`,
    );
    console.log(
      table(['filter', 'page', 'entries', 'total', 'DynamoDB calls', 'items read', 'capacity (RCU)', 'ms'], rows),
    );
    console.log('\nRatio worst later page (middle or last) / first page\n');
    console.log(table(['filter', 'total_entries', 'calls', 'items read', 'capacity'], summary));
    console.log(
      '\nCalls include authentication (1 GetItem). Capacity is what DynamoDB reports for the Query calls (ReturnConsumedCapacity TOTAL); ' +
        'the auth GetItem and the config/counter BatchGetItem (1 consistent read unit each, the same on every page) are not included.',
    );
    // The change feed's costs: its own section and business (scripts/lib/bench-feed.ts).
    await benchChangeFeed(fixture);
  } finally {
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench`: what a page of GET /applications costs, page 1 vs a middle
 * page vs the last page, for every filter (docs/pagination.md), in a business
 * of N and one of 4N applications (growth), a full updated_at_since sync by
 * page numbers, and a business with half of its applications erased.
 *
 * Starts its own in-memory DynamoDB Local, imports the businesses, seeds
 * BENCH_APPLICATIONS (N, default 5,000; 4N = 20,000) applications directly
 * (the items, counters and position maps the API itself would have written),
 * then sends real HTTP requests through the deployed handlers (local server);
 * employees and employee jobs (N/10 and 4N/10 of each) are created through
 * the API and paged the same way,
 * and reads the per-request DynamoDB statistics: calls, items read, consumed
 * capacity.
 */
import type { AddressInfo } from 'node:net';
import { dynamoStats, resetClient } from '../src/data/dynamo/client';
import { forgetPageHints } from '../src/data/lists/hints';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { createLocalServer } from './lib/server';
import { benchChangeFeed } from './lib/bench-feed';
import { fixture, seedBusiness, updatedFromOf, type Seeded } from './lib/bench-applications';

/** N: the small business; the large one has 4N (default 20,000) applications. */
const N = Number(process.env.BENCH_APPLICATIONS ?? 5000);
const PER_PAGE = 30;
const REPEAT = 5;
const BUSINESS = 'bench';

interface Measure {
  calls: number;
  /** Calls of the first of the runs, on an instance that had not read this list before (no page hint). */
  coldCalls: number;
  items: number;
  /** Of items, the key-only index entries (the rest: config, summary, maps, records by key). */
  indexItems: number;
  capacity: number;
  ms: number;
  total: number;
  entries: number;
}

async function measure(base: string, token: string, query: string, list = 'applications'): Promise<Measure> {
  const times: number[] = [];
  let last: Measure | undefined;
  let coldCalls = 0;
  forgetPageHints();
  for (let i = 0; i < REPEAT; i++) {
    dynamoStats.reset();
    const t0 = performance.now();
    const res = await fetch(`${base}/services/api/v1/${list}?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { entries: unknown[]; total_entries: number };
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
    if (i === 0) coldCalls = dynamoStats.calls;
    last = {
      calls: dynamoStats.calls,
      coldCalls,
      items: dynamoStats.itemsRead,
      indexItems: dynamoStats.indexItemsRead,
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
const ratio = (a: number, b: number): string => (b === 0 ? '-' : (a / b).toFixed(2));
const table = (header: string[], body: string[][]): string =>
  [header, header.map(() => '---'), ...body].map((r) => `| ${r.join(' | ')} |`).join('\n');

const filtersOf = (s: Seeded): [string, string][] => {
  const midSince = s.apps[Math.floor(s.n / 3) + 17]!.created_at; // inside a superblock, ~2/3 of the list after it
  return [
    ['none', ''],
    ['job_id', 'job_id=cook'],
    ['job_id=null', 'job_id=null'],
    ['created_at_since', `created_at_since=${midSince}`],
    ['job_id + created_at_since', `job_id=waiter&created_at_since=${midSince}`],
    ['application_status_id', 'application_status_id=interview'],
    ['status + created_at_since', `application_status_id=new&created_at_since=${midSince}`],
    ['updated_at_since', `updated_at_since=${updatedFromOf(s.n)}`],
    ['job_id + status', 'job_id=cook&application_status_id=hired'],
  ];
};

interface Pages {
  readonly first: Measure;
  readonly mid: Measure;
  readonly last: Measure;
  readonly midPage: number;
  readonly lastPage: number;
}

async function pagesOf(base: string, token: string, q: string, list = 'applications'): Promise<Pages> {
  const first = await measure(base, token, `${q}&per_page=${PER_PAGE}&page=1`, list);
  const lastPage = Math.max(1, Math.ceil(first.total / PER_PAGE));
  const midPage = Math.max(1, Math.ceil(lastPage / 2));
  const mid = await measure(base, token, `${q}&per_page=${PER_PAGE}&page=${midPage}`, list);
  const last = await measure(base, token, `${q}&per_page=${PER_PAGE}&page=${lastPage}`, list);
  return { first, mid, last, midPage, lastPage };
}

/**
 * `count` employees, each with one job, created through the API (POST, 8 at a time), in a business of its own:
 * their lists are written as a client's creates write them (reserved positions, summary and map shards).
 */
async function createPeople(base: string, token: string, count: number): Promise<void> {
  const post = async (path: string, body: unknown): Promise<{ id: string }> => {
    const res = await fetch(`${base}/services/api/v1/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const out = (await res.json()) as { id: string };
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const { id } = await post('employees', { first_name: 'Bench', last_name: `Person ${i}` });
      await post('employee_jobs', { employee_id: id, name: 'Cook', from: '2026-01-01' });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Every page of a list, per_page 100, from page 1 to the last: what a full sync by page numbers reads. */
async function fullSync(
  base: string,
  token: string,
  q: string,
): Promise<{ pages: number; calls: number; items: number; indexItems: number; total: number }> {
  const sum = { pages: 0, calls: 0, items: 0, indexItems: 0, total: 0 };
  for (let page = 1; ; page++) {
    dynamoStats.reset();
    const res = await fetch(`${base}/services/api/v1/applications?${q}&per_page=100&page=${page}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { entries: unknown[]; total_entries: number };
    if (res.status !== 200) throw new Error(`${q}: ${res.status} ${JSON.stringify(body)}`);
    sum.pages += 1;
    sum.calls += dynamoStats.calls;
    sum.items += dynamoStats.itemsRead;
    sum.indexItems += dynamoStats.indexItemsRead;
    sum.total = body.total_entries;
    if (page * 100 >= body.total_entries) return sum;
  }
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const dynamo = await startDynamoLocal();
  const began = performance.now();
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-pagination';
    resetClient();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);

    const sizes = [await seedBusiness(BUSINESS, N), await seedBusiness(`${BUSINESS}-4n`, 4 * N)];
    const holey = await seedBusiness(`${BUSINESS}-erased`, N, 0.5);

    // Every call reports its units (the records' BatchGetItem is most of a page's read units now).
    process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
    const server = createLocalServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const measured: Map<string, Pages>[] = [];
    for (const s of sizes) {
      const rows: string[][] = [];
      const summary: string[][] = [];
      const byFilter = new Map<string, Pages>();
      for (const [label, q] of filtersOf(s)) {
        const p = await pagesOf(base, s.token, q);
        byFilter.set(label, p);
        for (const [name, m, page] of [
          ['first', p.first, 1],
          ['middle', p.mid, p.midPage],
          ['last', p.last, p.lastPage],
        ] as const) {
          rows.push([
            label,
            `${name} (${page})`,
            String(m.entries),
            String(m.total),
            `${m.calls} (${m.coldCalls})`,
            `${m.items} (${m.indexItems})`,
            fmt(m.capacity),
            fmt(m.ms),
          ]);
        }
        // The worst later page against page 1 (the last page may be short, so the middle one counts too).
        const worst = (f: (m: Measure) => number): number => Math.max(f(p.mid), f(p.last));
        summary.push([
          label,
          String(p.first.total),
          ratio(
            worst((m) => m.calls),
            p.first.calls,
          ),
          ratio(
            worst((m) => m.items),
            p.first.items,
          ),
          ratio(
            worst((m) => m.capacity),
            p.first.capacity,
          ),
        ]);
      }
      measured.push(byFilter);
      console.log(
        `\nGET /applications, ${s.n} applications, per_page ${PER_PAGE}, median of ${REPEAT} runs (DynamoDB Local, in memory)\n`,
      );
      console.log(
        table(
          [
            'filter',
            'page',
            'entries',
            'total',
            'DynamoDB calls (cold)',
            'items read (index entries)',
            'read units',
            'ms',
          ],
          rows,
        ),
      );
      console.log('\nRatio worst later page (middle or last) / first page\n');
      console.log(table(['filter', 'total_entries', 'calls', 'items read', 'capacity'], summary));
    }
    console.log(
      '\nCalls include authentication (the token GetItem); (cold): the first request on an instance without the page hint of that list ' +
        '(its maps in a call of their own). Items read: every item DynamoDB read, of them (index entries) the key-only entries of ' +
        'the page Query; the rest are the token, config, summary, maps and the records by key. Read units: what DynamoDB reports ' +
        'for every call (ReturnConsumedCapacity INDEXES), the token included.',
    );

    // Growth N -> 4N: the worst of page 1 and the middle page (the last page may be short).
    const growth: string[][] = [];
    for (const [label] of filtersOf(sizes[0]!)) {
      const [small, large] = measured.map((m) => m.get(label)!);
      const cell = (p: Pages): string =>
        `${Math.max(p.first.calls, p.mid.calls)} (${Math.max(p.first.coldCalls, p.mid.coldCalls)}), ${p.first.items} / ${p.mid.items} (${p.first.indexItems} / ${p.mid.indexItems}), ${fmt(p.first.capacity)} / ${fmt(p.mid.capacity)} RU`;
      // Read units are what a page costs: a Query of a map's 16 shards reads 16 small items billed as their bytes.
      growth.push([
        label,
        `${small!.first.total} → ${large!.first.total}`,
        cell(small!),
        cell(large!),
        ratio(
          Math.max(large!.first.capacity, large!.mid.capacity),
          Math.max(small!.first.capacity, small!.mid.capacity),
        ),
        ratio(Math.max(large!.first.items, large!.mid.items), Math.max(small!.first.items, small!.mid.items)),
      ]);
    }
    console.log(
      `\nGrowth N = ${N} → 4N = ${4 * N} (calls warm (cold), items read page 1 / middle page (of them index entries), read units page 1 / middle page; per_page ${PER_PAGE})\n`,
    );
    console.log(
      table(
        [
          'filter',
          'total_entries',
          'N: calls, items, units',
          '4N: calls, items, units',
          'growth 4N/N (read units)',
          '(items)',
        ],
        growth,
      ),
    );

    // Employees and employee jobs (lists with holes, paged by the same read as applications): N/10 and 4N/10 of each,
    // created through the API.
    const people: string[][] = [];
    const peopleGrowth = new Map<string, Pages[]>();
    for (const n of [N / 10, (4 * N) / 10]) {
      const seeded = await seedBusiness(`${BUSINESS}-people-${n}`, 0);
      await createPeople(base, seeded.token, n);
      for (const list of ['employees', 'employee_jobs']) {
        const p = await pagesOf(base, seeded.token, '', list);
        peopleGrowth.set(list, [...(peopleGrowth.get(list) ?? []), p]);
        people.push([
          `GET /${list}`,
          String(p.first.total),
          `${p.first.calls} / ${p.mid.calls} / ${p.last.calls} (cold ${p.first.coldCalls})`,
          `${p.first.items} / ${p.mid.items} / ${p.last.items}`,
          `${fmt(p.first.capacity)} / ${fmt(p.mid.capacity)} / ${fmt(p.last.capacity)}`,
        ]);
      }
    }
    console.log(`
Employees and employee jobs, created through the API: page 1 / middle / last page (per_page ${PER_PAGE})
`);
    console.log(table(['list', 'total_entries', 'calls', 'items read', 'read units'], people));
    for (const [list, [small, large]] of peopleGrowth)
      console.log(
        `GET /${list} growth ${small!.first.total} → ${large!.first.total}: items read ${ratio(
          Math.max(large!.first.items, large!.mid.items, large!.last.items),
          Math.max(small!.first.items, small!.mid.items, small!.last.items),
        )}, read units ${ratio(
          Math.max(large!.first.capacity, large!.mid.capacity, large!.last.capacity),
          Math.max(small!.first.capacity, small!.mid.capacity, small!.last.capacity),
        )}, calls ${ratio(Math.max(large!.first.calls, large!.mid.calls), Math.max(small!.first.calls, small!.mid.calls))} (4N / N, worst page)`,
      );

    // A full sync by page numbers over updated_at_since: items read against the number of matches.
    const syncs: string[][] = [];
    for (const s of sizes) {
      const sync = await fullSync(base, s.token, `updated_at_since=${updatedFromOf(s.n)}`);
      syncs.push([
        String(s.n),
        String(sync.total),
        String(sync.pages),
        String(sync.calls),
        `${sync.items} (${sync.indexItems})`,
        `${(sync.items / Math.max(1, sync.total)).toFixed(2)} (${(sync.indexItems / Math.max(1, sync.total)).toFixed(2)})`,
      ]);
    }
    console.log('\nFull updated_at_since sync by page numbers (per_page 100, page 1 to the last)\n');
    console.log(
      table(
        [
          'applications',
          'matches',
          'pages',
          'DynamoDB calls',
          'items read (index entries)',
          'items read per match (index entries)',
        ],
        syncs,
      ),
    );

    // Half of a business erased at random: a middle page against page 1.
    const bounds: Record<string, number> = {
      none: 1.2,
      job_id: 1.2,
      'job_id=null': 1.2,
      application_status_id: 3,
      'job_id + status': 3,
      'status + created_at_since': 3,
    };
    const erasedRows: string[][] = [];
    for (const [label, q] of filtersOf(holey)) {
      const p = await pagesOf(base, holey.token, q);
      const r = Math.max(p.mid.capacity, p.last.capacity) / p.first.capacity;
      const bound = bounds[label];
      erasedRows.push([
        label,
        String(p.first.total),
        `${p.first.calls} / ${p.mid.calls} (cold ${p.first.coldCalls})`,
        `${p.first.items} / ${p.mid.items} / ${p.last.items} (${p.first.indexItems} / ${p.mid.indexItems} / ${p.last.indexItems})`,
        `${fmt(p.first.capacity)} / ${fmt(p.mid.capacity)} / ${fmt(p.last.capacity)}`,
        r.toFixed(2),
        bound === undefined ? '-' : `${bound}× ${r <= bound ? 'ok' : 'OVER'}`,
      ]);
    }
    console.log(
      `\n${holey.n} applications, ${holey.erased} of them erased at random (holes in every list): page 1 / middle / last page\n`,
    );
    console.log(
      table(
        [
          'filter',
          'total_entries',
          'calls (first / middle)',
          'items read',
          'read units',
          'worst later / first (read units)',
          'bound',
        ],
        erasedRows,
      ),
    );
    server.close();
    // The change feed's costs: its own section and business (scripts/lib/bench-feed.ts).
    await benchChangeFeed(fixture);
    console.log(`\nnpm run bench (pagination and feed part) took ${((performance.now() - began) / 1000).toFixed(0)} s`);
  } finally {
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

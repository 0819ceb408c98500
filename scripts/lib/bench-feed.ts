/**
 * The change feed's part of `npm run bench` (docs/change-feed.md): what one
 * GET /changes page costs at a history of N and 4N changes (first page, a
 * page in the middle, the last page), and a full sync that follows
 * next_cursor from the start: items read against the number of changes.
 *
 * The history is seeded through the feed store's item builder (what the
 * writers' transactions leave behind: dense lanes and their counters), not
 * through HTTP. BENCH_FEED_CHANGES (default 2,500) is N.
 */
import type { AddressInfo } from 'node:net';
import { batchPut } from '../../src/data/dynamo/table-io';
import { importBusiness } from '../../src/data/business-store';
import { dynamoStats } from '../../src/data/dynamo/client';
import { entryItem } from '../../src/data/feed-store';
import { feedLane } from '../../src/data/entities/feed-lane';
import { issueToken } from '../../src/data/token-store';
import { LANE_COUNT, dayMarkOf, encodeCursor } from '../../src/domain/change-feed';
import { buildBusiness } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';
import { createLocalServer } from './server';

const BUSINESS = 'bench-feed';
const LIMIT = 100;

/** A typical application as its GET answers (the entries' data). */
const sample = (i: number) => ({
  id: `app-${i}`,
  job_id: 'cook',
  application_status_id: 'new',
  accept_terms_and_conditions: true,
  accept_archivation: false,
  language: 'de',
  campaign_id: null,
  first_name: 'Lena',
  last_name: `Huber ${i}`,
  gender: null,
  email: `applicant${i}@example.com`,
  phone: '+39 0471 555 0000',
  birthday: '1994-05-17',
  cf_31: 'I would love to work in your team because of its great reputation.',
  created_at: '2026-01-01T08:00:00.000Z',
  updated_at: '2026-01-01T08:00:00.000Z',
});

interface PageCost {
  calls: number;
  items: number;
  capacity: number;
  entries: number;
}

async function page(base: string, token: string, after: string | undefined): Promise<PageCost & { next: string }> {
  dynamoStats.reset();
  const res = await fetch(
    `${base}/services/api/v1/changes?limit=${LIMIT}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  const body = (await res.json()) as { entries: unknown[]; next_cursor: string };
  if (res.status !== 200) throw new Error(`changes: ${res.status} ${JSON.stringify(body)}`);
  return {
    calls: dynamoStats.calls,
    items: dynamoStats.itemsRead,
    capacity: dynamoStats.capacityUnits,
    entries: body.entries.length,
    next: body.next_cursor,
  };
}

const table = (header: string[], body: string[][]): string =>
  [header, header.map(() => '---'), ...body].map((r) => `| ${r.join(' | ')} |`).join('\n');
const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));

export async function benchChangeFeed(fixture: object): Promise<void> {
  const server = createLocalServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, fixture);
  } finally {
    server.close();
  }
}

async function run(base: string, fixture: object): Promise<void> {
  const n = Number(process.env.BENCH_FEED_CHANGES ?? 2500);
  const parsed = parseFixture({
    ...fixture,
    business: { ...(fixture as { business: object }).business, id: BUSINESS },
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  const token = await issueToken(BUSINESS, 'bench');

  const seqs = new Array<number>(LANE_COUNT).fill(0);
  const start = Date.now() - 60 * 60 * 1000;
  let seeded = 0;
  /** Appends `count` changes round-robin over the lanes (as 16 writers' transactions would) and writes the counters. */
  const seed = async (count: number): Promise<void> => {
    const items = [];
    for (let i = 0; i < count; i++) {
      const lane = seeded % LANE_COUNT;
      seqs[lane] = (seqs[lane] as number) + 1;
      const at = new Date(start + seeded).toISOString();
      items.push(
        entryItem(BUSINESS, lane, seqs[lane] as number, {
          type: 'application.updated',
          id: `app-${seeded}`,
          occurred_at: at,
          data: sample(seeded),
        }),
      );
      seeded += 1;
    }
    const day = dayMarkOf(new Date(start).toISOString());
    for (let lane = 0; lane < LANE_COUNT; lane++)
      items.push({ ...feedLane.counterKey(BUSINESS, lane), [feedLane.counterAttributes.last]: seqs[lane], [day]: 1 });
    await batchPut(items);
  };

  const previous = process.env.DYNAMODB_CAPACITY_DETAIL;
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  try {
    const rows: string[][] = [];
    const syncs: string[][] = [];
    for (const history of [n, 4 * n]) {
      const t0 = performance.now();
      await seed(history - seeded);
      const seedSeconds = ((performance.now() - t0) / 1000).toFixed(1);
      const at = (fraction: number): string =>
        encodeCursor(
          BUSINESS,
          seqs.map((s) => Math.floor(s * fraction)),
        );
      const nearEnd = encodeCursor(
        BUSINESS,
        seqs.map((s) => Math.max(0, s - Math.ceil(LIMIT / LANE_COUNT / 2))),
      );
      for (const [label, after] of [
        ['first (no cursor)', undefined],
        ['middle', at(0.5)],
        ['last', nearEnd],
      ] as const) {
        const m = await page(base, token, after);
        rows.push([String(history), label, String(m.entries), String(m.calls), String(m.items), fmt(m.capacity)]);
      }
      // A full sync from the start, following next_cursor until a page is empty.
      const total = { pages: 0, calls: 0, items: 0, capacity: 0, entries: 0 };
      for (let after: string | undefined; ;) {
        const m = await page(base, token, after);
        total.pages += 1;
        total.calls += m.calls;
        total.items += m.items;
        total.capacity += m.capacity;
        total.entries += m.entries;
        if (m.entries === 0) break;
        after = m.next;
      }
      if (total.entries !== history) throw new Error(`sync read ${total.entries} of ${history} changes`);
      syncs.push([
        String(history),
        seedSeconds,
        String(total.pages),
        String(total.calls),
        String(total.items),
        (total.items / history).toFixed(2),
        fmt(total.capacity),
      ]);
    }
    console.log(
      `\nGET /changes, limit ${LIMIT}, history of N and 4N changes over ${LANE_COUNT} lanes (docs/change-feed.md)\n`,
    );
    console.log(table(['changes', 'page', 'entries', 'DynamoDB calls', 'items read', 'capacity (RCU)'], rows));
    console.log('\nFull sync via the feed (no updated_at_since): follow next_cursor from the start until empty\n');
    console.log(
      table(
        ['changes', 'seeded in s', 'pages', 'DynamoDB calls', 'items read', 'items read per change', 'capacity (RCU)'],
        syncs,
      ),
    );
    console.log(
      `\nA page reads the ${LANE_COUNT} lane counters and its entries by key (consistent reads, base table): ` +
        `the same cost at N and 4N. Calls and capacity include authentication.`,
    );
  } finally {
    if (previous === undefined) delete process.env.DYNAMODB_CAPACITY_DETAIL;
    else process.env.DYNAMODB_CAPACITY_DETAIL = previous;
  }
}

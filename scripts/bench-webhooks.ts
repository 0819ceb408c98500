/**
 * `npm run bench:webhooks` (contract §14, issue 33): what webhooks cost the
 * local stack, side by side in one run, one process (API, local dispatcher
 * polling every second as `npm start` does, the receivers) plus DynamoDB Local
 * in memory:
 * 1. idle CPU with 0 and with 20 caught-up subscriptions (alternated, so drift
 *    on a shared machine hits both alike): this process and DynamoDB Local;
 * 2. another business's request latency (p50/p99) and webhook delivery delay
 *    (4 creates a second, each delivered to its subscription) while one
 *    business's receiver streams an endless 200 answer, against the same load
 *    without it (also alternated).
 * 3. (run first, before the dispatcher polls) DynamoDB write and read units per
 *    delivered entry: one lane run delivering BENCH_WEBHOOKS_UNIT_ENTRIES
 *    entries, its calls alone counted (the delivery log's writes included).
 * Times are this machine's; only the ratios mean anything.
 *   BENCH_WEBHOOKS_UNIT_ENTRIES (default 50)
 *   BENCH_WEBHOOKS_IDLE_SECONDS (default 20 per idle phase)
 *   BENCH_WEBHOOKS_LOAD_SECONDS (default 15 per load phase)
 *   BENCH_WEBHOOKS_ROUNDS (default 2)
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fixture from '../fixtures/demo.json';
import { importBusiness } from '../src/data/business-store';
import { issueToken } from '../src/data/token-store';
import { buildBusiness } from '../src/domain/fixture';
import { parseFixture } from '../src/schemas/fixture';
import { dynamoStats } from '../src/data/dynamo/client';
import { asDispatcher, pumpSubscription, startLocalDispatcher } from '../src/services/webhook-dispatcher';
import '../src/services/feed-wiring';
import { startBenchStack, type BenchStack } from './lib/bench-stack';

const API = '/services/api/v1';
const IDLE_SECONDS = Number(process.env.BENCH_WEBHOOKS_IDLE_SECONDS ?? 20);
const LOAD_SECONDS = Number(process.env.BENCH_WEBHOOKS_LOAD_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_WEBHOOKS_ROUNDS ?? 2);
const UNIT_ENTRIES = Number(process.env.BENCH_WEBHOOKS_UNIT_ENTRIES ?? 50);
const WRITE_EVERY_MS = 250;
const TICKS_PER_SECOND = 100;

/** The demo business with limits no single client reaches (contract §18): the bench measures latency, not 429s. */
const unlimited = (id: string) => ({
  ...fixture,
  business: {
    ...fixture.business,
    id,
    token_rate_limit: { requests: 100000, window_seconds: 10 },
    rate_limit: { requests: 100000, window_seconds: 10 },
  },
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** CPU seconds a process has used so far (utime + stime of /proc/<pid>/stat). */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
const ownCpuSeconds = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** CPU used per wall second (1.0 = one core) while `run` lasts. */
async function cpuShare(
  dynamoPid: number | undefined,
  run: () => Promise<void>,
): Promise<{ api: number; dynamo: number }> {
  const start = { at: Date.now(), api: ownCpuSeconds(), dynamo: cpuSecondsOf(dynamoPid) };
  await run();
  const wall = (Date.now() - start.at) / 1000;
  return { api: (ownCpuSeconds() - start.api) / wall, dynamo: (cpuSecondsOf(dynamoPid) - start.dynamo) / wall };
}

/** Receivers on 127.0.0.1: `/ok/...` answers 204 and records when; `/stream` answers 200 and never ends. */
class Receivers {
  readonly arrivals = new Map<string, number[]>();
  streamedBytes = 0;
  streams = 0;
  /** How long each streamed answer stayed open before the dispatcher hung up, in ms. */
  readonly streamLasted: number[] = [];
  private server!: Server;
  base = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '/';
        if (path === '/stream') return this.stream(res);
        this.arrivals.set(path, [...(this.arrivals.get(path) ?? []), Date.now()]);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  private stream(res: ServerResponse): void {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let open = true;
    this.streams++;
    const started = Date.now();
    res.on('close', () => {
      open = false;
      this.streamLasted.push(Date.now() - started);
    });
    res.writeHead(200, { 'content-type': 'text/plain' });
    const pump = (): void => {
      for (let more = true; open && more;) {
        more = res.write(chunk);
        this.streamedBytes += chunk.length;
      }
      if (open) res.once('drain', pump);
    };
    pump();
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

async function secondBusiness(): Promise<string> {
  const parsed = parseFixture(unlimited('bench-other'));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  return issueToken(config.id, 'bench');
}

async function subscribe(stack: BenchStack, url: string, token?: string): Promise<string> {
  const res = await stack.send('POST', `${API}/webhook_subscriptions`, { url }, token);
  if (res.status !== 201) throw new Error(`subscribe ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

/**
 * The other business's load for LOAD_SECONDS: one client listing employees back to back, and creating one every
 * WRITE_EVERY_MS (each create is a change its own subscription receives). Latencies of all its requests, and each
 * create's delivery delay.
 */
async function otherBusinessLoad(
  stack: BenchStack,
  receivers: Receivers,
  token: string,
  path: string,
): Promise<{ latencies: number[]; deliveryDelays: number[]; errors: number }> {
  const latencies: number[] = [];
  const commits: number[] = [];
  let errors = 0;
  const before = receivers.arrivals.get(path)?.length ?? 0;
  const end = Date.now() + LOAD_SECONDS * 1000;
  let lastWrite = 0;
  for (let i = 0; Date.now() < end; i++) {
    const started = Date.now();
    const write = started - lastWrite >= WRITE_EVERY_MS;
    if (write) lastWrite = started;
    const res = write
      ? await stack.send('POST', `${API}/employees`, { first_name: 'Load', last_name: `No${i}` }, token)
      : await stack.send('GET', `${API}/employees?per_page=5`, undefined, token);
    latencies.push(Date.now() - started);
    if (res.status >= 300) errors++;
    else if (write) commits.push(Date.now());
  }
  // Wait for the deliveries of the last writes (at most 10 s).
  for (let t = 0; t < 100 && (receivers.arrivals.get(path)?.length ?? 0) - before < commits.length; t++)
    await sleep(100);
  const arrived = (receivers.arrivals.get(path) ?? []).slice(before);
  return { latencies, deliveryDelays: commits.map((c, i) => (arrived[i] ?? NaN) - c), errors };
}

/**
 * 3. Units per delivery: UNIT_ENTRIES changes, then one lane run of a subscription that delivers them all; the run's
 * calls alone are counted (nothing else runs meanwhile), with DynamoDB's capacity per table and index.
 */
async function unitsPerDelivery(
  stack: BenchStack,
  receivers: Receivers,
): Promise<{ entries: number; state: string; ms: number; calls: number; units: typeof dynamoStats.units }> {
  const path = '/ok/units';
  const sub = await subscribe(stack, `${receivers.base}${path}`);
  for (let i = 0; i < UNIT_ENTRIES; i++)
    await stack.send('POST', `${API}/employees`, { first_name: 'Units', last_name: `U${i}` });
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  dynamoStats.reset();
  const started = Date.now();
  const result = await asDispatcher(() => pumpSubscription(stack.businessId, sub, Date.now() + 120_000));
  const measured = { ms: Date.now() - started, calls: dynamoStats.calls, units: { ...dynamoStats.units } };
  delete process.env.DYNAMODB_CAPACITY_DETAIL;
  await stack.send('DELETE', `${API}/webhook_subscriptions/${sub}`);
  return { entries: receivers.arrivals.get(path)?.length ?? 0, state: result.state, ...measured };
}

async function main(): Promise<void> {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_SECRET_KEY ??= Buffer.alloc(32, 7).toString('base64');
  const stack = await startBenchStack('bench-webhooks', unlimited(fixture.business.id));
  const receivers = new Receivers();
  await receivers.start();
  const units = await unitsPerDelivery(stack, receivers);
  const stopDispatcher = startLocalDispatcher(1000, undefined, (error) => console.error('dispatcher:', error));
  try {
    const otherToken = await secondBusiness();
    const otherPath = '/ok/other';
    await subscribe(stack, `${receivers.base}${otherPath}`, otherToken);

    // 1. Idle CPU, 0 vs 20 subscriptions of the first business (all caught up; nothing is written meanwhile).
    const idle: { subs: number; api: number; dynamo: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const subs of [0, 20]) {
        const ids: string[] = [];
        for (let i = 0; i < subs; i++) ids.push(await subscribe(stack, `${receivers.base}/ok/idle-${i}`));
        await sleep(3000); // the first poll after the creates reads them once
        idle.push({ subs, ...(await cpuShare(stack.dynamoPid, () => sleep(IDLE_SECONDS * 1000))) });
        for (const id of ids) await stack.send('DELETE', `${API}/webhook_subscriptions/${id}`);
      }
    }

    // 2. The other business's p99 and delivery delay, with and without a streaming receiver in the first business
    //    (which writes once a second, so the stream is delivered to all the time).
    const streamId = await subscribe(stack, `${receivers.base}/stream`);
    await stack.send('DELETE', `${API}/webhook_subscriptions/${streamId}`);
    const load: {
      streaming: boolean;
      p50: number;
      p99: number;
      deliveryP99: number;
      deliveryMax: number;
      errors: number;
      cpu: { api: number; dynamo: number };
      streamedMiB: number;
      streams: number;
      streamMaxMs: number;
    }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const streaming of [false, true]) {
        const sub = streaming ? await subscribe(stack, `${receivers.base}/stream`) : undefined;
        let writing = true;
        const writer = (async () => {
          for (let i = 0; writing; i++) {
            await stack.send('POST', `${API}/employees`, { first_name: 'Stream', last_name: `W${i}` });
            await sleep(1000);
          }
        })();
        const streamedBefore = receivers.streamedBytes;
        const streamsBefore = receivers.streams;
        let result!: Awaited<ReturnType<typeof otherBusinessLoad>>;
        const cpu = await cpuShare(stack.dynamoPid, async () => {
          result = await otherBusinessLoad(stack, receivers, otherToken, otherPath);
        });
        writing = false;
        await writer;
        if (sub) await stack.send('DELETE', `${API}/webhook_subscriptions/${sub}`);
        const sorted = [...result.latencies].sort((a, b) => a - b);
        const delays = result.deliveryDelays.filter((d) => !Number.isNaN(d)).sort((a, b) => a - b);
        load.push({
          streaming,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          deliveryP99: percentile(delays, 99),
          deliveryMax: delays.at(-1) ?? NaN,
          errors: result.errors + (result.deliveryDelays.length - delays.length),
          cpu,
          streamedMiB: (receivers.streamedBytes - streamedBefore) / 2 ** 20,
          streams: receivers.streams - streamsBefore,
          streamMaxMs: Math.max(0, ...receivers.streamLasted.slice(streamsBefore)),
        });
        await sleep(2000);
      }
    }

    const per = (x: number): string => (x / Math.max(1, units.entries)).toFixed(2);
    console.log(`\nDynamoDB per delivered entry (one lane run: ${units.entries} entries, ${units.state})`);
    console.log('| ms | calls | write units (table) | write units (indexes) | read units (table) |');
    console.log('|---|---|---|---|---|');
    console.log(
      `| ${per(units.ms)} | ${per(units.calls)} | ${per(units.units.write)} | ${per(units.units.indexWrite)} | ${per(units.units.read)} |`,
    );
    const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
    console.log(`\nIdle CPU (one core = 100 %), ${IDLE_SECONDS} s per phase, local dispatcher polling every 1 s`);
    console.log('| subscriptions | API + dispatcher | DynamoDB Local |');
    console.log('|---|---|---|');
    for (const r of idle) console.log(`| ${r.subs} | ${pct(r.api)} | ${pct(r.dynamo)} |`);
    console.log(
      `\nAnother business under load (${LOAD_SECONDS} s per phase, one client: list employees back to back, create one every ${WRITE_EVERY_MS} ms)`,
    );
    console.log(
      '| streaming receiver in business 1 | p50 ms | p99 ms | its deliveries p99 / max ms | errors or lost | API CPU | DynamoDB CPU | streamed answers: count, longest open, MiB the receiver got to send (socket buffers included) |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of load)
      console.log(
        `| ${r.streaming ? 'yes' : 'no'} | ${r.p50} | ${r.p99} | ${r.deliveryP99} / ${r.deliveryMax} | ${r.errors} | ${pct(r.cpu.api)} | ${pct(r.cpu.dynamo)} | ${r.streams}, ${r.streamMaxMs} ms, ${r.streamedMiB.toFixed(1)} |`,
      );
  } finally {
    await stopDispatcher();
    await receivers.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

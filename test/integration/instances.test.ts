import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import demo from '../../fixtures/demo.json';
import { freePort, ensureTable } from '../../scripts/lib/dynamodb-local';
import { resetClient } from '../../src/data/dynamo/client';
import { importBusiness } from '../../src/data/business-store';
import { createToken, issueToken, revokeToken } from '../../src/data/token-store';
import { buildBusiness } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';
import { withTestRateLimits } from '../support/harness';
import { steadyRequests } from '../../scripts/lib/load-isolation';

/**
 * `INSTANCES=4 npm start` (contract §18): four processes, each with its own
 * module state like a Lambda instance, serve one port. What one instance keeps
 * in memory (token lookups, page hints, rate counts) must stay right when a
 * tenant's requests land on all of them. Every request opens its own
 * connection, so the cluster hands them to the instances in turn. Four, as
 * issue 37 asks of the rate tests at W = 10 s: the (k − 1) term of the bound
 * is tested with three instances that may over-admit beside the first.
 */
const ROOT = join(__dirname, '..', '..');
const API = '/services/api/v1';
const INSTANCES = 4;
let child: ChildProcess | undefined;
let port = 0;
let dataDir = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hr-api-instances-'));
  port = await freePort();
  const tableName = `test-${randomBytes(6).toString('hex')}`;
  // This process provisions the businesses it needs in the same table the instances serve.
  process.env.TABLE_NAME = tableName;
  resetClient();
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    INSTANCES: String(INSTANCES),
    PORT: String(port),
    LOCAL_DATA_DIR: dataDir,
    TABLE_NAME: tableName,
    // Token lookups kept 2 s per instance: long enough to see four caches, short enough to watch them expire.
    AUTH_CACHE_SECONDS: '2',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  };
  delete env.HOST;
  // tsx itself, not through npx (whose own start-up costs CPU and checks nothing here): what `npm start` runs.
  child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/local-server.ts'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child!.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Token:')) resolve();
    });
    child!.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child!.once('exit', (code) => reject(new Error(`INSTANCES=${INSTANCES} npm start exited (${code}):\n${output}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

interface Answer {
  status: number;
  instance: string;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are inspected freely
  sentAt: number;
  /** When the answer arrived: the instance admitted the request between sentAt and this, nearer this on a busy machine. */
  answeredAt: number;
}

/** One request on a connection of its own (no keep-alive): the cluster picks the next instance. */
function send(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const sentAt = Date.now();
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `${API}${path}`,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            instance: String(res.headers['x-local-instance']),
            headers: res.headers,
            body: text ? JSON.parse(text) : undefined,
            sentAt,
            answeredAt: Date.now(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function provision(id: string, limits: object = {}): Promise<string> {
  const parsed = parseFixture(withTestRateLimits({ ...demo, business: { ...demo.business, id, ...limits } }));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  return issueToken(id, 'instances test');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * An instance handles a request between its sending and its answer. The most requests surely handled within one
 * interval of `windowMs` (sent and answered inside it: what the server did at least), and the most possibly
 * handled within one (sent before its end, answered after its start: what the server saw at most).
 */
function handledInAnyWindow(answers: readonly Answer[], windowMs: number): { surely: number; possibly: number } {
  let surely = 0;
  let possibly = 0;
  for (const { sentAt, answeredAt } of answers) {
    surely = Math.max(surely, answers.filter((a) => a.sentAt >= sentAt && a.answeredAt < sentAt + windowMs).length);
    possibly = Math.max(
      possibly,
      answers.filter((a) => a.answeredAt >= answeredAt && a.sentAt < answeredAt + windowMs).length,
    );
  }
  return { surely, possibly };
}

/** The most answers other than 429 surely given within any interval of `windowMs`. */
const admittedInAnyWindow = (answers: readonly Answer[], windowMs: number): number =>
  handledInAnyWindow(
    answers.filter((a) => a.status !== 429),
    windowMs,
  ).surely;

describe(`INSTANCES=${INSTANCES} npm start`, () => {
  let token: string;
  beforeAll(async () => {
    token = await provision('spread');
  });

  it('serves one port from four processes, each request on a new connection going to the next', async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 8; i++) answers.push(await send('GET', '/locations/hq', token));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.instance)).size).toBe(INSTANCES);
  });

  it('token cache: a new token works at once on every instance; a revoked one stops everywhere within AUTH_CACHE_SECONDS', async () => {
    const fresh = (await createToken('spread', { name: 'fresh' })).token;
    const first = await Promise.all(Array.from({ length: 8 }, () => send('GET', '/locations/hq', fresh)));
    expect(first.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(first.map((a) => a.instance)).size).toBe(INSTANCES);
    await revokeToken(fresh);
    // Each instance may still hold the lookup for up to 2 s; then every one reads it again and refuses it.
    await sleep(2200);
    const after = [];
    for (let i = 0; i < 8; i++) after.push(await send('GET', '/locations/hq', fresh));
    expect(after.map((a) => a.status)).toEqual(Array(8).fill(401));
    expect(new Set(after.map((a) => a.instance)).size).toBe(INSTANCES);
  });

  it('page hints: every page is right from every instance while the list grows between reads', async () => {
    const list = async (): Promise<string[]> =>
      (await send('GET', '/employees?per_page=100', token)).body.entries.map((e: { id: string }) => e.id);
    for (let round = 0; round < 3; round++) {
      // Creates land on different instances, so each instance's hint of the list is stale in its own way.
      for (let i = 0; i < 7; i++) {
        const created = await send('POST', '/employees', token, { first_name: 'Hint', last_name: `R${round}-${i}` });
        expect(created.status).toBe(201);
      }
      const all = await list();
      const pages = Math.ceil(all.length / 4);
      for (let pass = 0; pass < 2; pass++)
        for (let page = 1; page <= pages; page++) {
          const answer = await send('GET', `/employees?per_page=4&page=${page}`, token);
          expect({ round, page, ids: answer.body.entries.map((e: { id: string }) => e.id) }).toEqual({
            round,
            page,
            ids: all.slice((page - 1) * 4, page * 4),
          });
          expect(answer.body.total_entries).toBe(all.length);
        }
    }
  }, 60_000);
});

/**
 * Every instance warm (modules loaded, connections open) with a token of its own: a cold instance answers its
 * first requests late and in a bunch, which is not what the rate tests measure.
 */
async function warmInstances(): Promise<void> {
  const warm = await provision(`warm-${randomBytes(3).toString('hex')}`);
  await Promise.all(Array.from({ length: 2 * INSTANCES }, () => send('GET', '/locations/hq', warm)));
}

describe(`INSTANCES=${INSTANCES}: rate limits hold across instances (contract §18)`, () => {
  // N = 40 per 10 s. Three senders at once for three windows (30 s), each spread over the four instances: a token at
  // twice its limit, a token at 70 % of it, and three tokens of one business at twice the business's limit. What
  // the server admitted is measured from the answers (a busy machine sends late and in bunches), not assumed from
  // the clients' rate. Bound: 1.1·N + 5 + (k − 1)·⌈N/W⌉ = 61 in any 10 s with k = 4.
  const N = 40;
  const W = 10_000;
  const BOUND = 1.1 * N + 5 + (INSTANCES - 1) * Math.ceil(N / 10);
  const limit = { requests: N, window_seconds: 10 };
  let flood: Answer[];
  let calm: Answer[];
  let crowd: Answer[];

  beforeAll(async () => {
    const floodToken = await provision('flood', { token_rate_limit: limit });
    const calmToken = await provision('calm', { token_rate_limit: limit });
    const first = await provision('crowd', { rate_limit: limit });
    const crowdTokens = [first, ...(await Promise.all([1, 2].map(async () => (await createToken('crowd')).token)))];
    await warmInstances();
    const get = (token: string) => () => send('GET', '/locations/hq', token);
    [flood, calm, crowd] = await Promise.all([
      steadyRequests(240, 8, get(floodToken)),
      steadyRequests(84, 2.8, get(calmToken)),
      steadyRequests(240, 8, (i) => get(crowdTokens[i % 3]!)()),
    ]);
  }, 90_000);

  /** Admitted per window over the time the answers were sent (three windows when the client kept its rate). */
  const perWindow = (answers: readonly Answer[]): number =>
    answers.filter((a) => a.status === 200).length /
    Math.max(3, (answers.at(-1)!.sentAt - answers[0]!.sentAt + 125) / W);

  it('a token at twice its limit: at most the bound in any window, at least 0.9·N per window', () => {
    expect(new Set(flood.map((a) => a.instance)).size).toBe(INSTANCES);
    expect(flood.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    expect(admittedInAnyWindow(flood, W)).toBeLessThanOrEqual(BOUND);
    expect(perWindow(flood)).toBeGreaterThanOrEqual(0.9 * N);
    // Every refusal says when to come back: 1..W + 1 s, and t never more than W.
    for (const refused of flood.filter((a) => a.status === 429)) {
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(11);
    }
    for (const a of flood)
      for (const t of String(a.headers['ratelimit']).matchAll(/t=(\d+)/g)) expect(Number(t[1])).toBeLessThanOrEqual(10);
  });

  it('a token at 70 % of its limit is never refused', () => {
    expect(new Set(calm.map((a) => a.instance)).size).toBe(INSTANCES);
    // Below 80 % as the server may have seen it: a machine too busy to keep the client's pace hands a bunch of
    // requests over at once, and then a window can hold more than 80 % (a 429 there is the contract's own).
    const atMost = handledInAnyWindow(calm, W).possibly;
    const refused = calm.filter((a) => a.status !== 200);
    if (atMost < 0.8 * N) expect(refused).toEqual([]);
    else expect(refused.length).toBeLessThanOrEqual(atMost - Math.ceil(0.8 * N) + 1);
  });

  it('a business limit holds over its tokens on every instance', () => {
    expect(crowd.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    expect(admittedInAnyWindow(crowd, W)).toBeLessThanOrEqual(BOUND);
    expect(perWindow(crowd)).toBeGreaterThanOrEqual(0.9 * N);
    const refused = crowd.find((a) => a.status === 429);
    expect(refused?.body.message).toMatch(
      /^This business \(all its tokens together\) exceeded its rate limit of 40 requests per 10 seconds/,
    );
    expect(refused?.headers['ratelimit']).toMatch(/"business";r=0;/);
  });
});

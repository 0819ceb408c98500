/**
 * `npm run load`: a fixed mixed workload against the local server (embedded,
 * in-memory DynamoDB Local), then a check that nothing was lost: every record
 * answered 201 reads back (GET 200, same ETag), the lists' totals and the
 * employee's job count equal the 201s exactly, and the change feed holds one
 * `*.created` entry per 201 and nothing else. Prints throughput, latency
 * percentiles (overall and per route, server side), the slowest requests and
 * when in the run they started, errors, and write
 * contention per request (refused transactions by the item whose condition
 * failed, retries and waits for a turn; attempts and refusals per write and
 * the share of pauses;
 * src/data/dynamo/write-stats.ts). Exits 1 on an error or a loss.
 *   LOAD_REQUESTS (default 3000), LOAD_CONNECTIONS (default 16),
 *   LOAD_SCENARIO=one-business runs only the one-business scenario, LOAD_SCENARIO=isolation only the isolation one,
 *   LOAD_SCENARIO=import only the import one (scripts/lib/load-import-isolation.ts; not part of a plain run),
 *   LOAD_ONE_KINDS (default applications,employees): what its writers create, one kind after the other,
 *   AUTH_CACHE_SECONDS (default 0 as locally; 60 is the deployed token cache)
 * Then the isolation scenario of contract §18 (scripts/lib/load-isolation.ts),
 * then the one-business scenario of issue 42 on 4 instances
 * (scripts/lib/load-one-business.ts; this script is also what they run).
 */
import autocannon from 'autocannon';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { createLocalServer } from './lib/server';
import { turnStats } from './lib/process-turns';
import { buildBusiness } from '../src/domain/fixture';
import { parseFixture } from '../src/schemas/fixture';
import { importBusiness } from '../src/data/business-store';
import { issueToken } from '../src/data/token-store';
import { authCacheSeconds } from '../src/data/config';
import { dynamoStats } from '../src/data/dynamo/client';
import { writeStats } from '../src/data/dynamo/write-stats';
import { isolationReport, runIsolation } from './lib/load-isolation';
import { importIsolationReport, runImportIsolation } from './lib/load-import-isolation';
import { LOAD_KINDS, oneBusinessReport, runOneBusiness, type LoadKind } from './lib/load-one-business';
import { isInstance, serveInstance } from './lib/instances';

const API = '/services/api/v1';

/** The kinds the one-business scenario creates, one after the other in one run (LOAD_ONE_KINDS). */
const oneBusinessKinds = (): LoadKind[] => {
  const kinds = (process.env.LOAD_ONE_KINDS ?? 'applications,employees').split(',').map((k) => k.trim());
  for (const kind of kinds) if (!(kind in LOAD_KINDS)) throw new Error(`LOAD_ONE_KINDS: unknown kind ${kind}`);
  return kinds as LoadKind[];
};

/** The one-business scenario for each kind: its report lines, and its problems prefixed. */
async function oneBusinessRuns(dynamoEndpoint: string, demo: { business: object }): Promise<void> {
  for (const kind of oneBusinessKinds()) {
    const one = oneBusinessReport(
      await runOneBusiness(dynamoEndpoint, demo, {
        instances: 4,
        writers: 16,
        seconds: Number(process.env.LOAD_ONE_SECONDS ?? 8),
        rounds: Number(process.env.LOAD_ONE_ROUNDS ?? 2),
        awsConflicts: process.env.LOAD_AWS_CONFLICTS === '1',
        kind,
      }),
    );
    for (const line of one.lines) console.log(line);
    for (const problem of one.problems) console.log(`one-business  ${kind} ${problem}`);
    if (one.problems.length) process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const totalRequests = Number(process.env.LOAD_REQUESTS ?? 3000);
  const connections = Number(process.env.LOAD_CONNECTIONS ?? 16);
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.TABLE_NAME = 'load-test';
  const dynamo = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
  const demo = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo.json'), 'utf8')) as {
    business: object;
  };
  // The workload's own limits (contract §18): far above what it sends, so only the isolation scenario meets a 429.
  const unlimited = { requests: 100_000, window_seconds: 10 };
  const parsed = parseFixture({
    ...demo,
    business: { ...demo.business, token_rate_limit: unlimited, rate_limit: unlimited },
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  if (process.env.LOAD_SCENARIO === 'one-business') {
    await oneBusinessRuns(dynamo.endpoint, demo);
    await dynamo.stop();
    process.exit(process.exitCode ?? 0);
  }
  const token = await issueToken(config.id, 'load');
  const server = createLocalServer();
  // Server-side latency and status per route (method + first path segment after the prefix), and when each
  // request started: the slowest are printed with it (the run starts with all connections in step).
  const byRoute = new Map<string, { ms: number[]; statuses: Record<number, number> }>();
  const timed: { route: string; startedMs: number; ms: number; status: number }[] = [];
  let runStart = performance.now();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    const route = `${req.method} ${(req.url ?? '').slice(API.length).split(/[/?]/)[1] ?? ''}`;
    res.on('finish', () => {
      const r = byRoute.get(route) ?? { ms: [], statuses: {} };
      r.ms.push(performance.now() - t0);
      timed.push({ route, startedMs: t0 - runStart, ms: performance.now() - t0, status: res.statusCode });
      r.statuses[res.statusCode] = (r.statuses[res.statusCode] ?? 0) + 1;
      byRoute.set(route, r);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (process.env.LOAD_SCENARIO === 'import') {
    const result = await runImportIsolation(url, demo);
    for (const line of [...importIsolationReport(result), ...result.problems]) console.log(line);
    server.close();
    await dynamo.stop();
    process.exit(result.problems.length ? 1 : 0);
  }
  if (process.env.LOAD_SCENARIO === 'isolation') {
    const isolation = await runIsolation(url, demo);
    for (const line of [...isolationReport(isolation), ...isolation.problems]) console.log(line);
    server.close();
    await dynamo.stop();
    process.exit(isolation.problems.length ? 1 : 0);
  }
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  // A seed employee so job creation and reads have a target.
  const seed = await fetch(`${url}${API}/employees`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ first_name: 'Seed', last_name: 'Employee' }),
  });
  const seedId = ((await seed.json()) as { id: string }).id;

  let n = 0;
  const created: Record<string, number> = { employees: 0, applications: 0, jobs: 0 };
  /** Every record answered 201: id -> [kind, ETag]. */
  const createdIds = new Map<string, { kind: 'employees' | 'applications' | 'employee_jobs'; etag: string }>();
  const remember =
    (kind: 'employees' | 'applications' | 'employee_jobs') =>
    (status: number, body: string, _context: object, headers: Record<string, unknown> | undefined): void => {
      if (status !== 201) return;
      createdIds.set((JSON.parse(body) as { id: string }).id, {
        kind,
        etag: String(Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'etag')?.[1] ?? ''),
      });
    };
  const statuses: Record<number, number> = {};
  const mix: autocannon.Request[] = [
    { method: 'GET', path: `${API}/locations/hq` },
    { method: 'GET', path: `${API}/employees/${seedId}` },
    {
      method: 'POST',
      path: `${API}/employees`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ first_name: `Load${++n}`, last_name: 'Test', employee_number: `L-${n}` }),
      }),
      onResponse: (status, body, context, headers) => {
        if (status === 201) created.employees = (created.employees ?? 0) + 1;
        remember('employees')(status, body, context, headers);
      },
    },
    { method: 'GET', path: `${API}/applications?job_id=cook-2026&page=2` },
    {
      method: 'POST',
      path: `${API}/applications`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          first_name: 'App',
          last_name: `No${++n}`,
          email: `a${n}@example.com`,
          accept_terms_and_conditions: true,
          job_id: n % 2 ? 'cook-2026' : null,
        }),
      }),
      onResponse: (status, body, context, headers) => {
        if (status === 201) created.applications = (created.applications ?? 0) + 1;
        remember('applications')(status, body, context, headers);
      },
    },
    {
      method: 'POST',
      path: `${API}/employee_jobs`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ employee_id: seedId, name: `Job ${++n}`, from: '2026-01-01' }),
      }),
      onResponse: (status, body, context, headers) => {
        if (status === 201) created.jobs = (created.jobs ?? 0) + 1;
        remember('employee_jobs')(status, body, context, headers);
      },
    },
    { method: 'GET', path: `${API}/employees?page=3` },
  ];

  dynamoStats.reset();
  writeStats.reset();
  turnStats.reset();
  runStart = performance.now();
  const result = await autocannon({ url, connections, amount: totalRequests, headers, requests: mix });
  const callsPerRequest = dynamoStats.calls / Math.max(1, result.requests.total);
  const contention = {
    ...writeStats,
    conditionFailed: { ...writeStats.conditionFailed },
    attempts: { ...writeStats.attempts },
    refusals: { ...writeStats.refusals },
  };
  const turns = { ...turnStats };
  for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statuses[Number(code)] = count.count ?? 0;

  const total = async (path: string): Promise<number> =>
    ((await (await fetch(`${url}${API}${path}`, { headers })).json()) as { total_entries: number }).total_entries;
  const employees = (await total('/employees')) - 1;
  const applications = await total('/applications');
  const jobs = await total(`/employee_jobs?employee_id=${seedId}`);
  const errors = result.errors + result.timeouts + result.non2xx;
  const problems: string[] = [];

  // Every 201 reads back as it was answered (same ETag: nothing overwrote it).
  const ids = [...createdIds];
  for (let i = 0; i < ids.length; i += 16)
    await Promise.all(
      ids.slice(i, i + 16).map(async ([id, { kind, etag }]) => {
        const res = await fetch(`${url}${API}/${kind}/${encodeURIComponent(id)}`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) problems.push(`${kind}/${id}: GET ${res.status}`);
        else if (kind !== 'employee_jobs' && res.headers.get('etag') !== etag)
          problems.push(`${kind}/${id}: ETag ${res.headers.get('etag')}, answered ${etag}`);
      }),
    );

  // The change feed holds exactly one created entry per 201 (the seed employee's updates aside).
  const createdInFeed = new Map<string, number>();
  const createdByType: Record<string, number> = {};
  let feedEntries = 0;
  for (let after: string | undefined; ;) {
    const res = await fetch(`${url}${API}/changes?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, {
      headers,
    });
    const page = (await res.json()) as { entries: { type: string; id: string }[]; next_cursor: string };
    if (res.status !== 200) throw new Error(`changes: ${res.status} ${JSON.stringify(page)}`);
    if (page.entries.length === 0) break;
    feedEntries += page.entries.length;
    for (const e of page.entries)
      if (e.type.endsWith('.created')) {
        createdInFeed.set(e.id, (createdInFeed.get(e.id) ?? 0) + 1);
        createdByType[e.type] = (createdByType[e.type] ?? 0) + 1;
      }
    after = page.next_cursor;
  }
  for (const [id] of createdIds)
    if (createdInFeed.get(id) !== 1) problems.push(`${id}: ${createdInFeed.get(id) ?? 0} created entries in the feed`);
  // Totals are exact: each list counts exactly the records committed (the feed's created entries), and
  // those are the 201s plus any create that committed although its answer was a 503 (deadline reached).
  const committed = {
    employees: (createdByType['employee.created'] ?? 0) - 1,
    applications: createdByType['application.created'] ?? 0,
    jobs: createdByType['employee_job.created'] ?? 0,
  };
  if (employees !== committed.employees)
    problems.push(`employees listed ${employees}, committed ${committed.employees}`);
  if (applications !== committed.applications)
    problems.push(`applications listed ${applications}, committed ${committed.applications}`);
  if (jobs !== committed.jobs) problems.push(`employee jobs listed ${jobs}, committed ${committed.jobs}`);
  const unanswered = [...createdInFeed.keys()].filter((id) => id !== seedId && !createdIds.has(id)).length;
  const lost = problems.length ? 'YES' : 'no';

  console.log(`requests      ${result.requests.total} (${connections} connections, ${result.duration.toFixed(1)} s)`);
  console.log(`throughput    ${result.requests.average.toFixed(0)} req/s`);
  console.log(`DynamoDB      ${callsPerRequest.toFixed(2)} calls/request (AUTH_CACHE_SECONDS=${authCacheSeconds()})`);
  console.log(`latency       p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
  console.log(`status codes  ${JSON.stringify(statuses)}`);
  console.log(
    `errors        ${errors} (transport ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx})`,
  );
  console.log(
    `created       employees ${created.employees}/${employees} listed, applications ${created.applications}/${applications}, jobs ${created.jobs}/${jobs}`,
  );
  console.log(`503 committed  ${unanswered} creates answered 503 although they committed (deadline while in flight)`);
  console.log(
    `verified      ${createdIds.size} records read back, ${feedEntries} feed entries, ${createdInFeed.size} created entries`,
  );
  console.log(`lost writes   ${lost}${problems.length ? `: ${problems.slice(0, 10).join('; ')}` : ''}`);
  const perRequest = (v: number): string => (v / Math.max(1, result.requests.total)).toFixed(3);
  console.log(
    `contention    per request: ${perRequest(contention.transactions)} transactions, ${perRequest(contention.retries)} retries ` +
      `(${perRequest(turns.waits)} waits for a turn, ${turns.pausesCut} of ${turns.pauses} pauses cut short), ` +
      `${perRequest(contention.transactionConflicts)} transaction conflicts, ` +
      `${contention.exhausted} out of attempts/time, ${contention.ambiguous} outcomes looked up (answer lost or late)`,
  );
  console.log(
    `refused on    ${
      Object.entries(contention.conditionFailed)
        .sort((a, b) => b[1] - a[1])
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ') || 'nothing'
    }`,
  );
  const pct = (sorted: number[], p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
  // Attempts per optimistic operation (every create, update, erasure), ascending.
  const attempts = Object.entries(contention.attempts).flatMap(([a, count]) => Array<number>(count).fill(Number(a)));
  console.log(
    `attempts      per write: p50 ${pct(attempts, 0.5)}, p90 ${pct(attempts, 0.9)}, p99 ${pct(attempts, 0.99)}, ` +
      `max ${pct(attempts, 1)} (${attempts.length} writes); pauses and waits for a turn ` +
      `${((100 * (contention.pauseMs + turns.pauseMs + turns.waitMs)) / Math.max(1, contention.operationMs)).toFixed(0)}% of their time`,
  );
  console.log(`refusals      writes by transactions refused: ${JSON.stringify(contention.refusals)}`);
  const slowest = timed
    .filter((t) => t.startedMs >= 0)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 8);
  console.log(
    `slowest       ${slowest.map((t) => `${t.route} ${t.status} at ${(t.startedMs / 1000).toFixed(1)} s took ${t.ms.toFixed(0)} ms`).join('; ')}`,
  );
  for (const [route, r] of [...byRoute].sort()) {
    const sorted = [...r.ms].sort((a, b) => a - b);
    console.log(
      `  ${route.padEnd(26)} ${String(sorted.length).padStart(5)}  p50 ${pct(sorted, 0.5).toFixed(0)} ms, p99 ${pct(sorted, 0.99).toFixed(0)} ms, max ${pct(sorted, 1).toFixed(0)} ms  ${JSON.stringify(r.statuses)}`,
    );
  }
  const isolation = await runIsolation(url, demo);
  for (const line of isolationReport(isolation)) console.log(line);
  for (const problem of isolation.problems) console.log(`isolation     ${problem}`);
  server.close();
  await oneBusinessRuns(dynamo.endpoint, demo);
  await dynamo.stop();
  process.exit(errors > 0 || lost === 'YES' || isolation.problems.length > 0 || process.exitCode ? 1 : 0);
}

// The one-business scenario forks this script as its instances (scripts/lib/instances.ts): they serve.
if (isInstance())
  serveInstance(createLocalServer()).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });

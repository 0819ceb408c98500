/**
 * `npm run bench:fairness`: where the local server's CPU goes per request,
 * by kind, each kind in a phase of its own against a server in a child
 * process (scripts/lib/profiled-server.ts), profiled with V8's CPU profiler:
 * - refusal: a create by a token over its limit (429), the flood of contract
 *   §18's isolation;
 * - single GET: one employee, admitted;
 * - list GET: a page of 10 employees, admitted;
 * - create: POST /employees, admitted;
 * - node floor: the same process's bare node HTTP server answering a fixed
 *   429 of the same size (what no handler can go below).
 * Prints the CPU milliseconds per request (user + system of the server
 * process over the phase / requests) and, per phase, where the samples fell:
 * by place (package, source file, node internals, GC) and by function. An
 * in-memory DynamoDB Local (its JVM's CPU is not the server's).
 *   FAIRNESS_REQUESTS (default 1000): requests per phase (list and create: half);
 *   FAIRNESS_CONCURRENCY (default 4): requests in flight;
 *   CPU_PROFILE_DIR: keep each phase's whole profile there (.cpuprofile).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import type { ProfileSummary } from './lib/cpu-profile';
import { provision } from './lib/load-isolation';

const API = '/services/api/v1';

interface PhaseResult {
  readonly phase: string;
  readonly cpuMicros: number;
  readonly summary: ProfileSummary;
}

async function main(): Promise<void> {
  const requests = Number(process.env.FAIRNESS_REQUESTS ?? 1000);
  const concurrency = Number(process.env.FAIRNESS_CONCURRENCY ?? 4);
  const quietEnv = { POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  Object.assign(process.env, quietEnv, { TABLE_NAME: 'fairness-bench' });
  const dynamo = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME!);
  const demo = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo.json'), 'utf8')) as object;
  const high = { requests: 100_000, window_seconds: 10 };
  // Each business's first token (provision issues two).
  const quiet = (await provision(demo, 'quiet', { token_rate_limit: high, rate_limit: high }))[0]!;
  // One request per hour: every create after the first is refused.
  const flood = (
    await provision(demo, 'flood', {
      token_rate_limit: { requests: 1, window_seconds: 3600 },
      rate_limit: high,
    })
  )[0]!;

  const child = fork(join(__dirname, 'lib', 'profiled-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env },
  });
  const messages: ((m: Record<string, unknown>) => void)[] = [];
  child.on('message', (m: Record<string, unknown>) => messages.shift()?.(m));
  const next = (): Promise<Record<string, unknown>> => new Promise((resolve) => messages.push(resolve));
  const { port, floorPort } = (await next()) as { port: number; floorPort: number };
  const url = `http://127.0.0.1:${port}${API}`;

  const send = async (token: string, method: string, path: string, body?: object): Promise<number> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    await res.arrayBuffer();
    return res.status;
  };
  const created = await fetch(`${url}/employees`, {
    method: 'POST',
    headers: { authorization: `Bearer ${quiet}`, 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Bench', last_name: 'Employee' }),
  });
  const employeeId = ((await created.json()) as { id: string }).id;
  const floor = async (): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${floorPort}${API}/employees`, {
      method: 'POST',
      headers: { authorization: `Bearer ${flood}`, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Flood', last_name: 'X' }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const kinds: [string, number, (i: number) => Promise<number>, number][] = [
    ['node floor', requests, floor, 429],
    ['refusal', requests, () => send(flood, 'POST', '/employees', { first_name: 'Flood', last_name: 'X' }), 429],
    ['single GET', requests, () => send(quiet, 'GET', `/employees/${employeeId}`), 200],
    ['list GET', requests / 2, () => send(quiet, 'GET', '/employees?per_page=10'), 200],
    ['create', requests / 2, (i) => send(quiet, 'POST', '/employees', { first_name: 'B', last_name: `${i}` }), 201],
  ];
  const run = async (count: number, one: (i: number) => Promise<number>): Promise<Record<number, number>> => {
    const statuses: Record<number, number> = {};
    let i = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (i < count) {
          const status = await one(i++);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    return statuses;
  };
  // Warm: every route's handler loaded and compiled, the flood token counted full.
  for (const [, , one] of kinds) await run(100, one);

  const phase = async (name: string, count: number, one: (i: number) => Promise<number>, profile: boolean) => {
    child.send({ phase: name, profile });
    await next();
    const statuses = await run(count, one);
    child.send({ stop: true });
    return { ...((await next()) as unknown as PhaseResult), count, statuses };
  };
  const results: (PhaseResult & { count: number; statuses: Record<number, number>; profiled: PhaseResult })[] = [];
  for (const [name, count, one, expected] of kinds) {
    // CPU without the profiler (its sampling costs CPU of its own), then where it goes, profiled.
    const measured = await phase(name, count, one, false);
    const profiled = await phase(name, count, one, true);
    if (Object.keys(measured.statuses).some((s) => Number(s) !== expected))
      console.log(`${name}: unexpected statuses ${JSON.stringify(measured.statuses)}`);
    results.push({ ...measured, profiled });
  }
  child.disconnect();
  await dynamo.stop();

  const ms = (v: number): string => v.toFixed(2);
  console.log(`fairness bench: ${requests} requests per phase (list, create: half), ${concurrency} in flight`);
  console.log('CPU per request of the server process (user + system), by kind:');
  for (const r of results)
    console.log(`  ${r.phase.padEnd(11)} ${ms(r.cpuMicros / 1000 / r.count)} ms   ${JSON.stringify(r.statuses)}`);
  console.log('Where it goes (a profiled run of each phase, sampled every 0.1 ms; on a busy machine a sample also');
  console.log('holds the time the process waited for a core: shares within a phase, not CPU):');
  for (const r of results) {
    const { summary } = r.profiled;
    const share = (t: number): string => `${((100 * t) / summary.busyMs).toFixed(0).padStart(3)} %`;
    console.log(`\n${r.phase}, by place:`);
    for (const [place, t] of summary.byPlace) console.log(`  ${share(t)}  ${place}`);
    console.log('  by function (self time):');
    for (const [fn, t] of summary.byFunction) console.log(`  ${share(t)}  ${fn}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

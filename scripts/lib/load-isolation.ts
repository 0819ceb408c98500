/**
 * `npm run load`, isolation scenario (contract §18): another business does its
 * normal traffic while one business creates employees at 75 % of its token's
 * limit (the baseline: everything it sends is answered), and while it creates
 * at ten times it at a steady rate (most of it refused); the other's latency under each,
 * side by side in one run, its statuses (goal: no 429 or 503, p99 within
 * 1.5x), and the DynamoDB calls a refused request costs (goal: 0 once refused).
 * The baseline is measured in two halves, before and after the flood, so that
 * what else the machine does in the run falls on both alike (a p99 of a few
 * hundred samples is their few slowest); the flood is measured after one
 * window at ten times the limit, in its steady state (the window frees N/W a
 * second), not in its first second, which admits the whole limit at once. Each
 * condition has its own token of the flooding business.
 *   LOAD_ISOLATION_SECONDS (default 12): time under each condition (>= 300 quiet requests each).
 */
import { importBusiness } from '../../src/data/business-store';
import { dynamoStats } from '../../src/data/dynamo/client';
import { issueToken } from '../../src/data/token-store';
import { buildBusiness } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';

const API = '/services/api/v1';
/** The flooding business's token limit: it sends 75 % of it, then ten times it. */
const FLOOD_LIMIT = { requests: 50, window_seconds: 10 };
const FLOOD_PER_SECOND = (10 * FLOOD_LIMIT.requests) / FLOOD_LIMIT.window_seconds;
const BASELINE_PER_SECOND = (0.75 * FLOOD_LIMIT.requests) / FLOOD_LIMIT.window_seconds;
/** The other business's normal traffic (its limits far above it). */
const QUIET_PER_SECOND = 30;

export interface Sample {
  readonly status: number;
  readonly ms: number;
}

/** Imports a business from `fixture` as `id` with `limits`; two tokens of it. */
export async function provision(fixture: object, id: string, limits: object): Promise<string[]> {
  const parsed = parseFixture({
    ...fixture,
    business: { ...(fixture as { business: object }).business, id, ...limits },
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  return [await issueToken(id, 'load isolation'), await issueToken(id, 'load isolation, second')];
}

/** One request as a client sends it: its status and its time, the body read whole. */
export const sendAs =
  (url: string) =>
  async (token: string, method: string, path: string, body?: unknown): Promise<Sample> => {
    const t0 = performance.now();
    const res = await fetch(`${url}${API}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  };

/**
 * A quiet business's normal traffic, request `i` of it: single reads, list pages and a write now and then (an
 * employee it creates first, updated every fifth request).
 */
export async function quietMixOf(url: string, token: string): Promise<(i: number) => Promise<Sample>> {
  const request = sendAs(url);
  const created = await request(token, 'POST', '/employees', { first_name: 'Quiet', last_name: 'Employee' });
  if (created.status !== 201) throw new Error(`quiet business: seed employee answered ${created.status}`);
  const employees = (await (
    await fetch(`${url}${API}/employees?per_page=1`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { entries: { id: string }[] };
  const employeeId = employees.entries[0]?.id ?? '';
  return (i: number): Promise<Sample> => {
    switch (i % 5) {
      case 0:
        return request(token, 'GET', '/locations/hq');
      case 1:
        return request(token, 'GET', `/employees/${employeeId}`);
      case 2:
        return request(token, 'GET', '/employees?per_page=10');
      case 3:
        return request(token, 'GET', '/applications?per_page=10');
      default:
        return request(token, 'PUT', `/employees/${employeeId}`, { city: `City ${i}` });
    }
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * `count` requests at a steady rate, not waiting for answers (an open loop, as independent clients send); also
 * the multi-instance tests' sender.
 */
export async function steadyRequests<T>(
  count: number,
  perSecond: number,
  send: (i: number) => Promise<T>,
): Promise<T[]> {
  const start = performance.now();
  const sent: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(send(i));
  }
  return Promise.all(sent);
}

export const pct = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const statusesOf = (samples: readonly Sample[]): Record<number, number> =>
  samples.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {});

export interface IsolationResult {
  /** The quiet business while the other sends at 75 % of its limit, and while it sends ten times it. */
  readonly quietBaseline: { p50: number; p99: number; statuses: Record<number, number> };
  readonly quietFlooded: { p50: number; p99: number; statuses: Record<number, number> };
  readonly baseline: Record<number, number>;
  readonly flood: Record<number, number>;
  readonly callsPerRefused: number;
  readonly besideCallsPerRefused: number;
  /** Problems that fail the run: the quiet business got a 429 or 503, or the baseline a 429. */
  readonly problems: string[];
}

/** Runs the scenario against the server at `url` (DynamoDB statistics of this process: the server runs here). */
export async function runIsolation(url: string, fixture: object): Promise<IsolationResult> {
  const seconds = Number(process.env.LOAD_ISOLATION_SECONDS ?? 12);
  const high = { requests: 100_000, window_seconds: 10 };
  const [quiet = ''] = await provision(fixture, 'quiet', { token_rate_limit: high, rate_limit: high });
  const [calmToken = '', floodToken = ''] = await provision(fixture, 'flood', {
    token_rate_limit: FLOOD_LIMIT,
    rate_limit: high,
  });
  const request = sendAs(url);
  const quietMix = await quietMixOf(url, quiet);
  // The other business creates employees (what a flood of an integration gone wrong sends; issue 54).
  const mixOf =
    (token: string) =>
    (i: number): Promise<Sample> =>
      request(token, 'POST', '/employees', { first_name: 'Flood', last_name: `Employee ${i}` });
  const [calmMix, floodMix] = [mixOf(calmToken), mixOf(floodToken)];

  const summary = (samples: readonly Sample[]) => {
    const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
    return { p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), statuses: statusesOf(samples) };
  };
  const half = (perSecond: number): number => Math.round((perSecond * seconds) / 2);
  // The baseline: the other business at 75 % (all admitted), in two halves around the flood.
  const baselineHalf = () =>
    Promise.all([
      steadyRequests(half(QUIET_PER_SECOND), QUIET_PER_SECOND, quietMix),
      steadyRequests(half(BASELINE_PER_SECOND), BASELINE_PER_SECOND, calmMix),
    ]);
  // Unmeasured: every route warm.
  await steadyRequests(QUIET_PER_SECOND * 2, QUIET_PER_SECOND, quietMix);
  const [calmBefore, baselineBefore] = await baselineHalf();
  // The flood: ten times the limit for one window unmeasured (it starts by admitting its whole limit at once),
  // then measured while it goes on at the same steady rate: refused but for what the window frees.
  const floodWarm = FLOOD_PER_SECOND * FLOOD_LIMIT.window_seconds;
  const [flood, flooded] = await Promise.all([
    steadyRequests(floodWarm + FLOOD_PER_SECOND * seconds, FLOOD_PER_SECOND, floodMix),
    steadyRequests(QUIET_PER_SECOND * FLOOD_LIMIT.window_seconds, QUIET_PER_SECOND, quietMix).then(() =>
      steadyRequests(QUIET_PER_SECOND * seconds, QUIET_PER_SECOND, quietMix),
    ),
  ]);
  const flooding = flood.slice(floodWarm);
  const [calmAfter, baselineAfter] = await baselineHalf();
  const calm = [...calmBefore, ...calmAfter];
  const baseline = [...baselineBefore, ...baselineAfter];

  // What a refused request costs: the flood once more, one request at a time, each request's calls counted.
  let refused = 0;
  let calls = 0;
  let beside = 0;
  for (let i = 0; i < FLOOD_PER_SECOND * 2; i++) {
    const before = { calls: dynamoStats.calls, beside: dynamoStats.besideCalls };
    const sample = await floodMix(i);
    if (sample.status !== 429) continue;
    refused += 1;
    calls += dynamoStats.calls - before.calls;
    beside += dynamoStats.besideCalls - before.beside;
  }

  const [quietBaseline, quietFlooded] = [summary(calm), summary(flooded)];
  const problems = [
    ...[quietBaseline, quietFlooded].flatMap(({ statuses }, phase) =>
      Object.entries(statuses)
        .filter(([status]) => status === '429' || status === '503')
        .map(
          ([status, n]) =>
            `the quiet business got ${n} ${status} answers ${phase ? 'during the flood' : 'in the baseline'}`,
        ),
    ),
    ...(statusesOf(baseline)[429] ? [`the business at 75 % of its limit got ${statusesOf(baseline)[429]} 429s`] : []),
  ];
  return {
    quietBaseline,
    quietFlooded,
    baseline: statusesOf(baseline),
    flood: statusesOf(flooding),
    callsPerRefused: calls / Math.max(1, refused),
    besideCallsPerRefused: beside / Math.max(1, refused),
    problems,
  };
}

/** The scenario's lines of the load test's report. */
export function isolationReport(r: IsolationResult): string[] {
  const ms = (v: number): string => `${v.toFixed(0)} ms`;
  return [
    `isolation     quiet business ${QUIET_PER_SECOND} req/s; other business creates ${BASELINE_PER_SECOND} req/s (75 %), then ${FLOOD_PER_SECOND} req/s (10x; measured after one window), then 75 % again, of its token limit (${FLOOD_LIMIT.requests} per ${FLOOD_LIMIT.window_seconds} s)`,
    `  quiet, other 75 % p50 ${ms(r.quietBaseline.p50)}, p99 ${ms(r.quietBaseline.p99)}  ${JSON.stringify(r.quietBaseline.statuses)}`,
    `  quiet, other 10x  p50 ${ms(r.quietFlooded.p50)}, p99 ${ms(r.quietFlooded.p99)} (p50 ${(r.quietFlooded.p50 / Math.max(1, r.quietBaseline.p50)).toFixed(2)}x, p99 ${(r.quietFlooded.p99 / Math.max(1, r.quietBaseline.p99)).toFixed(2)}x; goal <= 1.5x)  ${JSON.stringify(r.quietFlooded.statuses)}`,
    `  other at 75 %     ${JSON.stringify(r.baseline)}`,
    `  other at 10x      ${JSON.stringify(r.flood)}`,
    `  refused request   ${r.callsPerRefused.toFixed(2)} DynamoDB calls (+ ${r.besideCallsPerRefused.toFixed(2)} beside it); goal 0`,
  ];
}

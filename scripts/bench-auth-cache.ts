/**
 * `npm run bench` (third part, alone: `npm run bench:auth`): DynamoDB calls and
 * time per request with the token cache off (AUTH_CACHE_SECONDS=0, the local
 * default) and on (60, the deployed default), one request at a time against an
 * in-memory DynamoDB Local. Calls are exact;
 * times are this machine's and only their ratio means anything (DynamoDB Local
 * is slower than DynamoDB).
 *   BENCH_AUTH_REQUESTS (default 100 per request kind and setting)
 */
import fixture from '../fixtures/demo.json';
import { dynamoStats } from '../src/data/dynamo/client';
import { startBenchStack } from './lib/bench-stack';

const API = '/services/api/v1';

interface Kind {
  readonly label: string;
  readonly method: string;
  readonly path: (ids: Ids) => string;
  readonly body?: (i: number) => unknown;
}
interface Ids {
  employee: string;
  application: string;
}

const KINDS: readonly Kind[] = [
  { label: 'show employee', method: 'GET', path: (ids) => `${API}/employees/${ids.employee}` },
  { label: 'show location (reference)', method: 'GET', path: () => `${API}/locations/hq` },
  { label: 'list employees, page 2', method: 'GET', path: () => `${API}/employees?page=2&per_page=5` },
  { label: 'list applications, job filter', method: 'GET', path: () => `${API}/applications?job_id=cook-2026` },
  {
    label: 'create employee',
    method: 'POST',
    path: () => `${API}/employees`,
    body: (i) => ({ first_name: 'Bench', last_name: `No${i}` }),
  },
  {
    label: 'update application',
    method: 'PUT',
    path: (ids) => `${API}/applications/${ids.application}`,
    body: (i) => ({ phone: `+39 ${1000 + i}` }),
  },
];

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main(): Promise<void> {
  const perKind = Number(process.env.BENCH_AUTH_REQUESTS ?? 100);
  const stack = await startBenchStack('bench-auth-cache', fixture);
  const previous = process.env.AUTH_CACHE_SECONDS;
  try {
    const send = async (
      method: string,
      path: string,
      body?: unknown,
      token?: string,
    ): Promise<{ status: number; id?: string }> => {
      const res = await stack.send(method, path, body, token);
      return { status: res.status, id: (res.body as { id?: string } | null)?.id };
    };
    const ids: Ids = { employee: '', application: '' };
    for (let i = 0; i < 12; i++)
      ids.employee = (await send('POST', `${API}/employees`, { first_name: 'S', last_name: `E${i}` })).id ?? '';
    ids.application =
      (
        await send('POST', `${API}/applications`, {
          first_name: 'A',
          last_name: 'B',
          email: 'a@example.com',
          accept_terms_and_conditions: true,
          job_id: 'cook-2026',
        })
      ).id ?? '';

    const rows: string[] = [];
    let n = 0;
    for (const kind of KINDS) {
      // The settings alternate request by request, so drift on a shared machine hits all alike.
      const settings = [
        { name: 'off', seconds: '0' },
        { name: 'on', seconds: '60' },
      ] as const;
      const samples: Record<string, { calls: number; times: number[] }> = {
        off: { calls: 0, times: [] },
        on: { calls: 0, times: [] },
      };
      process.env.AUTH_CACHE_SECONDS = '60';
      await send(kind.method, kind.path(ids), kind.body?.(++n)); // warm-up: the one lookup the cache keeps
      for (let i = 0; i < settings.length * perKind; i++) {
        const setting = settings[i % settings.length]!;
        const sample = samples[setting.name]!;
        process.env.AUTH_CACHE_SECONDS = setting.seconds;
        const callsBefore = dynamoStats.calls;
        const started = performance.now();
        const { status } = await send(kind.method, kind.path(ids), kind.body?.(++n));
        sample.times.push(performance.now() - started);
        sample.calls += dynamoStats.calls - callsBefore;
        if (status >= 400) throw new Error(`${kind.label}: ${status}`);
      }
      const measured: Record<string, { calls: number; p50: number; mean: number }> = {};
      for (const [name, { calls, times }] of Object.entries(samples)) {
        times.sort((x, y) => x - y);
        measured[name] = {
          calls: calls / perKind,
          p50: percentile(times, 50),
          mean: times.reduce((x, y) => x + y, 0) / times.length,
        };
      }
      const off = measured.off!;
      const on = measured.on!;
      rows.push(
        `| ${kind.label} | ${off.calls.toFixed(2)} | ${on.calls.toFixed(2)} | ${off.p50.toFixed(1)} | ${on.p50.toFixed(1)} | ${(on.mean / off.mean).toFixed(2)} |`,
      );
    }
    console.log(
      `\nToken cache: DynamoDB calls and time per request (${perKind} sequential requests each, settings alternating, DynamoDB Local)`,
    );
    console.log('| request | calls, cache off | calls, cache on | p50 ms off | p50 ms on | mean time on/off |');
    console.log('|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    if (previous === undefined) delete process.env.AUTH_CACHE_SECONDS;
    else process.env.AUTH_CACHE_SECONDS = previous;
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench:cold`: bundle size and module init time of every Lambda function.
 *
 * Each function (every row of src/http/routes.ts plus the fallback) is bundled with
 * the esbuild JS API using exactly the options CDK uses (BUNDLING in
 * lib/constructs/api-function.ts), next to a baseline that only creates a
 * DynamoDBDocumentClient. Init = `require()` of the bundle in a fresh `node`
 * process (what Lambda's init phase does with the handler module), timed as
 * wall clock and as the process's CPU time (`process.cpuUsage()`: on a shared
 * machine the wall clock also counts other processes' turns, the CPU time much
 * less), median of several runs, the bundles alternating so noise spreads
 * evenly. Absolute times depend on the machine; the targets are relative to
 * the baseline measured in the same run:
 *
 *   every bundle < 500 KB (get-docs exempt: it serves the Redoc renderer)
 *   init time <= 1.1 x baseline
 *
 * The same process then sends the function its first request (unauthenticated
 * GET: 401, 200 on the public routes, 404 for the fallback; no DynamoDB
 * needed), timed too: work a function leaves out of its init and does on its
 * first request shows there. It is also the smoke check that bundling did not
 * change behaviour. The baseline is not invoked (its request would need DynamoDB).
 *
 * Options: --runs N (default 31), --analyze (largest inputs of every bundle),
 * --instructions (instead of timing: the instructions the CPU runs for each
 * init, counted by valgrind, one run each: independent of what else the machine
 * runs, so figures of runs at different times compare; V8 runs single-threaded
 * for it, its GC and compilers on the main thread, with fixed hash and random
 * seeds, so a count repeats), --parts (instead of the
 * functions: the baseline plus one piece that every API
 * function loads, piece by piece, and get-employee whole: what each piece adds
 * to init on its own).
 * A missed target is reported, not an exit code: this is a measurement.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BUNDLING } from '../lib/constructs/api-function';
import { ROUTES } from '../src/http/routes';
import { esbuildOptionsOf, functionEntries, ROOT } from './lib/lambda-bundles';

const SIZE_TARGET_KB = 500;
const RATIO_TARGET = 1.1;
/** Routes that ship a package file (get-docs: the ~1 MB Redoc renderer it serves): exempt from the size target. */
const SIZE_EXEMPT = new Set<string>(
  functionEntries()
    .found.filter((f) => f.bundleFiles.length > 0)
    .map((f) => f.name),
);
const BASELINE = 'baseline';

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
};
const RUNS = Math.max(3, Number(argValue('--runs') ?? 31));
const ANALYZE = args.includes('--analyze');
const PARTS = args.includes('--parts');
const INSTRUCTIONS = args.includes('--instructions');
const OUT_DIR = path.join(ROOT, '.cache', `bench-cold${PARTS ? '-parts' : ''}${INSTRUCTIONS ? '-instructions' : ''}`);

/** What the function sees in Lambda, minus credentials; nothing inherited from this shell. */
const CHILD_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  NODE_OPTIONS: '',
  AWS_REGION: 'eu-central-1',
  TABLE_NAME: 'x',
  AWS_LAMBDA_FUNCTION_NAME: 'bench-cold-start',
  POWERTOOLS_SERVICE_NAME: 'hr-api',
  // Lambda runs Node 22; the SDK's Node 20 notice would be extra work here only.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

interface Entry {
  readonly name: string;
  readonly file: string;
  /** Expected status of an unauthenticated GET (smoke check); 0: not a handler to invoke. */
  readonly expect: number;
}

function entries(): { found: Entry[]; missing: string[] } {
  const { found, missing } = functionEntries();
  return { found: found.map((f) => ({ ...f, expect: f.auth ? 401 : f.fallback ? 404 : 200 })), missing };
}

interface Sample {
  /** require() of the bundle, wall clock and CPU ms. */
  readonly init: number;
  readonly initCpu: number;
  /** The first request after it (not for the baseline). */
  readonly first?: number;
  readonly firstCpu?: number;
  readonly status?: number;
  readonly error?: string;
}

interface Bundle extends Entry {
  readonly out: string;
  readonly bytes: number;
  readonly metafile: Metafile;
  readonly samples: Sample[];
}

const BASELINE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/** The smallest useful DynamoDB function: one document client, one read. */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () =>
  client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: 'x', SK: 'x' } }));
`;

/**
 * `--parts`: the pieces of the HTTP layer every API function loads, each bundled alone beside the
 * baseline's DocumentClient, imported as the functions import them.
 */
const PARTS_IMPORTS: Record<string, string> = {
  'powertools logger (src/http/logger)': `import { logger } from '../../src/http/logger'; export const part = logger;`,
  'powertools metrics (src/http/metrics)': `import { recordRequest } from '../../src/http/metrics'; export const part = recordRequest;`,
  'i18n + negotiator (src/http/i18n/language)': `import { languageOf, messageOf, translateFields } from '../../src/http/i18n/language'; export const part = [languageOf, messageOf, translateFields];`,
  'route table (src/http/routes)': `import { ROUTES, scopesOf } from '../../src/http/routes'; export const part = [ROUTES, scopesOf];`,
  '@middy/core': `import middy from '@middy/core'; export const part = middy;`,
  'rate limiter (src/data/rate-counts)': `import { admit } from '../../src/data/rate-counts'; export const part = admit;`,
  'token store (src/data/token-store)': `import { lookupToken } from '../../src/data/token-store'; export const part = lookupToken;`,
  // Node built-ins that middy (node:stream/web, for response streaming) and the Powertools Console (process.stdout)
  // load at init, which the baseline loads only on its first request; the AsyncLocalStorage of src/data.
  'built-ins: stream/web, a Console on stdout, ALS': `import 'node:stream/web'; import { Console } from 'node:console'; import { AsyncLocalStorage } from 'node:async_hooks'; export const part = [new Console({ stdout: process.stdout, stderr: process.stderr }), new AsyncLocalStorage()];`,
  'HTTP layer whole (src/http/handler)': `import { apiHandler } from '../../src/http/handler'; export const part = apiHandler;`,
};

function partEntries(): Entry[] {
  return Object.entries(PARTS_IMPORTS).map(([name, source], i) => {
    const file = path.join(OUT_DIR, `part-${i}.ts`);
    fs.writeFileSync(file, `${BASELINE_SOURCE}\n${source}\n`);
    return { name, file, expect: 0 };
  });
}

async function bundle(entry: Entry, options: BuildOptions): Promise<Bundle> {
  const out = path.join(OUT_DIR, `${path.basename(entry.file, '.ts')}.js`);
  const result = await build({ ...options, entryPoints: [entry.file], outfile: out, metafile: true, write: true });
  fs.writeFileSync(out.replace(/\.js$/, '.meta.json'), JSON.stringify(result.metafile));
  return { ...entry, out, bytes: fs.statSync(out).size, metafile: result.metafile, samples: [] };
}

/**
 * One sample in a fresh process: require() the bundle (init), then, unless told not to, one unauthenticated
 * GET to `path` (the first request). Prints one JSON line last (the handler may log before it).
 */
const PROBE = `
const [file, path] = process.argv.slice(1);
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const cpuMs = (c) => { const u = process.cpuUsage(c); return (u.user + u.system) / 1000; };
let t = process.hrtime.bigint(), c = process.cpuUsage();
const { handler } = require(file);
const out = { init: ms(t), initCpu: cpuMs(c) };
const done = () => process.stdout.write('\\n' + JSON.stringify(out) + '\\n');
if (!path) done();
else {
  const event = {
    version: '2.0', routeKey: '$default', rawPath: path, rawQueryString: '', headers: {},
    requestContext: { requestId: 'bench', http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' } },
    isBase64Encoded: false,
  };
  const context = { awsRequestId: 'bench', functionName: 'bench-cold-start', getRemainingTimeInMillis: () => 10000 };
  t = process.hrtime.bigint(); c = process.cpuUsage();
  Promise.resolve(handler(event, context)).then(
    (r) => { Object.assign(out, { first: ms(t), firstCpu: cpuMs(c), status: r.statusCode }); done(); },
    (e) => { out.error = String((e && e.stack) || e).split('\\n')[0]; done(); },
  );
}`;

const smokePathOf = (name: string): string => {
  const route = ROUTES.find((r) => r.name === name);
  return route ? route.path.replace(/\{\w+\}/g, 'bench') : '/no-such-route';
};

function sampleOnce(b: Entry & { out: string }): Sample {
  const args = ['-e', PROBE, b.out, ...(b.expect === 0 ? [] : [smokePathOf(b.name)])];
  const r = spawnSync(process.execPath, args, { env: CHILD_ENV, encoding: 'utf8', timeout: 30_000 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as Sample;
  } catch {
    throw new Error(`init of ${b.out} failed: ${r.stderr || r.stdout}`);
  }
}

/** Instructions (valgrind's `I refs`) of a node process that requires `file`, or of a bare start. */
function instructionsOf(file?: string): number {
  const r = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      process.execPath,
      '--single-threaded',
      // Fixed seeds: V8 seeds its hash tables and Math.random per process, which moved one bundle's count by up to
      // 3 % from run to run (and the baseline's, so every ratio of a run); with them a count repeats to 0.01 %.
      '--hash-seed=1',
      '--random-seed=1',
      '-e',
      file ? 'require(process.argv[1])' : '0',
      ...(file ? [file] : []),
    ],
    { env: CHILD_ENV, encoding: 'utf8' },
  );
  const m = /I\s+refs:\s+([\d,]+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`valgrind failed (${r.error?.message ?? r.stderr}); apt-get install valgrind`);
  return Number(m[1]!.replace(/,/g, ''));
}

/** `--instructions`: each bundle's init in instructions, beside the baseline's. */
function reportInstructions(bundles: readonly Bundle[]): void {
  const start = instructionsOf();
  const counts = bundles.map((b) => {
    process.stdout.write('.');
    return { b, init: instructionsOf(b.out) - start };
  });
  const base = counts[0]!.init;
  console.log(
    `\n\ninit in instructions (valgrind, node --single-threaded ${process.version}; a bare start, ${(start / 1e6).toFixed(0)} M, subtracted)\n`,
  );
  for (const { b, init } of counts) {
    console.log(
      `${b.name.padEnd(44)} ${kb(b.bytes).toFixed(1).padStart(6)} KB  ${(init / 1e6).toFixed(1).padStart(7)} M  ratio ${(init / base).toFixed(3)}`,
    );
  }
  const ratios = counts
    .slice(1)
    .filter(({ b }) => b.expect !== 404)
    .map(({ init }) => init / base)
    .sort((x, y) => x - y);
  if (ratios.length)
    console.log(
      `\nmin / median / max ratio (the fallback apart): ${ratios[0]!.toFixed(3)} / ${median(ratios).toFixed(3)} / ${ratios[ratios.length - 1]!.toFixed(3)}`,
    );
}

/** The smoke verdict of a bundle's samples: every first request answered the expected status. */
function smoke(b: Bundle): string {
  const bad = b.samples.find((s) => s.error !== undefined || s.status !== b.expect);
  if (!bad) return `ok ${b.expect}`;
  return bad.error ? `FAIL ${bad.error}` : `FAIL ${bad.status} (want ${b.expect})`;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const kb = (bytes: number): number => bytes / 1024;

/** Largest inputs of a bundle, grouped by package (node_modules) or source file. */
function topInputs(metafile: Metafile, out: string, limit: number): [string, number][] {
  const output = metafile.outputs[path.relative(ROOT, out)] ?? Object.values(metafile.outputs)[0];
  const byGroup = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const group = m ? m[1]! : input;
    byGroup.set(group, (byGroup.get(group) ?? 0) + bytesInOutput);
  }
  return [...byGroup.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit);
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const options = esbuildOptionsOf(BUNDLING);
  console.log(
    `esbuild ${JSON.stringify({ ...options, absWorkingDir: undefined, logLevel: undefined })} (BUNDLING of lib/constructs/api-function.ts)`,
  );

  const baselineFile = path.join(OUT_DIR, `${BASELINE}.ts`);
  fs.writeFileSync(baselineFile, BASELINE_SOURCE);
  const all = entries();
  const { missing } = all;
  const found = PARTS ? [...partEntries(), ...all.found.filter((f) => f.name === 'get-employee')] : all.found;
  for (const name of missing) console.log(`skipped ${name}: functions/${name}.ts does not exist yet`);

  const bundles: Bundle[] = [];
  for (const entry of [{ name: BASELINE, file: baselineFile, expect: 0 }, ...found]) {
    try {
      bundles.push(await bundle(entry, options));
    } catch (error) {
      console.log(`skipped ${entry.name}: bundling failed: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  const baseline = bundles.find((b) => b.name === BASELINE);
  if (!baseline) throw new Error('the baseline did not bundle');

  if (INSTRUCTIONS) {
    reportInstructions([baseline, ...bundles.filter((b) => b !== baseline)]);
    return;
  }

  // Warm the file cache once, then alternate bundles run by run.
  for (const b of bundles) sampleOnce(b);
  process.stdout.write(`measuring init and first request: ${RUNS} runs x ${bundles.length} bundles `);
  for (let run = 0; run < RUNS; run++) {
    for (const b of run % 2 ? [...bundles].reverse() : bundles) b.samples.push(sampleOnce(b));
    process.stdout.write('.');
  }
  process.stdout.write('\n');

  const medianOf = (b: Bundle, key: 'init' | 'initCpu' | 'first' | 'firstCpu'): number =>
    median(b.samples.map((x) => x[key] ?? NaN));
  const base = medianOf(baseline, 'init');
  const baseCpu = medianOf(baseline, 'initCpu');
  const rows = bundles.map((b) => {
    const init = medianOf(b, 'init');
    const initCpu = medianOf(b, 'initCpu');
    return {
      b,
      sizeKb: kb(b.bytes),
      init,
      ratio: init / base,
      initCpu,
      cpuRatio: initCpu / baseCpu,
      first: b.expect === 0 ? undefined : medianOf(b, 'first'),
      firstCpu: b.expect === 0 ? undefined : medianOf(b, 'firstCpu'),
      smoke: b.expect === 0 ? '-' : smoke(b),
    };
  });

  if (PARTS) {
    console.log(`\nwhat each piece adds to the baseline's init (medians of ${RUNS}, node ${process.version})\n`);
    for (const r of rows) {
      const plus = (x: number, base: number): string => (r.b === baseline ? '' : ` (+${(x - base).toFixed(1)})`);
      console.log(
        `${r.b.name.padEnd(44)} ${r.sizeKb.toFixed(1).padStart(6)} KB${plus(r.sizeKb, kb(baseline.bytes))}  ` +
          `CPU ${r.initCpu.toFixed(1)} ms${plus(r.initCpu, baseCpu)}  wall ${r.init.toFixed(1)} ms${plus(r.init, base)}`,
      );
    }
    return;
  }

  const nameWidth = Math.max(...rows.map((r) => r.b.name.length), 8);
  const cols = ['size KB', 'init ms', 'ratio', 'CPU ms', 'ratio', '1st req ms', 'CPU ms'];
  const widths = [8, 8, 6, 7, 6, 10, 7];
  const header = `${'function'.padEnd(nameWidth)}  ${cols.map((c, i) => c.padStart(widths[i]!)).join('  ')}  smoke`;
  console.log(`\n${header}\n${'-'.repeat(header.length + 8)}`);
  const fmt = (x: number | undefined, digits: number): string => (x === undefined ? '-' : x.toFixed(digits));
  for (const r of rows) {
    const flags = [
      r.sizeKb >= SIZE_TARGET_KB ? (SIZE_EXEMPT.has(r.b.name) ? 'size exempt' : 'SIZE') : '',
      r.ratio > RATIO_TARGET ? 'INIT' : '',
      r.cpuRatio > RATIO_TARGET ? 'INIT CPU' : '',
    ].filter(Boolean);
    const cells = [
      fmt(r.sizeKb, 1),
      fmt(r.init, 1),
      fmt(r.ratio, 2),
      fmt(r.initCpu, 1),
      fmt(r.cpuRatio, 2),
      fmt(r.first, 1),
      fmt(r.firstCpu, 1),
    ];
    console.log(
      `${r.b.name.padEnd(nameWidth)}  ${cells.map((c, i) => c.padStart(widths[i]!)).join('  ')}  ${r.smoke}${
        flags.length ? `  <- ${flags.join(', ')}` : ''
      }`,
    );
  }

  const functions = rows.filter((r) => r.b !== baseline);
  const counted = functions.filter((r) => !SIZE_EXEMPT.has(r.b.name));
  const maxSize = counted.reduce((m, r) => (r.sizeKb > m.sizeKb ? r : m), counted[0]!);
  const maxRatio = functions.reduce((m, r) => (r.ratio > m.ratio ? r : m), functions[0]!);
  const maxCpuRatio = functions.reduce((m, r) => (r.cpuRatio > m.cpuRatio ? r : m), functions[0]!);
  const sizeOk = maxSize.sizeKb < SIZE_TARGET_KB;
  const ratioOk = maxRatio.ratio <= RATIO_TARGET;
  const cpuRatioOk = maxCpuRatio.cpuRatio <= RATIO_TARGET;
  const failedSmoke = functions.filter((r) => !r.smoke.startsWith('ok'));
  /** min / median / max over the functions (the fallback, which loads no SDK, apart). */
  const spread = (values: number[], digits = 2): string => {
    const sorted = [...values].sort((x, y) => x - y);
    return `${sorted[0]!.toFixed(digits)} / ${median(sorted).toFixed(digits)} / ${sorted[sorted.length - 1]!.toFixed(digits)}`;
  };
  const apiFunctions = functions.filter((r) => r.b.expect !== 404);

  console.log(
    `\nbaseline (DynamoDBDocumentClient only): ${kb(baseline.bytes).toFixed(1)} KB, init ${base.toFixed(1)} ms, ` +
      `CPU ${baseCpu.toFixed(1)} ms (medians of ${RUNS}, node ${process.version})`,
  );
  console.log(
    `functions but the fallback, min / median / max: init ratio ${spread(apiFunctions.map((r) => r.ratio))}; ` +
      `CPU ratio ${spread(apiFunctions.map((r) => r.cpuRatio))}; ` +
      `first request ${spread(
        apiFunctions.map((r) => r.first ?? NaN),
        1,
      )} ms (CPU ${spread(
        apiFunctions.map((r) => r.firstCpu ?? NaN),
        1,
      )} ms)`,
  );
  for (const r of functions.filter((f) => SIZE_EXEMPT.has(f.b.name))) {
    let redoc = '';
    try {
      redoc = `, plus ${kb(fs.statSync(require.resolve('redoc/bundles/redoc.standalone.js')).size).toFixed(0)} KB redoc.standalone.js shipped next to it`;
    } catch {
      // redoc not installed: nothing to add
    }
    console.log(
      `${r.b.name}: exempt from the size target (serves the Redoc renderer): bundle ${r.sizeKb.toFixed(1)} KB${redoc}`,
    );
  }
  console.log(
    `SUMMARY: ${functions.length} functions; max size ${maxSize.sizeKb.toFixed(1)} KB (${maxSize.b.name}) ` +
      `target < ${SIZE_TARGET_KB} KB: ${sizeOk ? 'MET' : 'MISSED'}; ` +
      `max init ratio ${maxRatio.ratio.toFixed(2)} (${maxRatio.b.name}), CPU ${maxCpuRatio.cpuRatio.toFixed(2)} ` +
      `(${maxCpuRatio.b.name}) target <= ${RATIO_TARGET}: ${ratioOk ? 'MET' : 'MISSED'}, CPU ${cpuRatioOk ? 'MET' : 'MISSED'}` +
      (failedSmoke.length ? `; smoke FAILED: ${failedSmoke.map((r) => r.b.name).join(', ')}` : '; smoke ok') +
      (missing.length ? `; not yet written: ${missing.join(', ')}` : ''),
  );

  const toAnalyze = ANALYZE ? rows : rows.filter((r) => r.sizeKb >= SIZE_TARGET_KB && !SIZE_EXEMPT.has(r.b.name));
  for (const r of toAnalyze) {
    console.log(`\n${r.b.name}: largest inputs (KB in output)`);
    for (const [group, bytes] of topInputs(r.b.metafile, r.b.out, 12)) {
      console.log(`  ${kb(bytes).toFixed(1).padStart(8)}  ${group}`);
    }
  }
  console.log(`\nbundles and metafiles: ${path.relative(ROOT, OUT_DIR)}/`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

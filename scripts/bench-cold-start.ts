/**
 * `npm run bench:cold`: bundle size and module init time of every Lambda function.
 *
 * Each function (every row of src/http/routes.ts plus the fallback) is bundled with
 * the esbuild JS API using exactly the options CDK uses (BUNDLING in
 * lib/constructs/api-function.ts), next to a baseline that only creates a
 * DynamoDBDocumentClient. Init time = time to `require()` the bundle in a fresh
 * `node` process (what Lambda's init phase does with the handler module),
 * median of several runs, the bundles alternating so noise spreads evenly.
 * Absolute times depend on the machine; the targets are relative to the
 * baseline measured in the same run:
 *
 *   every bundle < 500 KB (get-docs exempt: it serves the Redoc renderer)
 *   init time <= 1.1 x baseline
 *
 * Then every bundle is invoked once (fresh process, unauthenticated GET, no
 * DynamoDB needed) as a smoke check that bundling did not change behaviour.
 *
 * Options: --runs N (default 31), --analyze (largest inputs of every bundle).
 * A missed target is reported, not an exit code: this is a measurement.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BUNDLING } from '../lib/constructs/api-function';
import { ROUTES } from '../src/http/routes';
import { esbuildOptionsOf, functionEntries, ROOT } from './lib/lambda-bundles';

const OUT_DIR = path.join(ROOT, '.cache', 'bench-cold');
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
  /** Expected status of an unauthenticated GET (smoke check). */
  readonly expect: number;
}

function entries(): { found: Entry[]; missing: string[] } {
  const { found, missing } = functionEntries();
  return { found: found.map((f) => ({ ...f, expect: f.auth ? 401 : f.fallback ? 404 : 200 })), missing };
}

interface Bundle extends Entry {
  readonly out: string;
  readonly bytes: number;
  readonly metafile: Metafile;
  readonly samples: number[];
}

const BASELINE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/** The smallest useful DynamoDB function: one document client, one read. */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () =>
  client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: 'x', SK: 'x' } }));
`;

async function bundle(entry: Entry, options: BuildOptions): Promise<Bundle> {
  const out = path.join(OUT_DIR, `${entry.name}.js`);
  const result = await build({ ...options, entryPoints: [entry.file], outfile: out, metafile: true, write: true });
  fs.writeFileSync(path.join(OUT_DIR, `${entry.name}.meta.json`), JSON.stringify(result.metafile));
  return { ...entry, out, bytes: fs.statSync(out).size, metafile: result.metafile, samples: [] };
}

const INIT_PROBE =
  'const t=process.hrtime.bigint();require(process.argv[1]);' +
  'process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))';

/** Milliseconds to require() the bundle in a fresh node process. */
function initOnce(file: string): number {
  const r = spawnSync(process.execPath, ['-e', INIT_PROBE, file], { env: CHILD_ENV, encoding: 'utf8' });
  const ms = Number(r.stdout);
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`init of ${file} failed: ${r.stderr || r.stdout}`);
  return ms;
}

const SMOKE_PROBE = `
const { handler } = require(process.argv[1]);
const path = process.argv[2];
const event = {
  version: '2.0', routeKey: '$default', rawPath: path, rawQueryString: '', headers: {},
  requestContext: { requestId: 'bench', http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' } },
  isBase64Encoded: false,
};
const context = { awsRequestId: 'bench', functionName: 'bench-cold-start', getRemainingTimeInMillis: () => 10000 };
Promise.resolve(handler(event, context)).then(
  (r) => process.stdout.write(JSON.stringify({ status: r.statusCode, type: (r.headers || {})['Content-Type'] })),
  (e) => { process.stdout.write(JSON.stringify({ error: String(e && e.stack || e) })); },
);`;

const smokePathOf = (name: string): string => {
  const route = ROUTES.find((r) => r.name === name);
  return route ? route.path.replace(/\{\w+\}/g, 'bench') : '/no-such-route';
};

/** One unauthenticated GET through the bundled handler: 401, 200 (public routes) or 404 (fallback). */
function smoke(b: Bundle): string {
  const r = spawnSync(process.execPath, ['-e', SMOKE_PROBE, b.out, smokePathOf(b.name)], {
    env: { ...CHILD_ENV, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  try {
    const out = JSON.parse(r.stdout) as { status?: number; error?: string };
    if (out.error) return `FAIL ${out.error.split('\n')[0]}`;
    return out.status === b.expect ? `ok ${out.status}` : `FAIL ${out.status} (want ${b.expect})`;
  } catch {
    return `FAIL ${(r.stderr || r.stdout).split('\n')[0]}`;
  }
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

  const baselineFile = path.join(OUT_DIR, 'baseline-entry.ts');
  fs.writeFileSync(baselineFile, BASELINE_SOURCE);
  const { found, missing } = entries();
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

  // Warm the file cache once, then alternate bundles run by run.
  for (const b of bundles) initOnce(b.out);
  process.stdout.write(`measuring init: ${RUNS} runs x ${bundles.length} bundles `);
  for (let run = 0; run < RUNS; run++) {
    for (const b of run % 2 ? [...bundles].reverse() : bundles) b.samples.push(initOnce(b.out));
    process.stdout.write('.');
  }
  process.stdout.write('\n');

  const base = median(baseline.samples);
  const rows = bundles.map((b) => {
    const init = median(b.samples);
    return { b, sizeKb: kb(b.bytes), init, ratio: init / base, smoke: b === baseline ? '-' : smoke(b) };
  });

  const nameWidth = Math.max(...rows.map((r) => r.b.name.length), 8);
  const header = `${'function'.padEnd(nameWidth)}  ${'size KB'.padStart(8)}  ${'init ms'.padStart(8)}  ${'ratio'.padStart(6)}  smoke`;
  console.log(`\n${header}\n${'-'.repeat(header.length + 8)}`);
  for (const r of rows) {
    const flags = [
      r.sizeKb >= SIZE_TARGET_KB ? (SIZE_EXEMPT.has(r.b.name) ? 'size exempt' : 'SIZE') : '',
      r.ratio > RATIO_TARGET ? 'INIT' : '',
    ].filter(Boolean);
    console.log(
      `${r.b.name.padEnd(nameWidth)}  ${r.sizeKb.toFixed(1).padStart(8)}  ${r.init.toFixed(1).padStart(8)}  ${r.ratio
        .toFixed(2)
        .padStart(6)}  ${r.smoke}${flags.length ? `  <- ${flags.join(', ')}` : ''}`,
    );
  }

  const functions = rows.filter((r) => r.b !== baseline);
  const counted = functions.filter((r) => !SIZE_EXEMPT.has(r.b.name));
  const maxSize = counted.reduce((m, r) => (r.sizeKb > m.sizeKb ? r : m), counted[0]!);
  const maxRatio = functions.reduce((m, r) => (r.ratio > m.ratio ? r : m), functions[0]!);
  const sizeOk = maxSize.sizeKb < SIZE_TARGET_KB;
  const ratioOk = maxRatio.ratio <= RATIO_TARGET;
  const failedSmoke = functions.filter((r) => !r.smoke.startsWith('ok'));

  console.log(
    `\nbaseline (DynamoDBDocumentClient only): ${kb(baseline.bytes).toFixed(1)} KB, init ${base.toFixed(1)} ms (median of ${RUNS}, node ${process.version})`,
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
      `max init ratio ${maxRatio.ratio.toFixed(2)} (${maxRatio.b.name}) target <= ${RATIO_TARGET}: ${ratioOk ? 'MET' : 'MISSED'}` +
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

/**
 * The Lambda bundles as CDK builds them, for the tools that check what is
 * deployed: `npm run bench:cold` (size, init time) and the Node 22 smoke test
 * (test/integration/deployed-bundles.test.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { BUNDLING } from '../../lib/constructs/api-function';
import { FALLBACK_ROUTE, ROUTES, type RouteDefinition } from '../../src/http/routes';

export const ROOT = path.resolve(__dirname, '..', '..');

/**
 * CDK's BundlingOptions -> esbuild options, as aws-lambda-nodejs builds its
 * command line (`esbuild --bundle <entry> --target --platform=node --format
 * --minify ...`). An option this does not know fails loudly, so a new one in
 * BUNDLING cannot silently be left out of the measurement.
 */
export function esbuildOptionsOf(bundling: Record<string, unknown>): BuildOptions {
  const options: BuildOptions = { bundle: true, platform: 'node', absWorkingDir: ROOT, logLevel: 'silent' };
  for (const [key, value] of Object.entries(bundling)) {
    switch (key) {
      case 'minify':
        options.minify = value as boolean;
        break;
      case 'sourceMap':
        options.sourcemap = value as boolean;
        break;
      case 'target':
        options.target = value as string;
        break;
      case 'format':
        options.format = value as BuildOptions['format'];
        break;
      case 'mainFields':
        options.mainFields = value as string[];
        break;
      case 'externalModules':
        options.external = value as string[];
        break;
      case 'esbuildArgs':
        // CDK renders `--alias` as `--alias:<from>=<to>`; no other argument is used (or mapped) yet.
        for (const [arg, text] of Object.entries(value as Record<string, string>)) {
          const m = /^([^=]+)=(.+)$/.exec(text);
          if (arg !== '--alias' || !m)
            throw new Error(`lambda-bundles: esbuildArgs ${arg}=${text} has no mapping here`);
          options.alias = { ...options.alias, [m[1]!]: m[2]! };
        }
        break;
      case 'bundleAwsSDK':
        // Only decides CDK's default externals; externalModules is given explicitly.
        if (!('externalModules' in bundling) && value !== true) options.external = ['@aws-sdk/*'];
        break;
      default:
        throw new Error(`lambda-bundles: BUNDLING.${key} has no esbuild mapping here; add one`);
    }
  }
  return options;
}

export interface FunctionEntry {
  readonly name: string;
  readonly file: string;
  /** The route needs a bearer token. */
  readonly auth: boolean;
  /** The $default function (no route matched). */
  readonly fallback: boolean;
  /** Package files CDK's command hooks copy next to the handler (the route's `bundleFiles`). */
  readonly bundleFiles: readonly string[];
}

/** Every function CDK deploys: a row of src/http/routes.ts each, plus the fallback. */
export function functionEntries(): { found: FunctionEntry[]; missing: string[] } {
  const found: FunctionEntry[] = [];
  const missing: string[] = [];
  const all = [
    ...ROUTES.map((r) => ({
      name: r.name,
      auth: Boolean(r.auth),
      fallback: false,
      bundleFiles: (r as RouteDefinition).bundleFiles ?? [],
    })),
    { name: FALLBACK_ROUTE.name, auth: false, fallback: true, bundleFiles: [] },
  ];
  for (const entry of all) {
    const file = path.join(ROOT, 'functions', `${entry.name}.ts`);
    if (fs.existsSync(file)) found.push({ ...entry, file });
    else missing.push(entry.name);
  }
  return { found, missing };
}

/**
 * Bundles every function (and the `extra` functions named, e.g. scheduled jobs
 * outside the route table) into `outDir/<name>/index.js` with CDK's options,
 * and what CDK's command hooks put next to a handler (the route's `bundleFiles`).
 * One esbuild build with an entry point per function: esbuild parses a module
 * shared by several entries once, and without `splitting` every output is still
 * a self-contained bundle, byte for byte what a build of its entry alone writes.
 */
export async function bundleFunctions(outDir: string, extra: readonly string[] = []): Promise<Map<string, string>> {
  const entries = [
    ...functionEntries().found,
    ...extra.map((name) => ({ name, file: path.join(ROOT, 'functions', `${name}.ts`), bundleFiles: [] })),
  ];
  await build({
    ...esbuildOptionsOf(BUNDLING),
    entryPoints: Object.fromEntries(entries.map((e) => [`${e.name}/index`, e.file])),
    outdir: outDir,
    write: true,
  });
  const out = new Map<string, string>();
  for (const entry of entries) {
    const dir = path.join(outDir, entry.name);
    for (const file of entry.bundleFiles) fs.copyFileSync(require.resolve(file), path.join(dir, path.basename(file)));
    out.set(entry.name, path.join(dir, 'index.js'));
  }
  return out;
}

/**
 * The esbuild options every function is bundled with (BUNDLING, lib/constructs/api-function.ts) as
 * scripts/lib/lambda-bundles.ts maps them: node:stream/web, which @middy/core imports at load, is the real
 * module once read, and not loaded before (src/http/stream-web-on-demand.cjs).
 */
import { builtinModules } from 'node:module';
import * as webStreams from 'node:stream/web';
import { build } from 'esbuild';
import { BUNDLING } from '../../lib/constructs/api-function';
import { esbuildOptionsOf } from '../../scripts/lib/lambda-bundles';

it('bundles node:stream/web as the real module, loaded on first use', async () => {
  const result = await build({
    ...esbuildOptionsOf(BUNDLING),
    stdin: {
      contents: "import { ReadableStream } from 'node:stream/web'; export const read = () => ReadableStream;",
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    write: false,
  });
  const code = result.outputFiles[0]!.text;
  const required: string[] = [];
  const requireBuiltin = (name: string): unknown => {
    required.push(name);
    if (!builtinModules.includes(name.replace(/^node:/, ''))) throw new Error(`not a built-in: ${name}`);
    return process.getBuiltinModule(name);
  };
  const module = { exports: {} as { read?: () => unknown } };
  new Function('require', 'module', 'exports', code)(requireBuiltin, module, module.exports);
  expect(required).not.toContain('node:stream/web');
  expect(module.exports.read!()).toBe(webStreams.ReadableStream);
});

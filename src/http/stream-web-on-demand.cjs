'use strict';
/**
 * `node:stream/web` as the bundles see it (the esbuild alias in BUNDLING, lib/constructs/api-function.ts):
 * the real module, loaded when something first reads `ReadableStream` from it. @middy/core imports it at
 * load for streamed responses, which no function here sends; loading it eagerly cost every function some
 * 8 % of the bare DocumentClient's init (`npm run bench:cold`). A request that reads DynamoDB loads it
 * anyway (the SDK's response handling), as the baseline's first request does.
 */
Object.defineProperty(exports, 'ReadableStream', {
  enumerable: true,
  // Not require(): the bundler would resolve that through the alias, back to this module.
  get: () => process.getBuiltinModule('node:stream/web').ReadableStream,
});

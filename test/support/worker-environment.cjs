/**
 * The integration files' jest environment: Node's, plus one object that lives as long as the jest worker
 * (`globalThis.__workerCache` in every file it runs). Jest gives each file a fresh module registry, so whatever a
 * file builds is built again by the next one; what is the same for every file and costs a file real CPU may be kept
 * here. It holds the contract checker's compiled response validators (test/support/contract.ts): compiling them
 * was most of the ~0.2 s of CPU the checks cost each file; the OpenAPI document they check against, as JSON (a build
 * is ~40 ms); and the fixtures the harness parsed (test/support/harness.ts).
 */
'use strict';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads an environment as CommonJS
const { TestEnvironment } = require('jest-environment-node');

/** Loaded once per worker process (jest requires the environment module through Node's own module cache). */
const workerCache = {};

class WorkerEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__workerCache = workerCache;
  }
}

module.exports = WorkerEnvironment;

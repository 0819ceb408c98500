/** @type {import('jest').Config} */
const os = require('node:os');
// Type checking happens once in `npm run typecheck`; jest only strips types and turns ES modules into CommonJS,
// which swc does at a fraction of ts-jest's CPU (a cold run compiles every source file once per worker).
const swc = (syntax) => ['@swc/jest', { jsc: { parser: { syntax }, target: 'es2022' }, module: { type: 'commonjs' } }];
const transform = { '^.+\\.ts$': swc('typescript'), '^.+\\.js$': swc('ecmascript') };
// @middy/*, request-filtering-agent and file-type (with its tokenizer packages) ship ES modules only; jest's
// CommonJS runtime needs them transformed.
const transformIgnorePatterns = [
  'node_modules/(?!(@middy|request-filtering-agent|file-type|json-schema-faker|strtok3|token-types|@tokenizer|@borewit|uint8array-extras)/)',
];

// file-type's and json-schema-faker's package exports offer `import` and `module-sync` only, conditions jest's CommonJS resolver does not
// ask for: name its entry file (transformed like the other ES modules above).
// The client package (client/src) is an ES module written for nodenext: its relative imports name the .js files
// its build emits; here they are its TypeScript sources.
const moduleNameMapper = {
  '^file-type$': '<rootDir>/node_modules/file-type/index.js',
  '^json-schema-faker$': '<rootDir>/node_modules/json-schema-faker/dist/index.js',
  '^\\./(schema|operations|timing|webhook)\\.js$': '<rootDir>/client/src/$1.ts',
};

module.exports = {
  testEnvironment: 'node',
  // Integration files share a DynamoDB Local per worker on 2 cores; setup can take seconds under load.
  testTimeout: 30_000,
  // Twice as many workers as cores: many integration files spend much of their time waiting (request deadlines,
  // rate windows, retry back-off, spawned servers), and the other workers run files meanwhile. Full cold `npm test`
  // runs on this 2-core machine, 2026-12-07: 205-213 s with three workers (the CPU idle a quarter of the time),
  // 158 s with four (idle 3 %).
  maxWorkers: os.availableParallelism() * 2,
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      // Node's environment plus a cache that outlives a file (what every file would build again the same way).
      testEnvironment: '<rootDir>/test/support/worker-environment.cjs',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/record-calls.ts'],
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      displayName: 'infra',
      testMatch: ['<rootDir>/test/infra/**/*.test.ts'],
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
    },
  ],
};

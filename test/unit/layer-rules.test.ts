import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The import-direction rule in eslint.config.mjs, run on source strings as if
 * they were files of each layer: a wrong import fails `npm run lint`. Same for
 * the entity rule: a raw index attribute (ListPK, UpdatedSK, ...) outside
 * src/data/entities/ and the table definition fails it too.
 * (ESLint runs in a child process: its flat config is an ES module, which
 * jest's CommonJS runtime cannot load.)
 */
const root = join(__dirname, '..', '..');

/** Lints every case in one child process (ESLint's API, one config load); rule ids per case. */
function lintAll(cases: readonly (readonly [string, string, ...unknown[]])[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const eslint = new ESLint({ cwd: process.cwd() });
    Promise.all(cases.map(([filePath, code]) => eslint.lintText(code, { filePath }))).then((results) =>
      process.stdout.write(JSON.stringify(results.map((r) => r.flatMap((x) => x.messages.map((m) => m.ruleId ?? 'fatal'))))),
    );`;
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: root,
    input: JSON.stringify(cases),
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[][];
}

const cases: [file: string, source: string, allowed: boolean][] = [
  ['src/data/x.ts', "export { notFound } from '../domain/errors';", true],
  ['src/data/x.ts', "export { toHttpError } from '../http/middleware';", false],
  ['src/data/entities/x.ts', "export { routeOf } from '../../http/handler';", false],
  ['src/domain/x.ts', "export { keys } from '../data/keys';", false],
  ['src/domain/x.ts', "import Ajv from 'ajv';\nexport const a = Ajv;", false],
  ['src/domain/errors.ts', "export { LOCALES } from './business';", false],
  ['src/schemas/x.ts', "export { getItem } from '../data/table-io';", false],
  ['src/services/x.ts', "export { ROUTES } from '../http/routes';", false],
  ['src/services/x.ts', "export { getItem } from '../data/table-io';", true],
  ['src/http/x.ts', "export { createEmployee } from '../services/employees';", true],
  ['src/http/x.ts', "export { ApiStack } from '../../lib/api-stack';", false],
  ['src/openapi/x.ts', "export { ROUTES } from '../http/routes';", true],
  ['src/openapi/x.ts', "export { getItem } from '../data/table-io';", false],
  ['functions/x.ts', "export { TABLE } from '../lib/api-stack';", false],
  ['functions/x.ts', "export { apiHandler } from '../src/http/handler';", true],
  ['functions/x.ts', "export { createEmployee } from '../src/services/employees';", true],
  ['functions/x.ts', "export { default } from '../src/schemas/generated/validate-page-query';", true],
  ['functions/x.ts', "export { bodyValidator } from '../src/schemas/validation';", false],
  ['functions/x.ts', "export { idempotencyOf } from '../src/data/idempotency';", false],
  ['functions/x.ts', "export { runWithDeadline } from '../src/data/deadline';", false],
  ['functions/x.ts', "export { ok } from '../src/domain/result';", false],
  ['lib/x.ts', "export { ROUTES } from '../src/http/routes';", true],
  ['client/src/x.ts', "export { ROUTES } from '../../src/http/routes';", false],
  ['client/src/x.ts', "export { OPERATIONS } from './operations.js';", true],
  ['src/http/x.ts', "export { createClient } from '../../client/src/index';", false],
  ['src/data/x.ts', "export { readPositions } from './lists';", true],
  ['src/data/x.ts', "export { readPositions } from './lists/store';", false],
  ['src/services/x.ts', "export { reservedTime } from '../data/lists/sequence';", false],
  ['src/data/lists/x.ts', "export { readPositions } from './store';", true],
];

const RAW = 'no-restricted-syntax';
const indexAttributeCases: [file: string, source: string, allowed: boolean][] = [
  ['src/services/x.ts', 'export const position = (item: Record<string, number>) => item.ListSK;', false],
  ['src/data/x.ts', "export const condition = 'UpdatedPK = :p AND UpdatedSK >= :from';", false],
  ['src/data/x.ts', 'export const keys = { SubPK: 1, SubSK: 2 };', false],
  ['scripts/x.ts', 'const lane = 1;\nexport const q = `StatusPK = ${lane}`;', false],
  ['src/data/entities/x.ts', 'export const keys = { ListPK: 1, ListSK: 2 };', true],
  ['src/data/dynamo/table-definition.ts', "export const index = { partitionKey: 'UpdatedPK' };", true],
  ['src/data/x.ts', "export const notAnIndexAttribute = 'ListPKS';", true],
  ['src/http/x.ts', "export const grant = { indexes: ['statuslist-keys'] };", false],
  ['src/data/x.ts', "export const q = { IndexName: 'updatedlist-keys' };", false],
  ['src/data/entities/x.ts', "export const p = { index: 'list-keys' };", true],
  ['src/data/x.ts', "export const notAnIndexName = 'list-keys-old';", true],
  ['src/data/x.ts', "export const put = { ConditionExpression: 'attribute_not_exists(PK)' };", false],
  ['src/data/x.ts', "export const q = { KeyConditionExpression: 'PK = :p AND begins_with(SK, :s)' };", false],
  ['scripts/x.ts', 'const k = 1;\nexport const p = `SK = ${k}`;', false],
  ['src/data/entities/x.ts', "export const IF_ABSENT = 'attribute_not_exists(PK)';", true],
  ['src/domain/x.ts', "export const countries = 'PE PK PL';", true],
];

describe('layer import rule (eslint no-restricted-imports)', () => {
  const results = lintAll([...cases, ...indexAttributeCases]);
  test.each(cases.map((c, i) => [...c, i] as const))('%s: %s -> allowed %s', (_file, _source, allowed, i) => {
    const problems = results[i];
    if (allowed) expect(problems).toEqual([]);
    else expect(problems).toContain('no-restricted-imports');
  });

  test.each(indexAttributeCases.map((c, i) => [...c, cases.length + i] as const))(
    'index attributes only in entity modules: %s: %s -> allowed %s',
    (_file, _source, allowed, i) => {
      const problems = results[i];
      if (allowed) expect(problems).not.toContain(RAW);
      else expect(problems).toContain(RAW);
    },
  );
});

/**
 * The served OpenAPI document is strict enough for a generated client: types
 * generated from it (openapi-typescript, used through openapi-fetch) accept a
 * correct program and reject a misspelled field, a wrong enum value, a missing
 * required field and a misspelled locale field.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { API, startApi, type TestApi } from '../support/harness';

const ROOT = path.join(__dirname, '..', '..');
let api: TestApi;
let dir: string;

/** Each `// @ts-expect-error` line of the program, and a word its error must name. */
const EXPECTED_ERRORS = [
  { marker: 'misspelled field', mentions: 'frist_name' },
  { marker: 'enum value', mentions: '"other"' },
  { marker: 'required consent', mentions: 'accept_terms_and_conditions' },
  { marker: 'locale field', mentions: 'nmae_de' },
  { marker: 'job type', mentions: '"permanent"' },
];

const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type CustomFields = Record<\`cf_\${number}\`, unknown>;
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:9' });

export async function program(): Promise<void> {
  const custom: CustomFields = { cf_5: 3 };
  const created = await client.POST('${API}/employees', {
    params: { header: { 'Accept-Language': 'de', 'Idempotency-Key': 'k1' } },
    body: { first_name: 'Anna', last_name: 'Huber', gender: 'female', country_code: 'IT', ...custom },
  });
  if (created.data) {
    const id: string = created.data.id;
    const active: boolean = created.data.has_active_employee_job;
    await client.PUT('${API}/employees/{id}', { params: { path: { id } }, body: { email: null, city: 'Meran' } });
    void active;
  }
  const page = await client.GET('${API}/locations', { params: { query: { page: 2, per_page: 10 } } });
  const name: string | null | undefined = page.data?.entries[0]?.name_de;
  const job: components['schemas']['EmployeeJobCreate'] = { employee_id: 'e', name: 'Cook', from: '2026-01-01', job_type: 'seasonal' };
  await client.POST('${API}/applications', {
    body: { accept_terms_and_conditions: true, first_name: 'Lena', last_name: 'Huber', email: 'l@example.com' },
  });
  void name;
  void job;

  // openapi-fetch infers the body generically, so excess keys are caught where a body is typed as the schema
  // (with patternProperties, the generated index signature let this compile).
  // @ts-expect-error misspelled field
  const typoBody: components['schemas']['EmployeeCreate'] = { first_name: 'A', last_name: 'B', frist_name: 'A' };
  // @ts-expect-error enum value
  await client.POST('${API}/employees', { body: { first_name: 'A', last_name: 'B', gender: 'other' } });
  // @ts-expect-error required consent
  await client.POST('${API}/applications', { body: { first_name: 'A', last_name: 'B', email: 'a@example.com' } });
  // @ts-expect-error locale field
  const typo = page.data?.entries[0]?.nmae_de;
  // @ts-expect-error job type
  const wrongJob: components['schemas']['EmployeeJobCreate'] = { employee_id: 'e', name: 'Cook', from: '2026-01-01', job_type: 'permanent' };
  void typo;
  void typoBody;
  void wrongJob;
}
`;

/** Diagnostics of the program next to the generated schema, as `line: message`. */
function typeCheck(source: string): { line: number; text: string }[] {
  const file = path.join(dir, 'program.ts');
  fs.writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    text: `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  }));
}

beforeAll(async () => {
  api = await startApi();
  // Inside the repository, so the program resolves openapi-fetch from its node_modules.
  fs.mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
  dir = fs.mkdtempSync(path.join(ROOT, '.cache', 'typed-client-'));
  const served = await api.request('GET', `${API}/openapi.json`);
  expect(served.status).toBe(200);
  fs.writeFileSync(path.join(dir, 'openapi.json'), served.text);
  // openapi-typescript is an ES module with ES module dependencies: run its CLI in its own node process.
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), 'openapi.json', '--output', 'schema.d.ts'],
    { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, REDOCLY_TELEMETRY: 'off' } },
  );
  if (run.status !== 0) throw new Error(`openapi-typescript failed: ${run.stderr}`);
}, 180_000);

afterAll(async () => {
  await api?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a client generated from the served document', () => {
  it('has no index signature that would accept any key in a body', () => {
    const schema = fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8');
    expect(schema).toContain('EmployeeCreate: {');
    expect(schema).not.toMatch(/\[key: string\]: unknown/);
  });

  it('type-checks a correct program, and each @ts-expect-error line is an error for the right reason', () => {
    expect(typeCheck(PROGRAM)).toEqual([]);
    const lines = PROGRAM.split('\n');
    const withoutDirectives = lines.map((l) => (l.includes('@ts-expect-error') ? '' : l)).join('\n');
    const errors = typeCheck(withoutDirectives);
    for (const { marker, mentions } of EXPECTED_ERRORS) {
      const line = lines.findIndex((l) => l.includes(`@ts-expect-error ${marker}`)) + 2;
      const onLine = errors.filter((e) => e.line === line);
      expect({ marker, errors: onLine.map((e) => e.text).join('\n') }).toEqual({
        marker,
        errors: expect.stringContaining(mentions),
      });
    }
    expect(new Set(errors.map((e) => e.line)).size).toBe(EXPECTED_ERRORS.length);
  });
});

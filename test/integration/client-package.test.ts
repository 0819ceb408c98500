/**
 * The client as its users get it (contract §23): its types are the served document's (regenerated from the live
 * document, they equal the committed ones), `npm pack --workspace client` makes a tarball that installs into an
 * empty project without the network, whose declarations type-check a sample under strict nodenext and refuse a
 * misspelt field or operation, and the sample and examples/sync-employees.mjs run against the local server. Also
 * the size budget.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { transformSync } from 'esbuild';
import ts from 'typescript';
import demo from '../../fixtures/demo.json';
import { API, startApi, type TestApi } from '../support/harness';

const ROOT = path.join(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let api: TestApi;
let token: string;
let work: string;
let project: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: 'consumer' } });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  project = path.join(work, 'project');
}, 60_000);
afterAll(async () => {
  await api.close();
  fs.rmSync(work, { recursive: true, force: true });
});

it('the committed types and operation table are what the served document generates', async () => {
  const served = await api.request('GET', `${API}/openapi.json`);
  expect(served.status).toBe(200);
  fs.writeFileSync(path.join(work, 'openapi.json'), served.text);
  execFileSync(process.execPath, [path.join(ROOT, 'client', 'scripts', 'generate.mjs'), 'openapi.json', '.'], {
    cwd: work,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
  });
  for (const file of ['schema.ts', 'operations.ts']) {
    const committed = fs.readFileSync(path.join(ROOT, 'client', 'src', file), 'utf8');
    // A difference here: run `npm run generate --workspace client -- <served openapi.json>` and commit the result.
    expect({ file, same: fs.readFileSync(path.join(work, file), 'utf8') === committed }).toEqual({ file, same: true });
  }
});

/** A consumer's program, as a browser or edge runtime sees it (DOM types, no Node's); BASE_URL and TOKEN filled in. */
const SAMPLE = `import { ApiError, createClient, NotFoundError, verifyWebhook } from 'hr-api-client';

const client = createClient({ baseUrl: 'BASE_URL', token: 'TOKEN', language: 'en' });
const employee = await client.createEmployee({ body: { first_name: 'Anna', last_name: 'Huber', gender: 'female' } });
const updated = await client.updateEmployee({ id: employee.id, body: { phone: '+39 0471 000000' } });
const page = await client.listApplications({ job_id: 'null', per_page: 5 });
const names: string[] = [];
for await (const e of client.paginate('listEmployees', { per_page: 2 })) names.push(e.last_name);
const types: string[] = [];
const created: string[] = [];
for await (const entry of client.changes({ types: ['employee.created', 'employee.updated'] })) {
  types.push(entry.type);
  if (entry.type === 'employee.created') created.push(entry.data.first_name); // \`data\` is typed by \`type\`
}
const custom: string | number | boolean | string[] | null = employee.cf_1 ?? null; // custom field values read
let code = '';
try {
  await client.getEmployee({ id: 'missing' });
} catch (error) {
  if (error instanceof NotFoundError && error instanceof ApiError) code = error.code;
}
// A delivery signed as Standard Webhooks sign it, with WebCrypto.
const secretBytes = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
const secret = 'whsec_' + btoa(String.fromCharCode(...secretBytes));
const body = JSON.stringify({ cursor: 'c1', type: 'employee.created', id: employee.id, data: employee });
const timestamp = String(Math.floor(Date.now() / 1000));
const key = await crypto.subtle.importKey('raw', secretBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('msg_1.' + timestamp + '.' + body));
const signature = 'v1,' + btoa(String.fromCharCode(...new Uint8Array(mac)));
const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': timestamp, 'webhook-signature': signature };
const event = await verifyWebhook(secret, { headers, body });
console.log(JSON.stringify({ phone: updated.phone, total: page.total_entries, names, types, created, custom, code, verified: event.id === employee.id }));
`;

/** Each line of bad.ts is one mistake; the error tsc must report on it names this. */
const MISTAKES: [string, string][] = [
  [`await client.createEmployee({ body: { frist_name: 'A', last_name: 'B' } });`, 'frist_name'],
  [`await client.craeteEmployee({ body: { first_name: 'A', last_name: 'B' } });`, 'craeteEmployee'],
  [`await client.createEmployee({ body: { first_name: 'A', last_name: 'B', gender: 'other' } });`, '"other"'],
  [
    `await client.createApplication({ body: { first_name: 'A', last_name: 'B', email: 'a@example.com' } });`,
    'accept_terms_and_conditions',
  ],
  [`await client.listEmployees({ pgae: 2 });`, 'pgae'],
  [`await client.getEmployee({});`, 'id'],
  [`(await client.getLocation({ id: 'hq' })).nmae_de;`, 'nmae_de'],
  [
    `await client.createEmployeeJob({ body: { employee_id: 'e', name: 'Cook', from: '2026-01-01', job_type: 'permanent' } });`,
    '"permanent"',
  ],
  [`for await (const e of client.paginate('listChanges')) void e;`, 'listChanges'],
  [`for await (const e of client.changes({ types: ['employee.deleted'] })) void e;`, '"employee.deleted"'],
  [`(await client.getEmployee({ id: 'e' })).frist_name;`, 'frist_name'],
  [`for await (const e of client.changes()) if (e.type === 'import.failed') void e.data.first_name;`, 'first_name'],
];
const BAD = `import { createClient } from 'hr-api-client';
const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: 't' });
${MISTAKES.map(([line]) => line).join('\n')}
`;

it('packs, installs from the tarball offline, type-checks a sample (strict, nodenext) and runs it; fits 12 kB', async () => {
  const packed = JSON.parse(
    execFileSync(NPM, ['pack', '--workspace', 'client', '--json', '--pack-destination', work], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]!.files.map((f) => f.path).sort();
  expect(files).toEqual(
    expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'package.json']),
  );
  expect(files.filter((f) => f.startsWith('src/') || f.startsWith('scripts/'))).toEqual([]);

  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  execFileSync(NPM, ['install', '--offline', '--no-audit', '--no-fund', path.join(work, packed[0]!.filename)], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  // One program for both files: sample.ts must be clean, each line of bad.ts must fail for its own reason.
  const sample = SAMPLE.replace('BASE_URL', api.baseUrl).replace('TOKEN', token);
  fs.writeFileSync(path.join(project, 'sample.ts'), sample);
  fs.writeFileSync(path.join(project, 'bad.ts'), BAD);
  const program = ts.createProgram([path.join(project, 'sample.ts'), path.join(project, 'bad.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    // TypeScript's own lib files are not checked (half of this program's CPU): the package's declarations still are.
    skipDefaultLibCheck: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file ? path.basename(d.file.fileName) : '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
  expect(diagnostics.filter((d) => d.file !== 'bad.ts')).toEqual([]);
  const found = MISTAKES.map(([, mentions], i) => ({
    mentions,
    errors: diagnostics
      .filter((d) => d.file === 'bad.ts' && d.line === i + 3)
      .map((d) => d.text)
      .join('\n'),
  }));
  expect(found).toEqual(MISTAKES.map(([, mentions]) => ({ mentions, errors: expect.stringContaining(mentions) })));

  const js = ts.transpileModule(sample, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  fs.writeFileSync(path.join(project, 'sample.mjs'), js);
  // Asynchronously: the server it calls runs in this process.
  const run = await promisify(execFile)(process.execPath, ['sample.mjs'], { cwd: project, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({
    phone: '+39 0471 000000',
    total: 0,
    names: ['Huber'],
    types: ['employee.created', 'employee.updated'],
    created: ['Anna'],
    custom: null,
    code: 'not_found',
    verified: true,
  });

  // examples/sync-employees.mjs, as a user runs it with the installed package: a first run copies the feed to its
  // head, a second applies only what changed since (its checkpoint on disk), a third finds nothing new.
  fs.copyFileSync(path.join(ROOT, 'examples', 'sync-employees.mjs'), path.join(project, 'sync.mjs'));
  const sync = async () =>
    JSON.parse(
      (
        await promisify(execFile)(process.execPath, ['sync.mjs', 'copy.json'], {
          cwd: project,
          encoding: 'utf8',
          env: { PATH: process.env.PATH, BASE_URL: api.baseUrl, TOKEN: token },
        })
      ).stdout,
    );
  expect(await sync()).toMatchObject({ applied: 2, employees: 1 }); // the sample's create and update
  const post = async (last_name: string) =>
    (await api.request('POST', `${API}/employees`, { token, body: { first_name: 'Sync', last_name } })).body
      .id as string;
  const [a, b] = [await post('A'), await post('B')];
  await api.request('PUT', `${API}/employees/${a}`, { token, body: { city: 'Bozen' } });
  expect(await sync()).toMatchObject({ applied: 3, employees: 3 });
  expect(await sync()).toMatchObject({ applied: 0, employees: 3 });
  const copy = JSON.parse(fs.readFileSync(path.join(project, 'copy.json'), 'utf8'));
  for (const id of [a, b])
    expect(copy.employees[id]).toEqual((await api.request('GET', `${API}/employees/${id}`, { token })).body);
  expect(copy.employees[a].city).toBe('Bozen');

  // Size (contract §23): the packed bundle, minified and gzipped.
  const bundle = fs.readFileSync(path.join(project, 'node_modules', 'hr-api-client', 'dist', 'index.js'), 'utf8');
  const gzipped = gzipSync(transformSync(bundle, { minify: true, format: 'esm' }).code, { level: 9 }).length;
  console.log(`client bundle: ${bundle.length} bytes, minified and gzipped ${gzipped} bytes`);
  expect(gzipped).toBeLessThanOrEqual(12 * 1024);
}, 120_000);

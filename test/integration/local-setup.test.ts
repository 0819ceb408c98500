import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import demo from '../../fixtures/demo.json';
import { TABLE } from '../../src/data/dynamo/table-definition';
import { adminWith } from '../support/admin';
import { withoutRecords } from '../support/demo-setup';
import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import {
  createTableInput,
  freePort,
  localClient,
  startDynamoLocal,
  type RunningDynamo,
  LIGHT_JVM_OPTIONS,
} from '../../scripts/lib/dynamodb-local';

/**
 * Contract §10 on a fresh checkout and on any DynamoDB Local: `npm start` and
 * `npm run admin` with DYNAMODB_ENDPOINT, with and without -sharedDb, whatever
 * AWS_REGION says; operator mistakes are one line on stderr. (`npm run admin`
 * on the suite's -sharedDb DynamoDB Local with AWS_REGION set: the first case
 * of test/integration/admin-import.test.ts.) The mistakes run the tool in this
 * process where they can (test/support/admin.ts: the same arguments, exit code
 * and lines); a failing tool's own process and exit code are also admin-import's
 * "on AWS" case.
 */
const root = join(__dirname, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const quietEnv = { POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

let unshared: RunningDynamo;
let checkout: string;
const children: ChildProcess[] = [];

/** A copy of the sources as a fresh clone has them: no .dynamodb/ folder. */
function freshCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'checkout-'));
  for (const entry of ['scripts', 'src', 'lib', 'functions', 'fixtures', 'package.json', 'tsconfig.json'])
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function run(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(tsx, args, { cwd: options.cwd, env: { ...process.env, ...quietEnv, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const admin = (env: Record<string, string>, ...args: string[]) =>
  run(['scripts/admin.ts', ...args], { cwd: root, env });

/** `npm start` in `cwd`; resolves with the base URL and the token it prints. */
function npmStart(cwd: string, env: Record<string, string>): Promise<{ base: string; token: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, ['scripts/local-server.ts'], { cwd, env: { ...process.env, ...quietEnv, ...env } });
    children.push(child);
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const base = /Base URL: (\S+)/.exec(out)?.[1];
      const token = /Token: +(\S+)/.exec(out)?.[1];
      if (base && token) resolve({ base: base.replace('localhost', '127.0.0.1'), token });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
}

const get = async (url: string, token: string) =>
  (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status;

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { token: string };

beforeAll(async () => {
  // The official jar's default: one database per access key and region.
  unshared = await startDynamoLocal({ sharedDb: false, jvmOptions: LIGHT_JVM_OPTIONS });
  checkout = freshCheckout();
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await unshared.stop();
  rmSync(checkout, { recursive: true, force: true });
});

describe('local tools against your own DynamoDB Local (contract §10)', () => {
  it('npm start on a fresh checkout serves the API from DYNAMODB_ENDPOINT (no -sharedDb); admin import works on it', async () => {
    const env = { DYNAMODB_ENDPOINT: unshared.endpoint, TABLE_NAME: 'hr-api', AWS_REGION: 'eu-west-3' };
    const { base, token } = await npmStart(checkout, { ...env, PORT: String(await freePort()) });
    expect(await get(`${base}/locations`, token)).toBe(200);
    // The local data folder is created on demand and private to its owner.
    expect(statSync(join(checkout, '.dynamodb')).mode & 0o777).toBe(0o700);
    expect(statSync(join(checkout, '.dynamodb', 'demo-token')).mode & 0o777).toBe(0o600);

    // Another region in the admin's environment still reaches the same database.
    const fixture = join(checkout, 'acme.json');
    writeFileSync(fixture, JSON.stringify({ ...withoutRecords(demo), business: { ...demo.business, id: 'acme' } }));
    const imported = await admin({ ...env, AWS_REGION: 'ap-south-1' }, 'import', fixture);
    expect(imported).toMatchObject({ code: 0 });
    expect(await get(`${base}/locations/hq`, lastJson(imported.stdout).token)).toBe(200);
  }, 120_000);

  // The unreachable endpoint runs in a process of its own: inside jest's sandbox the SDK wraps the connection error
  // (an Error of another realm), so the line an operator sees for it is only seen there.
  it.each([
    ['a 2-character TABLE_NAME', { TABLE_NAME: 'ab' }, /TABLE_NAME "ab" is not a valid DynamoDB table name/, adminWith],
    [
      'an unreachable endpoint',
      { DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' },
      /cannot reach DynamoDB at http:\/\/127\.0\.0\.1:1/,
      admin,
    ],
  ])(
    'admin with %s: one clear line on stderr, non-zero exit, no stack trace',
    async (_, env, message, runAdmin) => {
      const res = await runAdmin(
        { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!, TABLE_NAME: 'hr-api', ...env },
        'import',
        join(root, 'fixtures', 'demo.json'),
      );
      expect(res.code).not.toBe(0);
      expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      expect(res.stdout).toBe('');
    },
    60_000,
  );

  // A table kept from another checkout: the admin tool says in one line to delete it, and writes nothing.
  it.each<[string, (input: CreateTableCommandInput) => CreateTableCommandInput, RegExp]>([
    [
      'with other indexes than the definition',
      // The same index names over other key attributes.
      (input) => ({
        ...(JSON.parse(JSON.stringify(input).replace(/"(\w+)(PK|SK)"/g, '"X$1$2"')) as CreateTableCommandInput),
        KeySchema: input.KeySchema,
      }),
      /has indexes .* delete the table/,
    ],
    [
      'of an older item layout (no layout item)',
      // The indexes of today's definition, created by a checkout from before the layout item.
      (input) => input,
      /holds items of an older layout, this checkout writes layout \d+ .* delete the table/,
    ],
  ])(
    'admin on a table %s: one line saying to delete it, nothing written',
    async (_label, made, message) => {
      const client = localClient(process.env.DYNAMODB_ENDPOINT!);
      const TableName = `kept-${process.pid}-${message.source.length}`;
      await client.send(new CreateTableCommand(made(createTableInput(TableName))));
      try {
        const res = await adminWith(
          { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!, TABLE_NAME: TableName },
          'import',
          join(root, 'fixtures', 'demo.json'),
        );
        expect(res.code).not.toBe(0);
        expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
        expect((await client.send(new ScanCommand({ TableName }))).Count).toBe(0);
      } finally {
        client.destroy();
      }
    },
    60_000,
  );

  // The launcher keeps each table's parsed schema by its bytes (scripts/lib/dynamodb-local-launcher.java): two
  // tables whose schemas differ only in an index name (the same length), and a schema changed by UpdateTable and
  // UpdateTimeToLive, must each be served as they are now.
  it('DynamoDB Local serves every table by its own schema, also after the schema changed', async () => {
    const client = localClient(unshared.endpoint);
    const [a, b] = ['schema-a', 'schema-b'];
    const listIndex = TABLE.indexes.find((index) => index.name === 'list-keys')!;
    const input = (TableName: string, name: string) => createTableInput(TableName, [{ ...listIndex, name }]);
    const query = (TableName: string, IndexName: string) =>
      client.send(
        new QueryCommand({
          TableName,
          IndexName,
          KeyConditionExpression: 'ListPK = :p',
          ExpressionAttributeValues: { ':p': { S: 'L' } },
        }),
      );
    try {
      for (const [TableName, IndexName] of [
        [a, 'list-a'],
        [b, 'list-b'],
      ] as const) {
        await client.send(new CreateTableCommand(input(TableName, IndexName)));
        const item = { PK: { S: 'p' }, SK: { S: TableName }, ListPK: { S: 'L' }, ListSK: { N: '1' } };
        await client.send(new PutItemCommand({ TableName, Item: item }));
      }
      expect((await query(a, 'list-a')).Items?.map((i) => i.SK?.S)).toEqual([a]);
      expect((await query(b, 'list-b')).Items?.map((i) => i.SK?.S)).toEqual([b]);
      await expect(query(a, 'list-b')).rejects.toThrow(/index/i);

      await client.send(
        new UpdateTableCommand({
          TableName: a,
          AttributeDefinitions: input(a, 'list-c').AttributeDefinitions,
          GlobalSecondaryIndexUpdates: [{ Create: input(a, 'list-c').GlobalSecondaryIndexes![0]! }],
        }),
      );
      await client.send(
        new UpdateTimeToLiveCommand({ TableName: b, TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } }),
      );
      await client.send(
        new PutItemCommand({
          TableName: a,
          Item: { PK: { S: 'q' }, SK: { S: 'later' }, ListPK: { S: 'L' }, ListSK: { N: '2' } },
        }),
      );
      expect((await query(a, 'list-c')).Items?.map((i) => i.SK?.S)).toEqual([a, 'later']);
      await expect(query(b, 'list-c')).rejects.toThrow(/index/i);
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: b }));
      expect(ttl.TimeToLiveDescription?.AttributeName).toBe('ttl');
    } finally {
      client.destroy();
    }
  }, 30_000);
});

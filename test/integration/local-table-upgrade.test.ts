/**
 * A local table an older checkout created (a persisted .dynamodb/ folder)
 * has the legacy ALL list indexes: `ensureTable` brings it to the table
 * definition (the key-only indexes added, the legacy ones deleted, items
 * kept), so `npm start` keeps working after the key-only indexes (issue 19.5).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  QueryCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, ensureTable, localClient } from '../../scripts/lib/dynamodb-local';
import { application } from '../../src/data/entities/application';
import { keyNames } from '../../src/data/entities/entity';
import { indexesAtStep, projectionOf, TABLE } from '../../src/data/table-definition';

// The shared DynamoDB Local of jest's globalSetup, a table of this file's own.
const endpoint = (): string => process.env.DYNAMODB_ENDPOINT!;
let client: DynamoDBClient;
const TABLE_NAME = `legacy-table-${process.pid}`;

beforeAll(() => void (client = localClient(endpoint())));
afterAll(() => client?.destroy());

it('adds the key-only indexes, deletes the legacy ones, keeps the items and answers on the new indexes', async () => {
  const legacy = indexesAtStep(0).indexes;
  const input = createTableInput(TABLE_NAME);
  await client.send(
    new CreateTableCommand({
      ...input,
      AttributeDefinitions: [
        ...(input.AttributeDefinitions ?? []),
        { AttributeName: 'T1SK', AttributeType: 'S' },
        { AttributeName: 'T1PK', AttributeType: 'S' },
        { AttributeName: 'T2SK', AttributeType: 'S' },
        { AttributeName: 'T2PK', AttributeType: 'S' },
        { AttributeName: 'T3SK', AttributeType: 'S' },
        { AttributeName: 'T3PK', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexes: legacy.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: projectionOf(index),
      })),
    }),
  );
  const { pk, sk } = keyNames(application.patterns.byPosition.index);
  const partition = application.patterns.byPosition.partition({ businessId: 'old' });
  await client.send(
    new PutItemCommand({
      TableName: TABLE_NAME,
      Item: {
        ...Object.fromEntries(Object.entries(application.key('old', 'a1')).map(([k, v]) => [k, { S: v }])),
        [pk]: { S: partition },
        [sk]: { N: '1' },
        first_name: { S: 'Ada' },
      },
    }),
  );

  expect(await ensureTable(endpoint(), TABLE_NAME)).toBe(false);

  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE_NAME }));
  expect((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual(
    TABLE.indexes.map((i) => i.name).sort(),
  );
  const found = await client.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: application.patterns.byPosition.index,
      KeyConditionExpression: '#pk = :p',
      ExpressionAttributeNames: { '#pk': pk },
      ExpressionAttributeValues: { ':p': { S: partition } },
    }),
  );
  expect(found.Items).toHaveLength(1);
  // Keys only: the name is read from the record by key.
  expect(found.Items![0]).not.toHaveProperty('first_name');
  // A second run changes nothing.
  expect(await ensureTable(endpoint(), TABLE_NAME)).toBe(false);
});

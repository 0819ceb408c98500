import { startDynamoLocal } from '../../scripts/lib/dynamodb-local';

/** One in-memory DynamoDB Local for the whole run; each test file creates its own table in it. */
export default async function globalSetup(): Promise<void> {
  if (process.env.DYNAMODB_ENDPOINT) return;
  const dynamo = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  (globalThis as { __DYNAMO__?: typeof dynamo }).__DYNAMO__ = dynamo;
}

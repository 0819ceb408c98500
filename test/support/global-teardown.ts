import type { RunningDynamo } from '../../scripts/lib/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __DYNAMO__?: RunningDynamo }).__DYNAMO__?.stop();
}

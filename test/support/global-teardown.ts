import type { RunningDynamo } from '../../scripts/lib/dynamodb-local';
import type { RunningS3 } from '../../scripts/lib/s3-local';
import { checkGrants, readObservedCalls } from './dynamo-calls';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __DYNAMO__?: RunningDynamo }).__DYNAMO__?.stop();
  await (globalThis as { __S3__?: RunningS3 }).__S3__?.stop();
  // Every worker has written its file by now: the IAM grants must cover every call the tests saw.
  const { undeclared, unobserved } = checkGrants(readObservedCalls());
  if (unobserved.length > 0) {
    console.warn(`IAM grants never used by the tests (src/http/grants.ts TABLE_GRANTS):\n  ${unobserved.join('\n  ')}`);
  }
  if (undeclared.length > 0) {
    throw new Error(
      `DynamoDB calls missing from the IAM grants in src/http/grants.ts (TABLE_GRANTS) — AccessDenied on AWS:\n  ${undeclared.join('\n  ')}`,
    );
  }
}

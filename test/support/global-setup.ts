import * as fs from 'node:fs';
import { startDynamoLocal, LIGHT_JVM_OPTIONS } from '../../scripts/lib/dynamodb-local';
import { startS3Local } from '../../scripts/lib/s3-local';
import { CALLS_DIR } from './dynamo-calls';
import { demoSetupFile } from './demo-setup';

/**
 * One in-memory DynamoDB Local and one local S3-compatible server for the whole run; each test file creates its
 * own table and bucket in them (one DynamoDB Local for the three workers: docs/decisions/005, eleventh pass).
 */
export default async function globalSetup(): Promise<void> {
  // The SDK warns that Node 20 support ends in 2027; Lambda runs nodejs22.x. Keep test output readable.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Observed DynamoDB calls of this run only (checked against the IAM grants in globalTeardown).
  fs.rmSync(CALLS_DIR, { recursive: true, force: true });
  // Every `npm start` a test spawns imports the demo's setup only (test/support/demo-setup.ts).
  process.env.DEMO_FIXTURE ??= demoSetupFile();
  if (!process.env.S3_ENDPOINT) {
    const s3 = await startS3Local();
    process.env.S3_ENDPOINT = s3.endpoint;
    (globalThis as { __S3__?: typeof s3 }).__S3__ = s3;
  }
  if (process.env.DYNAMODB_ENDPOINT) return;
  const dynamo = await startDynamoLocal({ jvmOptions: LIGHT_JVM_OPTIONS });
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  (globalThis as { __DYNAMO__?: typeof dynamo }).__DYNAMO__ = dynamo;
}

import * as fs from 'node:fs';
import { startDynamoLocal, TEST_JVM_OPTIONS } from '../../scripts/lib/dynamodb-local';
import { startS3Local } from '../../scripts/lib/s3-local';
import { CALLS_DIR } from './dynamo-calls';
import { demoSetupFile } from './demo-setup';

/**
 * One in-memory DynamoDB Local per jest worker and one local S3-compatible server for the whole run; each test
 * file creates its own table and bucket in them. test/support/worker-endpoint.ts points each file at its worker's
 * DynamoDB Local.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
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
  const count = Math.max(1, Math.min(globalConfig.maxWorkers, Number(process.env.INTEGRATION_FILES) || Infinity));
  const dynamos = await Promise.all(
    Array.from({ length: count }, () => startDynamoLocal({ jvmOptions: TEST_JVM_OPTIONS })),
  );
  process.env.DYNAMODB_ENDPOINTS = dynamos.map((d) => d.endpoint).join(' ');
  process.env.DYNAMODB_ENDPOINT = dynamos[0]!.endpoint;
  (globalThis as { __DYNAMOS__?: typeof dynamos }).__DYNAMOS__ = dynamos;
}

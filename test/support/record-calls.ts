/**
 * Integration setup file (runs inside each test file): after the file, its
 * observed DynamoDB calls go to a file of their own, so parallel workers never
 * write the same file. See test/support/dynamo-calls.ts.
 */
import { createHash } from 'node:crypto';
import { observedCalls } from '../../src/data/dynamo/call-scope';
import { writeObservedCalls } from './dynamo-calls';

afterAll(() => {
  const testPath = expect.getState().testPath ?? String(process.pid);
  const id = createHash('sha256').update(testPath).digest('hex').slice(0, 16);
  writeObservedCalls(`${id}.txt`, observedCalls);
});

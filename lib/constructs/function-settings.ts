/**
 * The numbers every API function is deployed with, as plain values: the construct (api-function.ts) turns them into
 * CDK's types, and what runs locally reads them without loading aws-cdk-lib (the local server, which every
 * integration test file and every `npm start` loads, counts a request's deadline from the timeout).
 */
export const FUNCTION_SETTINGS = {
  memorySize: 512,
  timeoutSeconds: 10,
  /** esbuild target, kept in step with the runtime (api-function.ts). */
  target: 'node22',
} as const;

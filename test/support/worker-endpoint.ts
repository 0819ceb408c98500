/**
 * Integration setup file (runs inside each test file, before it): the file talks to its worker's own DynamoDB
 * Local (test/support/global-setup.ts starts one per worker), so the workers' requests do not queue in one JVM.
 * Processes a file spawns inherit it through process.env.
 */
const endpoints = (process.env.DYNAMODB_ENDPOINTS ?? '').split(' ').filter(Boolean);
if (endpoints.length > 0) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  process.env.DYNAMODB_ENDPOINT = endpoints[(worker - 1) % endpoints.length];
}

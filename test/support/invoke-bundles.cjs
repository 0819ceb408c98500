/**
 * Runs inside the Node version under test (Node 22, like Lambda's nodejs22.x):
 * reads [{ bundle, event }] as JSON on stdin, invokes each bundled handler
 * with its API Gateway v2 event and a Lambda context, and prints
 * [{ status, headers, body, version }] as JSON. Plain CommonJS: nothing to compile.
 */
'use strict';

const TIMEOUT_MS = 10_000;

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const requests = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const results = [];
  for (const { bundle, event } of requests) {
    const endsAt = Date.now() + TIMEOUT_MS;
    const context = {
      awsRequestId: event.requestContext.requestId,
      functionName: 'smoke',
      functionVersion: '$LATEST',
      memoryLimitInMB: '512',
      getRemainingTimeInMillis: () => Math.max(0, endsAt - Date.now()),
    };
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle is loaded the way Lambda loads it
      const { handler } = require(bundle);
      const result = await handler(event, context);
      results.push({ status: result.statusCode, headers: result.headers, body: result.body, version: process.version });
    } catch (error) {
      results.push({ error: String((error && error.stack) || error), version: process.version });
    }
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((error) => {
  process.stderr.write(String((error && error.stack) || error));
  process.exit(1);
});

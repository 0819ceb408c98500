/**
 * `npm run bench` (second part): capacity units per API operation, from one
 * run against an in-memory DynamoDB Local (scripts/lib/capacity-probe.ts has
 * the operations and their budgets; the capacity test enforces them).
 */
import type { AddressInfo } from 'node:net';
import fixture from '../fixtures/demo.json';
import { importBusiness } from '../src/data/business-store';
import { resetClient } from '../src/data/client';
import { issueToken } from '../src/data/token-store';
import { buildBusiness } from '../src/domain/fixture';
import { parseFixture } from '../src/schemas/fixture';
import { formatUnits, measureOperations } from './lib/capacity-probe';
import { ensureTable, startDynamoLocal } from './lib/dynamodb-local';
import { createLocalServer } from './lib/server';

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  const dynamo = await startDynamoLocal();
  const server = createLocalServer();
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'bench-capacity';
    resetClient();
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
    const parsed = parseFixture(fixture);
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const { config, records } = buildBusiness(parsed.fixture);
    await importBusiness(config, records);
    const token = await issueToken(config.id, 'bench');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const rows = await measureOperations(async (method, path, body) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    });
    console.log(
      '\nCapacity units per operation (ReturnConsumedCapacity INDEXES, DynamoDB Local; a transactional write counts twice)',
    );
    console.log(formatUnits(rows));
  } finally {
    server.close();
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * What the request benchmarks share (`bench:auth`, the capacity table of
 * `npm run bench`): an in-memory DynamoDB Local, a table, a business imported
 * from a fixture with a token, and the local server on a free loopback port.
 */
import type { AddressInfo } from 'node:net';
import { importBusiness } from '../../src/data/business-store';
import { resetClient } from '../../src/data/dynamo/client';
import { issueToken } from '../../src/data/token-store';
import { buildBusiness } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';
import type { IndexDefinition } from '../../src/data/dynamo/table-definition';
import { ensureTable, startDynamoLocal } from './dynamodb-local';
import { createLocalServer } from './server';

export interface BenchStack {
  readonly businessId: string;
  /** The business's token, which `send` uses. */
  readonly token: string;
  /** DynamoDB Local's process id (the benchmarks that measure CPU read it from /proc). */
  readonly dynamoPid: number | undefined;
  /** Sends one request with the business's token (or `token`); the JSON body, or null when there is none (204). */
  send(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

/**
 * The fixture with limits far above what a benchmark sends (contract §18): the benchmarks measure what a
 * request costs, and hundreds of requests a minute from one token would otherwise meet its default 600 / 60 s.
 */
function withoutLimits(fixture: unknown): unknown {
  const unlimited = { requests: 100_000, window_seconds: 10 };
  const { business } = fixture as { business: Record<string, unknown> };
  return { ...(fixture as object), business: { ...business, token_rate_limit: unlimited, rate_limit: unlimited } };
}

export async function startBenchStack(
  tableName: string,
  fixture: unknown,
  indexes?: readonly IndexDefinition[],
): Promise<BenchStack> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const dynamo = await startDynamoLocal();
  const server = createLocalServer();
  const stop = async (): Promise<void> => {
    server.close();
    await dynamo.stop();
  };
  try {
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = tableName;
    resetClient();
    await ensureTable(dynamo.endpoint, tableName, indexes);
    const parsed = parseFixture(withoutLimits(fixture));
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const { config, records } = buildBusiness(parsed.fixture);
    await importBusiness(config, records);
    const token = await issueToken(config.id, 'bench');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      businessId: config.id,
      token,
      dynamoPid: dynamo.process?.pid,
      async send(method, path, body, as = token) {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

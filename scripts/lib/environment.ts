import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_TABLE_NAME } from '../../src/data/table-definition';
import { db } from '../../src/data/client';
import { ensureTable, startDynamoLocal, type RunningDynamo } from './dynamodb-local';

// Lambda runs Node 22; the SDK's Node 20 deprecation notice is noise for local tools.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const DATA_DIR = join(__dirname, '..', '..', '.dynamodb');
const ENDPOINT_FILE = join(DATA_DIR, 'endpoint');

async function reachable(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
    return res.status > 0;
  } catch {
    return false;
  }
}

/**
 * Where the local tools find DynamoDB (contract §10): DYNAMODB_ENDPOINT if
 * set; else the embedded DynamoDB Local a running `npm start` announced; else
 * (for the admin tool) AWS when a region or profile is configured; else a
 * fresh embedded DynamoDB Local on the project's data folder.
 */
export async function connect(options: {
  allowAws: boolean;
}): Promise<{ endpoint?: string; embedded?: RunningDynamo }> {
  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  const given = process.env.DYNAMODB_ENDPOINT;
  if (given) {
    await ensureTable(given, process.env.TABLE_NAME);
    return { endpoint: given };
  }
  if (existsSync(ENDPOINT_FILE)) {
    const announced = readFileSync(ENDPOINT_FILE, 'utf8').trim();
    if (announced && (await reachable(announced))) {
      process.env.DYNAMODB_ENDPOINT = announced;
      await ensureTable(announced, process.env.TABLE_NAME);
      return { endpoint: announced };
    }
  }
  if (options.allowAws && (process.env.AWS_REGION || process.env.AWS_PROFILE)) return {};
  const embedded = await startDynamoLocal({ path: DATA_DIR });
  process.env.DYNAMODB_ENDPOINT = embedded.endpoint;
  await ensureTable(embedded.endpoint, process.env.TABLE_NAME);
  return { endpoint: embedded.endpoint, embedded };
}

export const announceEndpoint = (endpoint: string): void => writeFileSync(ENDPOINT_FILE, endpoint);

/** Where a tool writes, as one line: the table and its endpoint, or AWS region and account. */
export function targetLine(target: { table: string; endpoint?: string; region?: string; account?: string }): string {
  if (target.endpoint) return `Target: table ${target.table} at ${target.endpoint}`;
  return `Target: table ${target.table} in AWS region ${target.region ?? 'unknown'}, account ${target.account ?? 'unknown'}`;
}

/**
 * The target of the DynamoDB client the tools use (after `connect`). On AWS the
 * region comes from the environment or profile; the account from the resolved
 * credentials when they carry it (AWS_ACCOUNT_ID, a profile's aws_account_id,
 * SSO): no STS call just to print it.
 */
export async function describeTarget(): Promise<string> {
  const table = process.env.TABLE_NAME ?? DEFAULT_TABLE_NAME;
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (endpoint) return targetLine({ table, endpoint });
  const config = db().config;
  const region = await config.region().catch(() => undefined);
  const account = await config
    .credentials()
    .then((c) => c.accountId)
    .catch(() => undefined);
  return targetLine({ table, region, account });
}

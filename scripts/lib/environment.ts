import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_TABLE_NAME } from '../../src/data/table-definition';
import { ensureTable, startDynamoLocal, type RunningDynamo } from './dynamodb-local';

// Lambda runs Node 22; the SDK's Node 20 deprecation notice is noise for local tools.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The embedded DynamoDB Local's files and the demo token; LOCAL_DATA_DIR moves it (tests use a temp folder). */
export const DATA_DIR = process.env.LOCAL_DATA_DIR || join(__dirname, '..', '..', '.dynamodb');
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

/** Writes a file of the data folder readable by its owner only (contract §10), whatever it was before. */
export function writePrivateFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export const announceEndpoint = (endpoint: string): void => writePrivateFile(ENDPOINT_FILE, endpoint);

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_TABLE_NAME } from '../../src/data/dynamo/table-definition';
import { db } from '../../src/data/dynamo/client';
import { ensureTable, LIGHT_JVM_OPTIONS, startDynamoLocal, type RunningDynamo } from './dynamodb-local';
import { DEFAULT_LOCAL_BUCKET, ensureBucket, startS3Local, type RunningS3 } from './s3-local';

// Lambda runs Node 22; the SDK's Node 20 deprecation notice is noise for local tools.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * The share of the local server's time an import's run takes at most (IMPORT_RUN_SHARE, unless set): the
 * local server runs imports in the process that serves every business's requests (issue 54 item 5).
 */
export const LOCAL_IMPORT_RUN_SHARE = '0.5';

/** The embedded DynamoDB Local's files and the demo token; LOCAL_DATA_DIR moves it (tests use a temp folder). */
export const DATA_DIR = process.env.LOCAL_DATA_DIR || join(__dirname, '..', '..', '.dynamodb');
const ENDPOINT_FILE = join(DATA_DIR, 'endpoint');
const S3_ENDPOINT_FILE = join(DATA_DIR, 's3-endpoint');
/** The local S3 server's objects (contract §19), inside the private data folder. */
export const S3_DATA_DIR = join(DATA_DIR, 's3');

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
  checkTableName(process.env.TABLE_NAME);
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
  const embedded = await startDynamoLocal({ path: DATA_DIR, jvmOptions: LIGHT_JVM_OPTIONS });
  process.env.DYNAMODB_ENDPOINT = embedded.endpoint;
  await ensureTable(embedded.endpoint, process.env.TABLE_NAME);
  return { endpoint: embedded.endpoint, embedded };
}

/**
 * Where the local tools find S3 for attachments (contract §19), the same way
 * as DynamoDB: S3_ENDPOINT if set; else the local S3 server a running
 * `npm start` announced; else (for the admin tool) AWS when a region or
 * profile is configured; else a fresh local S3 server on the data folder.
 * ATTACHMENTS_BUCKET defaults to the local bucket, created if missing.
 */
export async function connectS3(options: { allowAws: boolean }): Promise<{ endpoint?: string; embedded?: RunningS3 }> {
  const given = process.env.S3_ENDPOINT;
  const announced = existsSync(S3_ENDPOINT_FILE) ? readFileSync(S3_ENDPOINT_FILE, 'utf8').trim() : '';
  let endpoint: string | undefined;
  let embedded: RunningS3 | undefined;
  if (given) endpoint = given;
  else if (announced && (await reachable(announced))) endpoint = announced;
  else if (options.allowAws && (process.env.AWS_REGION || process.env.AWS_PROFILE)) return {};
  else {
    embedded = await startS3Local({ path: S3_DATA_DIR });
    endpoint = embedded.endpoint;
  }
  process.env.S3_ENDPOINT = endpoint;
  process.env.ATTACHMENTS_BUCKET ||= DEFAULT_LOCAL_BUCKET;
  await ensureBucket(endpoint, process.env.ATTACHMENTS_BUCKET);
  return { endpoint, embedded };
}

export const announceS3Endpoint = (endpoint: string): void => writeLocalFile('s3-endpoint', endpoint);

/** A mistake of whoever runs a local tool: reported as one line, without a stack trace. */
export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}

/** DynamoDB's naming rule, checked before any call so the operator reads it instead of an SDK error. */
export function checkTableName(name: string): void {
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(name))
    throw new OperatorError(
      `TABLE_NAME "${name.slice(0, 80)}" is not a valid DynamoDB table name (3-255 characters: letters, digits, _ . -)`,
    );
}

/**
 * Writes a file of the local data folder (tokens, endpoint), creating the
 * folder first: with DYNAMODB_ENDPOINT set no embedded DynamoDB Local made it.
 * Only the owner may read either (contract §10), whatever they were before.
 */
export function writeLocalFile(name: string, content: string): void {
  mkdirSync(DATA_DIR, { recursive: true, mode: 0o700 });
  chmodSync(DATA_DIR, 0o700);
  const path = join(DATA_DIR, name);
  writeFileSync(path, content, { mode: 0o600 });
  // The mode only applies to a new file; one left by an older version keeps its own.
  chmodSync(path, 0o600);
}

/** One line for the operator: what failed, never a stack trace. */
export function describeFailure(error: unknown): string {
  const e = error as { name?: string; message?: string; code?: string; errors?: unknown[]; $metadata?: unknown };
  if (error instanceof OperatorError) return error.message;
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const code = e?.code ?? (e?.errors?.[0] as { code?: string } | undefined)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNRESET')
    return `cannot reach DynamoDB${endpoint ? ` at ${endpoint}` : ''} (${code}); is it running?`;
  const message = (e?.message ?? String(error)).split('\n')[0]?.trim() || 'unknown error';
  if (e?.$metadata) return `DynamoDB refused the request (${e.name ?? 'error'}): ${message}`;
  return message;
}

export const announceEndpoint = (endpoint: string): void => writeLocalFile('endpoint', endpoint);

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

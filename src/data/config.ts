/**
 * Every environment variable the runtime reads, in one place. Each value is
 * read at every call, not once at load: the reads cost nothing next to a
 * request, and tests and scripts set or change them after import (each jest
 * file gets its own TABLE_NAME; the local server sets DYNAMODB_ENDPOINT before
 * the first request). Where a value is used once per process (the DynamoDB
 * client, the logger, the metrics object) the caller keeps what it built, so
 * in effect it is read once there.
 */
export function requireEnv(name: string): string {
  const value = process.env[name];
  // Fail loudly: a function without its table must not start serving.
  if (!value) throw new Error(`Environment variable ${name} is required`);
  return value;
}

/** Per call (see above): the table of this function; set by CDK, by the test harness per test file. */
export const tableName = (): string => requireEnv('TABLE_NAME');

/** Read when the DynamoDB client is created (once per process): DynamoDB Local's URL; unset on AWS. */
export const dynamodbEndpoint = (): string | undefined => process.env.DYNAMODB_ENDPOINT || undefined;
export const awsRegion = (): string | undefined => process.env.AWS_REGION;

/** Read when the S3 client is created (once per process): the local S3-compatible server's URL; unset on AWS. */
export const s3Endpoint = (): string | undefined => process.env.S3_ENDPOINT || undefined;
/** Per call: the bucket of application attachments (contract §19); set by CDK, by the test harness per test file. */
export const attachmentsBucket = (): string => requireEnv('ATTACHMENTS_BUCKET');
/**
 * The bucket of export files (contract §20), under `exports/`: deployed its own (set by CDK; a lifecycle rule
 * removes files after a day); locally the local S3 server's bucket.
 */
/**
 * The share of its process's time an import's run takes at most (IMPORT_RUN_SHARE, 0 to 1; default 1): the
 * local server, which serves requests in the same process, sets less (src/services/import-turns.ts).
 */
export const importRunShare = (): number => {
  const share = Number(process.env.IMPORT_RUN_SHARE);
  return share > 0 && share <= 1 ? share : 1;
};
export const exportsBucket = (): string => process.env.EXPORTS_BUCKET || attachmentsBucket();
/** Deployed (set by CDK): the queue the export worker reads; unset locally, where exports run in-process. */
export const exportQueueUrl = (): string | undefined => process.env.EXPORT_QUEUE_URL || undefined;

/**
 * Per call: DYNAMODB_CAPACITY_DETAIL=INDEXES makes every DynamoDB call report
 * its consumed capacity by table and index (the capacity tests and the bench
 * set it; DynamoDB does not charge for the report, but production has no use
 * for it).
 */
export const capacityDetail = (): 'INDEXES' | undefined =>
  process.env.DYNAMODB_CAPACITY_DETAIL === 'INDEXES' ? 'INDEXES' : undefined;

/**
 * Per call: how long a Lambda instance may reuse a token lookup (contract §15).
 * Unset = 0 (every request reads its token: the local server and the tests);
 * the CDK stack sets 60 on every function. A value that is not a whole number
 * of seconds >= 0 is a deployment mistake: fail loudly, never guess.
 */
export function authCacheSeconds(): number {
  const raw = process.env.AUTH_CACHE_SECONDS;
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,6}$/.test(raw)) throw new Error(`AUTH_CACHE_SECONDS must be a whole number of seconds, got ${raw}`);
  return Number(raw);
}

/** Read when the logger and metrics are created (once per process). */
export const serviceName = (): string => process.env.POWERTOOLS_SERVICE_NAME ?? 'hr-api';
export const logLevel = (): 'INFO' | 'SILENT' =>
  (process.env.POWERTOOLS_LOG_LEVEL as 'INFO' | undefined) ?? (process.env.NODE_ENV === 'test' ? 'SILENT' : 'INFO');

/** Per request: EMF metrics only inside Lambda (locally and in tests they would be noise on stdout). */
export const metricsEnabled = (): boolean =>
  Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) && process.env.POWERTOOLS_METRICS_DISABLED !== 'true';

/** Webhooks (contract §14). Per call: tests change them between cases. */
export const webhookRetryDelaysRaw = (): string | undefined => process.env.WEBHOOK_RETRY_DELAYS;
/**
 * Set by the local server (`npm start`) only: loopback http receivers are
 * allowed. Ignored inside Lambda, so a stray variable cannot open the door.
 */
export const webhooksAllowLoopback = (): boolean =>
  process.env.WEBHOOKS_ALLOW_LOOPBACK === '1' && !process.env.AWS_LAMBDA_FUNCTION_NAME;
/** Deployed: the KMS key that seals webhook secrets. */
export const webhookKmsKeyId = (): string | undefined => process.env.WEBHOOK_KMS_KEY_ID || undefined;
/** Local and tests: base64 AES-256 key that seals webhook secrets (the local server keeps it in .dynamodb/webhook-key). */
export const webhookSecretKey = (): string | undefined => process.env.WEBHOOK_SECRET_KEY || undefined;
/** Deployed dispatcher: the SQS queue of delayed retries. */
export const webhookRetryQueueUrl = (): string => requireEnv('WEBHOOK_RETRY_QUEUE_URL');

/**
 * Every DynamoDB and S3 access of exports (contract §20, src/services/exports.ts).
 *
 * The job: one item in the business's export partition (src/data/entities/export-job.ts).
 * Every write after the create is conditioned on the lease its worker holds,
 * so a worker that lost its lease changes nothing.
 *
 * Records: a batch of one type's business list by position (its key-only
 * `list-keys` entries, one Query), then the records by key (BatchGetItem of
 * 100 keys, a few at once). The file: `exports/<business>/<id>.jsonl`, one
 * multipart upload, a part per PART_BYTES.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  S3Client,
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DOWNLOAD_URL_SECONDS, type ExportCheckpoint, type ExportJob, type ExportType } from '../domain/exports';
import type { BusinessConfig } from '../domain/business';
import { configOf, requireConfig } from './business-store';
import { db } from './client';
import { exportsBucket, s3Endpoint, tableName } from './config';
import type { Key } from './keys';
import { business } from './entities/business';
import { application } from './entities/application';
import { employee, employeeJob } from './entities/employee';
import { IF_ABSENT, IF_PRESENT, partitionOf, sortOf, tableKeyOf } from './entities/entity';
import { exportJob } from './entities/export-job';
import { readEntries } from './list-store';
import { localS3Config, s3 } from './s3-client';
import { batchGet, type Item } from './table-io';
import type { TxWrite } from './transact-write';

const pattern = {
  employees: employee.patterns.byPosition,
  employee_jobs: employeeJob.patterns.byPosition,
  applications: application.patterns.byPosition,
} as const;

const objectKey = (businessId: string, id: string): string =>
  `exports/${encodeURIComponent(businessId)}/${encodeURIComponent(id)}.jsonl`;

const jobOf = exportJob.fromItem;
const { holder: LEASE, until: LEASE_UNTIL } = exportJob.leaseAttributes;

/** The transaction item that stores a new running job (its id is new: a condition keeps it so). */
export function exportJobWrite(job: ExportJob): TxWrite {
  return {
    item: {
      Put: {
        Item: exportJob.newItem(job),
        ConditionExpression: IF_ABSENT,
      },
    },
    onConditionFailed: () => 'retry',
  };
}

/** The business's config (to render records as their GET does). */
export async function readExportConfig(businessId: string): Promise<BusinessConfig> {
  const [item] = await batchGet([business.configKey(businessId)]);
  return requireConfig(configOf(item), businessId);
}

/** The job, or undefined (unknown, another business's, or expired: TTL may lag, so expiry is checked here). */
export async function readExportJob(
  businessId: string,
  id: string,
  nowMs = Date.now(),
): Promise<ExportJob | undefined> {
  const [item] = await batchGet([exportJob.key(businessId, id)]);
  const job = item && jobOf(item);
  return job && Date.parse(job.expiresAt) > nowMs ? job : undefined;
}

/**
 * Takes the job's lease for `ms` (a fresh worker run), when it is running and
 * no other run holds an unexpired lease: the job as it is then, or undefined.
 */
export async function leaseExportJob(
  businessId: string,
  id: string,
  lease: string,
  ms: number,
  nowMs = Date.now(),
): Promise<ExportJob | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportJob.key(businessId, id),
        UpdateExpression: `SET ${LEASE} = :lease, ${LEASE_UNTIL} = :until`,
        ConditionExpression: `${IF_PRESENT} AND #status = :running AND (attribute_not_exists(${LEASE_UNTIL}) OR ${LEASE_UNTIL} < :now)`,
        ExpressionAttributeNames: { '#status': exportJob.statusAttribute },
        ExpressionAttributeValues: { ':lease': lease, ':until': nowMs + ms, ':now': nowMs, ':running': 'running' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return jobOf(out.Attributes as Item);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/** Thrown when the worker's lease was taken over: it stops without writing anything more. */
export class LeaseLost extends Error {
  constructor() {
    super('export lease lost');
    this.name = 'LeaseLost';
  }
}

/** An update of the job under `lease` (renewed for `ms`); LeaseLost when another run holds it now. */
async function updateUnderLease(
  job: Pick<ExportJob, 'businessId' | 'id'>,
  lease: string,
  ms: number,
  set: Record<string, unknown>,
): Promise<void> {
  const names = Object.keys(set);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportJob.key(job.businessId, job.id),
        UpdateExpression: `SET ${[`${LEASE_UNTIL} = :until`, ...names.map((_, i) => `#n${i} = :v${i}`)].join(', ')}`,
        ConditionExpression: `${LEASE} = :lease`,
        ...(names.length ? { ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])) } : {}),
        ExpressionAttributeValues: {
          ':lease': lease,
          ':until': Date.now() + ms,
          ...Object.fromEntries(names.map((n, i) => [`:v${i}`, set[n]])),
        },
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') throw new LeaseLost();
    throw error;
  }
}

export const saveUploadId = (job: ExportJob, lease: string, ms: number, uploadId: string): Promise<void> =>
  updateUnderLease(job, lease, ms, exportJob.uploadSet(uploadId));

export const saveCheckpoint = (job: ExportJob, lease: string, ms: number, checkpoint: ExportCheckpoint) =>
  updateUnderLease(job, lease, ms, exportJob.checkpointSet(checkpoint));

export const finishExportJob = (
  job: ExportJob,
  lease: string,
  outcome: { status: 'completed'; checkpoint: ExportCheckpoint } | { status: 'failed' },
): Promise<void> => updateUnderLease(job, lease, 0, exportJob.finishSet(outcome, new Date().toISOString()));

/** Gives the lease up (a run that stops before its time is up): the next run need not wait for it to expire. */
export const releaseExportJob = (job: ExportJob, lease: string): Promise<void> => updateUnderLease(job, lease, -1, {});

// ---------------------------------------------------------------- records

/** How many record keys go into one BatchGetItem, and how many of those are sent at once. */
const BATCH_KEYS = 100;
const PARALLEL_BATCHES = 4;

/**
 * The records of one type from list position `from` on: at most `limit` index
 * entries (one Query of the key-only list), then their records by key. Erased
 * records have no entry (holes are skipped). `next`: the position after the
 * last entry read; `done` when the list had no more entries.
 */
export async function readRecordBatch(
  businessId: string,
  type: ExportType,
  from: number,
  limit: number,
): Promise<{ items: Item[]; next: number; done: boolean }> {
  const p = pattern[type];
  const entries = await readEntries(partitionOf(p, { businessId }), { from, limit });
  const keysOf: Key[] = entries.map(tableKeyOf);
  const items: (Item | undefined)[] = [];
  for (let i = 0; i < keysOf.length; i += BATCH_KEYS * PARALLEL_BATCHES) {
    const chunks = Array.from({ length: PARALLEL_BATCHES }, (_, c) =>
      keysOf.slice(i + c * BATCH_KEYS, i + (c + 1) * BATCH_KEYS),
    ).filter((chunk) => chunk.length > 0);
    for (const read of await Promise.all(chunks.map((chunk) => batchGet(chunk)))) items.push(...read);
  }
  const last = entries[entries.length - 1];
  return {
    items: items.filter((item): item is Item => item !== undefined),
    next: last ? Number(sortOf(p as never, last)) + 1 : from,
    done: entries.length < limit,
  };
}

// ---------------------------------------------------------------- the file

let uploads: S3Client | undefined;
/** The worker's client: a part is megabytes, so it gets more time than the API's 5 s per request. */
function uploadClient(): S3Client {
  const endpoint = s3Endpoint();
  return (uploads ??= new S3Client({
    ...(endpoint ? localS3Config(endpoint) : {}),
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 2000, requestTimeout: 60_000 },
  }));
}

export async function startUpload(businessId: string, id: string): Promise<string> {
  const out = await uploadClient().send(
    new CreateMultipartUploadCommand({
      Bucket: exportsBucket(),
      Key: objectKey(businessId, id),
      ContentType: 'application/x-ndjson',
    }),
  );
  if (!out.UploadId) throw new Error('S3 answered no UploadId');
  return out.UploadId;
}

export async function uploadPart(
  businessId: string,
  id: string,
  uploadId: string,
  partNumber: number,
  body: Buffer,
): Promise<{ PartNumber: number; ETag: string }> {
  const out = await uploadClient().send(
    new UploadPartCommand({
      Bucket: exportsBucket(),
      Key: objectKey(businessId, id),
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: body,
    }),
  );
  return { PartNumber: partNumber, ETag: String(out.ETag) };
}

export async function completeUpload(
  businessId: string,
  id: string,
  uploadId: string,
  parts: readonly { PartNumber: number; ETag: string }[],
): Promise<void> {
  await uploadClient().send(
    new CompleteMultipartUploadCommand({
      Bucket: exportsBucket(),
      Key: objectKey(businessId, id),
      UploadId: uploadId,
      MultipartUpload: { Parts: [...parts] },
    }),
  );
}

export async function abortUpload(businessId: string, id: string, uploadId: string): Promise<void> {
  await uploadClient().send(
    new AbortMultipartUploadCommand({ Bucket: exportsBucket(), Key: objectKey(businessId, id), UploadId: uploadId }),
  );
}

/** A presigned GET of the file, valid DOWNLOAD_URL_SECONDS. */
export const downloadUrl = (businessId: string, id: string): Promise<string> =>
  getSignedUrl(s3(), new GetObjectCommand({ Bucket: exportsBucket(), Key: objectKey(businessId, id) }), {
    expiresIn: DOWNLOAD_URL_SECONDS,
  });

export const newExportId = (): string => `exp_${randomUUID().replace(/-/g, '')}`;

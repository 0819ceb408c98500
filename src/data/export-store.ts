/**
 * Every DynamoDB access of exports (contract §20, src/services/exports.ts);
 * the file's S3 calls are in src/data/s3/export-objects.ts.
 *
 * The job: one item in the business's export partition (src/data/entities/export-job.ts).
 * Every write after the create is conditioned on the lease its worker holds,
 * so a worker that lost its lease changes nothing.
 *
 * Records: one type's record partition, a strongly consistent Query page at a
 * time (no index, no read by key).
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ExportCheckpoint, type ExportJob, type ExportType } from '../domain/exports';
import type { BusinessConfig } from '../domain/business';
import { configOf, requireConfig } from './business-store';
import { db } from './dynamo/client';
import { tableName } from './config';
import { recordIdOf, type Key } from './dynamo/keys';
import { business } from './entities/business';
import { application } from './entities/application';
import { employee, employeeJob } from './entities/employee';
import { IF_ABSENT, IF_PRESENT, partitionQuery } from './entities/entity';
import { exportJob } from './entities/export-job';
import { batchGet, queryPage, type Item } from './dynamo/table-io';
import type { TxWrite } from './dynamo/transact-write';
import { updateOf } from './dynamo/update-expression';

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
        ...updateOf(
          { set: { [LEASE]: lease, [LEASE_UNTIL]: nowMs + ms } },
          {
            expression: `${IF_PRESENT} AND #status = :running AND (attribute_not_exists(${LEASE_UNTIL}) OR ${LEASE_UNTIL} < :now)`,
            names: { '#status': exportJob.statusAttribute },
            values: { ':now': nowMs, ':running': 'running' },
          },
        ),
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

/**
 * An update of the job under `lease` (renewed for `ms`), when `extra` holds
 * too: the job as it is then. LeaseLost when another run holds it now;
 * undefined when the lease is still ours but `extra` failed.
 */
async function updateUnderLease(
  job: Pick<ExportJob, 'businessId' | 'id'>,
  lease: string,
  ms: number,
  set: Record<string, unknown>,
  extra?: { expression: string; names: Record<string, string>; values: Record<string, unknown> },
): Promise<ExportJob | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportJob.key(job.businessId, job.id),
        ...updateOf(
          { set: { [LEASE_UNTIL]: Date.now() + ms, ...set } },
          {
            expression: `${LEASE} = :lease${extra ? ` AND (${extra.expression})` : ''}`,
            values: { ':lease': lease, ...extra?.values },
            ...(extra ? { names: extra.names } : {}),
          },
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return jobOf(out.Attributes as Item);
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    if (!extra) throw new LeaseLost();
    const [item] = await batchGet([exportJob.key(job.businessId, job.id)]);
    if (item?.[LEASE] !== lease) throw new LeaseLost();
    return undefined;
  }
}

const held = async (update: Promise<ExportJob | undefined>): Promise<ExportJob> => (await update)!;

export const saveUploadId = (job: ExportJob, lease: string, ms: number, uploadId: string): Promise<ExportJob> =>
  held(updateUnderLease(job, lease, ms, exportJob.uploadSet(uploadId)));

/** The checkpoint saved; the job as it is then (with the applications erased meanwhile). */
export const saveCheckpoint = (job: ExportJob, lease: string, ms: number, checkpoint: ExportCheckpoint) =>
  held(updateUnderLease(job, lease, ms, exportJob.checkpointSet(checkpoint)));

/**
 * Completes the job, unless an application was erased that the worker has
 * not seen (more than `erasedSeen` noted): then undefined, and the job as it
 * is then comes from the next call. Contract §20: no erasure noted before this
 * write is missed by the file; any noted after finds the job completed.
 */
export const completeExportJob = (
  job: ExportJob,
  lease: string,
  checkpoint: ExportCheckpoint,
  erasedSeen: number,
): Promise<ExportJob | undefined> =>
  updateUnderLease(job, lease, 0, exportJob.finishSet({ status: 'completed', checkpoint }, new Date().toISOString()), {
    expression:
      erasedSeen === 0 ? 'attribute_not_exists(#erased)' : 'attribute_not_exists(#erased) OR size(#erased) <= :seen',
    names: { '#erased': exportJob.erasedAttribute },
    values: erasedSeen === 0 ? {} : { ':seen': erasedSeen },
  });

/** The job as the worker holding `lease` sees it now (the lease renewed for `ms`). */
export const renewExportJob = (job: ExportJob, lease: string, ms: number): Promise<ExportJob> =>
  held(updateUnderLease(job, lease, ms, {}));

export const failExportJob = (job: ExportJob, lease: string): Promise<ExportJob> =>
  held(updateUnderLease(job, lease, 0, exportJob.finishSet({ status: 'failed' }, new Date().toISOString())));

/** Gives the lease up (a run that stops before its time is up): the next run need not wait for it to expire. */
export const releaseExportJob = (job: ExportJob, lease: string): Promise<ExportJob> =>
  held(updateUnderLease(job, lease, -1, {}));

// ---------------------------------------------------------------- erasure wins (contract §20)

/** The business's export jobs: one consistent Query of its export partition (each job expires after a day). */
export async function readExportJobs(businessId: string): Promise<ExportJob[]> {
  const jobs: ExportJob[] = [];
  let last: Key | undefined;
  do {
    const page = await queryPage(
      { ...partitionQuery(exportJob.patterns.ofBusiness, { businessId }), ConsistentRead: true },
      last,
    );
    jobs.push(...page.items.map(jobOf));
    last = page.last;
  } while (last);
  return jobs;
}

/** Notes an erased application on a running job (a string set ADD); false when the job is not running. */
export async function noteErasure(businessId: string, id: string, applicationId: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportJob.key(businessId, id),
        ...updateOf(
          { add: { [exportJob.erasedAttribute]: new Set([applicationId]) } },
          {
            expression: '#status = :running',
            names: { '#status': exportJob.statusAttribute },
            values: { ':running': 'running' },
          },
        ),
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** A completed job set running again from the start (exportJob.reopen); false when it is not completed. */
export async function reopenExportJob(businessId: string, id: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportJob.key(businessId, id),
        ...updateOf(exportJob.reopen, {
          expression: '#status = :completed',
          names: { '#status': exportJob.statusAttribute },
          values: { ':completed': 'completed' },
        }),
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

// ---------------------------------------------------------------- records

/** The entity of each exported type: its record partition (`byId`) and its record key. */
const entityOf = { employees: employee, employee_jobs: employeeJob, applications: application } as const;

/**
 * The records of one type after id `after` (null: from the first), in id
 * order: one strongly consistent Query of the type's record partition (every
 * record written before the call, in its latest version), at most `limit`
 * records or DynamoDB's 1 MB page. The partition holds that type's records
 * and nothing else (src/data/dynamo/keys.ts); erased records are gone from it.
 * `next`: the id to continue after (the Query's LastEvaluatedKey), undefined
 * once the partition has no more.
 */
export async function readRecordBatch(
  businessId: string,
  type: ExportType,
  after: string | null,
  limit: number,
): Promise<{ items: Item[]; next: string | undefined }> {
  const entity = entityOf[type];
  const { items, last } = await queryPage(
    { ...partitionQuery(entity.patterns.byId, { businessId }), ConsistentRead: true, Limit: limit },
    after === null ? undefined : entity.key(businessId, after),
  );
  return { items, next: last && recordIdOf(last) };
}

export const newExportId = (): string => `exp_${randomUUID().replace(/-/g, '')}`;

/**
 * Every DynamoDB access of bulk imports (contract §22): the import items
 * (src/data/entities/import-job.ts), the rows' results, and the external ids
 * an import keeps for the records it creates.
 *
 * A result item holds the result lines of consecutive rows (one row, or the
 * rows of a chunk) and is written in the same transaction as their records
 * (or alone, for rows that write nothing), on the condition that it does not
 * exist yet: a row with a stored result is applied, whichever run of the
 * import stored it, so a resumed run never applies it twice.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  RECORD_OF,
  importView,
  type ImportCounts,
  type ImportJob,
  type ImportType,
  type ResultLine,
} from '../domain/imports';
import type { LaneOwner } from '../domain/change-feed';
import { feedCounterKey, feedLaneStateOf, type FeedLaneState, type NewFeedEntry } from './feed-store';
import { db } from './dynamo/client';
import { tableName } from './config';
import { keys, type Key } from './dynamo/keys';
import { IF_ABSENT, IF_PRESENT, keyNames, type AccessPattern } from './entities/entity';
import { ifNotExists, updateOf, type UpdateSpec } from './dynamo/update-expression';
import { importJob } from './entities/import-job';
import { batchGet, batchPut, queryPage, type Item } from './dynamo/table-io';
import type { TxWrite } from './dynamo/transact-write';

/** The unique-value field an import's external ids of one type are kept under. */
const externalIdField = (type: ImportType): string => `external_id:${type}`;

export const externalIdKey = (businessId: string, type: ImportType, externalId: string): Key =>
  keys.unique(businessId, externalIdField(type), externalId);

/** The records imported under these external ids (external id -> record id); one BatchGetItem per 100. */
export async function readExternalOwners(
  businessId: string,
  type: ImportType,
  externalIds: readonly string[],
): Promise<Map<string, string>> {
  const distinct = [...new Set(externalIds)];
  return externalOwnersOf(distinct, await batchGet(distinct.map((id) => externalIdKey(businessId, type, id))));
}

/** External id -> record id, from the items read with externalIdKey for `externalIds` (in their order). */
export function externalOwnersOf(
  externalIds: readonly string[],
  items: readonly (Item | undefined)[],
): Map<string, string> {
  const owners = new Map<string, string>();
  items.forEach((item, i) => {
    if (item && typeof item.owner === 'string') owners.set(externalIds[i] ?? '', item.owner);
  });
  return owners;
}

/** The item keeping `externalId` for the record `recordId`. */
const externalIdItem = (businessId: string, type: ImportType, externalId: string, recordId: string): Item => ({
  ...externalIdKey(businessId, type, externalId),
  owner: recordId,
  field: externalIdField(type),
  value: externalId,
});

/**
 * Keeps `externalId` for `recordId`, in the record's create transaction: only
 * if nobody holds it, or it still names `previousOwner` (an erased
 * application's id, replaced by a new record). Otherwise the row re-runs from
 * its read.
 */
export function claimExternalIdWrite(
  businessId: string,
  type: ImportType,
  externalId: string,
  recordId: string,
  previousOwner?: string,
): TxWrite {
  return {
    item: {
      Put: {
        Item: externalIdItem(businessId, type, externalId, recordId),
        ...(previousOwner === undefined
          ? { ConditionExpression: IF_ABSENT }
          : {
              ConditionExpression: '#owner = :previous',
              ExpressionAttributeNames: { '#owner': 'owner' },
              ExpressionAttributeValues: { ':previous': previousOwner },
            }),
      },
    },
    onConditionFailed: () => 'retry',
  };
}

/**
 * Keeps the external ids of the records these result lines report created:
 * plain puts (one BatchWriteItem per 25), idempotent, after the transaction
 * that stored the lines with the records. Where an external id is named by
 * several lines the last one wins (a record created again after its erasure).
 * An import's chunk of new records keeps its external ids this way, one write
 * unit each instead of two in the transaction: its lines are yielded (and
 * checkpointed) only after this, and a resumed run calls it again for the
 * lines stored after the checkpoint, so an interrupted run's ids are kept
 * before any later row is applied. One import per business runs at a time,
 * so no other writer claims these ids meanwhile.
 */
export async function keepExternalIds(
  businessId: string,
  type: ImportType,
  lines: readonly ResultLine[],
): Promise<void> {
  const owners = new Map<string, string>();
  for (const line of lines)
    if (line.result === 'created' && line.external_id !== null && line.id !== null)
      owners.set(line.external_id, line.id);
  await batchPut([...owners].map(([externalId, id]) => externalIdItem(businessId, type, externalId, id)));
}

/** Thrown when a row's result is already stored: an earlier run applied it (the lines of its stored item). */
export class RowAlreadyApplied extends Error {
  constructor(readonly lines: readonly ResultLine[]) {
    super(`rows up to ${lines[lines.length - 1]?.row ?? 0} already applied`);
    this.name = 'RowAlreadyApplied';
  }
}

/**
 * The results of consecutive rows (one row, or the rows of a chunk), in the
 * transaction of their records: the proof they are applied. Its first row's
 * record answers an ambiguous write when no record of the transaction does.
 */
export function rowResultWrite(
  businessId: string,
  importId: string,
  lines: readonly ResultLine[],
  now = Date.now(),
): TxWrite {
  return {
    item: {
      Put: {
        Item: importJob.rowItem(businessId, importId, lines, now),
        ConditionExpression: IF_ABSENT,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (stored) => (stored ? new RowAlreadyApplied(importJob.linesOf(stored)) : 'retry'),
    confirms: (stored) => stored !== undefined,
  };
}

/** Results of runs of rows that write nothing else (failed, unchanged, skipped, validated): plain puts, idempotent. */
export async function putRowResults(
  businessId: string,
  importId: string,
  runs: readonly (readonly ResultLine[])[],
): Promise<void> {
  const now = Date.now();
  await batchPut(
    runs.filter((lines) => lines.length).map((lines) => importJob.rowItem(businessId, importId, lines, now)),
  );
}

/**
 * The stored results of rows after `afterRow`, in row order, a page (at most
 * 1 MB of items) at a time. An item holds a run of rows and is keyed by its
 * last: the first item may hold rows up to `afterRow` too, left out here.
 */
export async function readRowResults(
  businessId: string,
  importId: string,
  afterRow: number,
  start?: Key,
): Promise<{ lines: ResultLine[]; next: Key | undefined }> {
  const rows = importJob.patterns.rows as AccessPattern<{ businessId: string; importId: string }>;
  const { pk, sk } = keyNames(rows.index);
  const { items, last } = await queryPage(
    {
      KeyConditionExpression: '#pk = :p AND #sk > :after',
      ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
      ExpressionAttributeValues: {
        ':p': rows.partition({ businessId, importId }),
        ':after': importJob.rowKey(businessId, importId, afterRow).SK,
      },
      ConsistentRead: true,
    },
    start,
  );
  return {
    lines: items.flatMap((item: Item) => importJob.linesOf(item)).filter((line) => line.row > afterRow),
    next: last,
  };
}

// ---------------------------------------------------------------------------
// The import items
// ---------------------------------------------------------------------------

/** The business's import count and the import in progress (awaiting its upload or running), if any. */
export interface ImportMeta {
  readonly n: number;
  readonly active: ImportJob | undefined;
}

const jobOf = (item: Item | undefined): ImportJob | undefined => (item ? importJob.fromItem(item) : undefined);

/**
 * What a create reads: the count and the idempotency record, then (only when
 * there is one) the import in progress with the counter of the feed lane its
 * `import.failed` entry goes to if its upload expired and the create ends it.
 */
export async function readForCreate(
  businessId: string,
  idempotencyKey: Key | undefined,
): Promise<ImportMeta & { idempotency: Item | undefined; activeLane: FeedLaneState | undefined }> {
  const [meta, idempotency] = await batchGet([
    importJob.metaKey(businessId),
    ...(idempotencyKey ? [idempotencyKey] : []),
  ]);
  const activeId = typeof meta?.active === 'string' ? meta.active : undefined;
  // The lane depends on the import's type: both candidates are read with it.
  const [item, applicationLane, employeeLane] = activeId
    ? await batchGet([
        importJob.key(businessId, activeId),
        feedCounterKey(businessId, 'application', activeId),
        feedCounterKey(businessId, 'employee', activeId),
      ])
    : [];
  const active = jobOf(item);
  const kind = active ? importLaneOwner(active.type) : undefined;
  return {
    n: Number(meta?.n ?? 0),
    active,
    idempotency: idempotencyKey ? idempotency : undefined,
    activeLane:
      active && kind
        ? feedLaneStateOf(kind, active.id, kind === 'application' ? applicationLane : employeeLane)
        : undefined,
  };
}

/** Whose change-feed lanes an import's own entries go to: those of the records it writes. */
export const importLaneOwner = (type: ImportType): LaneOwner =>
  RECORD_OF[type] === 'application' ? 'application' : 'employee';

/** The `import.completed` / `import.failed` entry of an import that ended (data: the import as GET shows it). */
export const importEndedEntry = (ended: ImportJob, now = Date.now()): NewFeedEntry => ({
  type: ended.status === 'completed' ? 'import.completed' : 'import.failed',
  id: ended.id,
  occurred_at: ended.updatedAt,
  data: importView(ended, now),
});

/** One import by id: a GetItem (an id that is no import id reads nothing). */
export async function readImport(businessId: string, id: string): Promise<ImportJob | undefined> {
  if (importJob.positionOf(id) === undefined) return undefined;
  const [item] = await batchGet([importJob.key(businessId, id)]);
  return jobOf(item);
}

/**
 * Creating an import: the count moves from `meta.n` (condition), the new one
 * becomes the active one (condition: none is, or the one read, whose upload
 * expired), the item. A concurrent create fails the condition and re-runs.
 */
export function createImportWrites(job: ImportJob, meta: ImportMeta): TxWrite[] {
  const expired = meta.active;
  return [
    {
      item: {
        Update: {
          Key: importJob.metaKey(job.businessId),
          ...updateOf(
            { set: { n: meta.n + 1, active: job.id } },
            {
              expression: `(${meta.n === 0 ? 'attribute_not_exists(n) OR ' : ''}n = :n) AND ${
                expired ? 'active = :expired' : 'attribute_not_exists(active)'
              }`,
              values: { ':n': meta.n, ...(expired ? { ':expired': expired.id } : {}) },
            },
          ),
        },
      },
      onConditionFailed: () => 'retry',
    },
    {
      item: { Put: { Item: importJob.newItem(job), ConditionExpression: IF_ABSENT } },
      onConditionFailed: () => 'retry',
      confirms: (stored) => stored !== undefined,
    },
    { item: { Put: { Item: importJob.inProgressItem(job) } } },
  ];
}

/**
 * The end of an import's item (cancelled, failed or completed): its final
 * state, and its entry among the imports in progress gone. Its business's
 * count item is the caller's (endImportWrites, or a create taking its place).
 */
export function endImportItemWrites(
  job: ImportJob,
  set: Record<string, unknown>,
  condition: { status?: string; lease?: string; progressAt?: string; unleasedAt?: number },
): TxWrite[] {
  const values: Record<string, unknown> = {};
  const parts: string[] = [IF_PRESENT];
  if (condition.status) {
    parts.push('#status = :expectStatus');
    values[':expectStatus'] = condition.status;
  }
  if (condition.lease) {
    parts.push(`${importJob.leaseAttributes.holder} = :lease`);
    values[':lease'] = condition.lease;
  }
  // The watchdog ends a stalled import only if no run moved it since it was read.
  if (condition.progressAt) {
    parts.push('(attribute_not_exists(progress_at) OR progress_at <= :progressAt)');
    parts.push('(attribute_not_exists(started_at) OR started_at <= :progressAt)');
    values[':progressAt'] = condition.progressAt;
  }
  // Nor while a run holds it.
  if (condition.unleasedAt !== undefined) {
    const { until } = importJob.leaseAttributes;
    parts.push(`(attribute_not_exists(${until}) OR ${until} < :unleasedAt)`);
    values[':unleasedAt'] = condition.unleasedAt;
  }
  return [
    {
      item: {
        Update: {
          Key: importJob.key(job.businessId, job.id),
          ...updateOf(
            { set, remove: [importJob.leaseAttributes.holder, importJob.leaseAttributes.until] },
            {
              expression: parts.join(' AND '),
              names: condition.status ? { '#status': 'status' } : {},
              values,
            },
          ),
        },
      },
      onConditionFailed: () => new ImportStateChanged(),
    },
    { item: { Delete: { Key: importJob.inProgressKey(job.businessId, job.id) } } },
  ];
}

/** The end of an import (cancelled, failed or completed): its item's final state, and no longer the active one. */
export function endImportWrites(
  job: ImportJob,
  set: Record<string, unknown>,
  condition: { status?: string; lease?: string; progressAt?: string; unleasedAt?: number },
): TxWrite[] {
  return [
    ...endImportItemWrites(job, set, condition),
    {
      item: {
        Update: {
          Key: importJob.metaKey(job.businessId),
          ...updateOf({ remove: ['active'] }, { expression: 'active = :id', values: { ':id': job.id } }),
        },
      },
      onConditionFailed: () => new ImportStateChanged(),
    },
  ];
}

/** A page of the imports in progress of every business (the watchdog's list): their references. */
export async function readImportsInProgress(
  start?: Key,
): Promise<{ refs: { businessId: string; id: string }[]; next: Key | undefined }> {
  const inProgress = importJob.patterns.inProgress as AccessPattern<Record<string, never>>;
  const { pk } = keyNames(inProgress.index);
  const { items, last } = await queryPage(
    {
      KeyConditionExpression: '#pk = :p',
      ExpressionAttributeNames: { '#pk': pk },
      ExpressionAttributeValues: { ':p': inProgress.partition({}) },
    },
    start,
  );
  return { refs: items.map((item) => importJob.refOfInProgress(item)), next: last };
}

/** The import is no longer in the state a write expected (another run or request moved it). */
export class ImportStateChanged extends Error {
  constructor() {
    super('import state changed');
    this.name = 'ImportStateChanged';
  }
}

/** The page of imports at positions first..last, newest first, with the count: a BatchGetItem and a Query at once. */
export async function readImportPage(
  businessId: string,
  page: { first: number; last: number } | null,
): Promise<{ total: number; jobs: ImportJob[] }> {
  const byPosition = importJob.patterns.byPosition as AccessPattern<{ businessId: string }>;
  const { pk, sk } = keyNames(byPosition.index);
  const [[meta], items] = await Promise.all([
    batchGet([importJob.metaKey(businessId)]),
    page === null
      ? Promise.resolve([])
      : (async () => {
          const range = importJob.positionRange(page.first, page.last);
          return (
            await queryPage({
              KeyConditionExpression: '#pk = :p AND #sk BETWEEN :a AND :b',
              ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
              ExpressionAttributeValues: {
                ':p': byPosition.partition({ businessId }),
                ':a': range.from,
                ':b': range.to,
              },
              ScanIndexForward: false,
              ConsistentRead: true,
            })
          ).items;
        })(),
  ]);
  return { total: Number(meta?.n ?? 0), jobs: items.map((item) => importJob.fromItem(item)) };
}

/**
 * Takes the import's lease for `ms` when it awaits its upload or runs and no
 * other run holds an unexpired lease; it is `running` from then on. The
 * import as it is then, or undefined.
 */
export async function leaseImport(
  businessId: string,
  id: string,
  lease: string,
  ms: number,
  nowMs = Date.now(),
): Promise<ImportJob | undefined> {
  const { holder, until } = importJob.leaseAttributes;
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importJob.key(businessId, id),
        ...updateOf(
          {
            set: {
              [holder]: lease,
              [until]: nowMs + ms,
              status: 'running',
              started_at: ifNotExists(new Date(nowMs).toISOString()),
            },
          },
          {
            // Its own lease too: a re-sent take (an answer lost) succeeds.
            expression: `${IF_PRESENT} AND #status IN (:waiting, :running) AND (attribute_not_exists(${until}) OR ${until} < :now OR ${holder} = :lease)`,
            names: { '#status': 'status' },
            values: { ':now': nowMs, ':running': 'running', ':waiting': 'awaiting_upload', ':lease': lease },
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

/** An Update of the import item if `lease` still holds it; false when it does not (nothing written). */
async function updateUnderLease(job: ImportJob, lease: string, spec: UpdateSpec): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importJob.key(job.businessId, job.id),
        ...updateOf(spec, { expression: `${importJob.leaseAttributes.holder} = :lease`, values: { ':lease': lease } }),
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Stores progress under the lease (renewed for `ms`): rows up to `checkpoint` have results, these counts. */
export async function saveImportProgress(
  job: ImportJob,
  lease: string,
  ms: number,
  progress: { checkpoint: number; counts: ImportCounts; checked?: boolean },
): Promise<void> {
  const saved = await updateUnderLease(job, lease, {
    set: {
      [importJob.leaseAttributes.until]: Date.now() + ms,
      checkpoint: progress.checkpoint,
      counts: progress.counts,
      updated_at: new Date().toISOString(),
      progress_at: new Date().toISOString(),
      ...(progress.checked ? { checked: true } : {}),
    },
  });
  if (!saved) throw new ImportStateChanged();
}

/** Gives the lease up (a run that stops before its time is up): the next run need not wait for it to expire. */
export async function releaseImportLease(job: ImportJob, lease: string): Promise<void> {
  const { holder, until } = importJob.leaseAttributes;
  await updateUnderLease(job, lease, { remove: [holder, until] });
}

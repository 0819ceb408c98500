/**
 * Every DynamoDB access of bulk imports (contract §22): the import items
 * (src/data/entities/import-job.ts), the rows' results, and the external ids
 * an import keeps for the records it creates.
 *
 * A row's result item is written in the same transaction as the row's
 * records (or alone, for a row that writes nothing), on the condition that it
 * does not exist yet: a row with a stored result is applied, whichever run of
 * the import stored it, so a resumed run never applies it twice.
 */
import type { ImportType, ResultLine } from '../domain/imports';
import { keys, type Key } from './keys';
import { IF_ABSENT, keyNames, type AccessPattern } from './entities/entity';
import { importJob } from './entities/import-job';
import { batchGet, batchPut, queryPage, type Item } from './table-io';
import type { TxWrite } from './transact-write';

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
  const items = await batchGet(distinct.map((id) => externalIdKey(businessId, type, id)));
  const owners = new Map<string, string>();
  items.forEach((item, i) => {
    if (item && typeof item.owner === 'string') owners.set(distinct[i] ?? '', item.owner);
  });
  return owners;
}

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
  const field = externalIdField(type);
  return {
    item: {
      Put: {
        Item: { ...externalIdKey(businessId, type, externalId), owner: recordId, field, value: externalId },
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

/** Thrown when a row's result is already stored: an earlier run applied it. */
export class RowAlreadyApplied extends Error {
  constructor(readonly line: ResultLine) {
    super(`row ${line.row} already applied`);
    this.name = 'RowAlreadyApplied';
  }
}

/** A row's result, in the transaction of the row's records: the proof the row is applied. */
export function rowResultWrite(businessId: string, importId: string, line: ResultLine, now = Date.now()): TxWrite {
  return {
    item: {
      Put: {
        Item: importJob.rowItem(businessId, importId, line, now),
        ConditionExpression: IF_ABSENT,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (stored) => (stored ? new RowAlreadyApplied(importJob.lineOf(stored)) : 'retry'),
    confirms: (stored) => stored !== undefined,
  };
}

/** Results of rows that write nothing else (failed, unchanged, skipped): plain puts, idempotent. */
export async function putRowResults(businessId: string, importId: string, lines: readonly ResultLine[]): Promise<void> {
  const now = Date.now();
  await batchPut(lines.map((line) => importJob.rowItem(businessId, importId, line, now)));
}

/** The stored results of rows after `afterRow`, in row order, a page (at most 1 MB) at a time. */
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
  return { lines: items.map((item: Item) => importJob.lineOf(item)), next: last };
}

/**
 * Every DynamoDB access of application attachments (contract §19).
 *
 * Items, one partition per application (`B#<bid>#application#<aid>#attachments`):
 *   attachment  SK = its id (sorts by creation): the public fields, `version`,
 *               `feed_refs` (its change-feed entries, for erasure's redaction),
 *               `idempotency_pk` (the Idempotency-Key record of its create, tombstoned on erasure)
 *   count       SK `COUNT`: n = attachments that exist; a create adds 1 only below the limit,
 *               so concurrent creates never pass 20
 * Attachment changes go to the change-feed lane of their application
 * (feedCounterKey(bid, 'application', aid)): one lane holds an applicant's
 * whole history, and its entries are found the same way for erasure.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_ATTACHMENTS_PER_APPLICATION } from '../domain/attachments';
import { FieldError, MESSAGES, notFound } from '../domain/errors';
import { applicationKey } from './application-store';
import { db } from './client';
import { tableName } from './config';
import { feedCounterKey, feedLaneStateOf, type FeedLaneState } from './feed-store';
import { attachment, type StoredAttachment } from './entities/attachment';
import type { Key } from './keys';
import { batchGet, query, type Item } from './table-io';
import type { TxWrite } from './transact-write';
import { updateOf } from './update-expression';
import { IF_ABSENT, IF_PRESENT, partitionQuery } from './entities/entity';

export type { StoredAttachment } from './entities/attachment';

export const attachmentKey = attachment.key;
const attachmentOf = attachment.fromItem;
const itemOf = attachment.item;

/** 422 for the 21st attachment (contract §19: at most 20 per application). */
export const tooManyAttachments = (): FieldError => new FieldError(422, { attachments: [MESSAGES.atMostTwenty] });

/** What a create decides on: whether the application exists, and the Idempotency-Key record; one BatchGetItem. */
export async function readForCreate(
  businessId: string,
  applicationId: string,
  idempotencyKey: Key | undefined,
): Promise<{ applicationExists: boolean; idempotency: Item | undefined }> {
  const [app, idempotency] = await batchGet([
    applicationKey(businessId, applicationId),
    ...(idempotencyKey ? [idempotencyKey] : []),
  ]);
  return { applicationExists: app !== undefined, idempotency };
}

/**
 * The create: the count steps up only below the limit, the record is new,
 * and the application still exists (an erasure that deleted it first wins:
 * 404, nothing stored).
 */
export function createWrites(a: StoredAttachment): TxWrite[] {
  return [
    {
      item: {
        Update: {
          Key: attachment.countKey(a.businessId, a.applicationId),
          ...updateOf(
            { add: { n: 1 } },
            { expression: 'attribute_not_exists(n) OR n < :max', values: { ':max': MAX_ATTACHMENTS_PER_APPLICATION } },
          ),
        },
      },
      onConditionFailed: () => tooManyAttachments(),
    },
    {
      item: { Put: { Item: itemOf(a), ConditionExpression: IF_ABSENT } },
      onConditionFailed: () => 'retry',
      confirms: (stored) => stored !== undefined,
    },
    {
      item: {
        ConditionCheck: {
          Key: applicationKey(a.businessId, a.applicationId),
          ConditionExpression: IF_PRESENT,
        },
      },
      onConditionFailed: () => notFound('application', a.applicationId),
    },
  ];
}

/** One attachment (consistent); undefined when it does not exist. */
export async function readAttachment(
  businessId: string,
  applicationId: string,
  id: string,
): Promise<StoredAttachment | undefined> {
  const [item] = await batchGet([attachment.key({ businessId, applicationId, id })]);
  return attachmentOf(item);
}

/** An attachment and its application's feed lane counter, for a write that appends to the feed; one BatchGetItem. */
export async function readForChange(
  businessId: string,
  applicationId: string,
  id: string,
): Promise<{ attachment: StoredAttachment | undefined; feed: FeedLaneState }> {
  const [item, counter] = await batchGet([
    attachment.key({ businessId, applicationId, id }),
    feedCounterKey(businessId, 'application', applicationId),
  ]);
  return { attachment: attachmentOf(item), feed: feedLaneStateOf('application', applicationId, counter) };
}

/**
 * Every attachment of an application (one consistent Query of its partition:
 * at most 20 records and the count), and whether the application exists
 * (read beside it, same round trip).
 */
export async function readAttachments(
  businessId: string,
  applicationId: string,
  options: { withApplication: boolean },
): Promise<{ applicationExists: boolean; attachments: StoredAttachment[]; hasCount: boolean }> {
  const app = options.withApplication ? batchGet([applicationKey(businessId, applicationId)]) : Promise.resolve([]);
  const [items, [application]] = await Promise.all([
    query({
      ...partitionQuery(attachment.patterns.ofApplication, { businessId, applicationId }),
      ConsistentRead: true,
    }),
    app,
  ]);
  const attachments = items.flatMap((i) => attachmentOf(i) ?? []).sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    applicationExists: !options.withApplication || application !== undefined,
    attachments,
    hasCount: items.length > attachments.length,
  };
}

/** A status change by the check, if the record is still the version read. */
export function statusWrite(after: StoredAttachment): TxWrite {
  return {
    item: {
      Put: {
        Item: itemOf(after),
        ConditionExpression: 'version = :v',
        ExpressionAttributeValues: { ':v': after.version - 1 },
      },
    },
    onConditionFailed: () => 'retry',
    confirms: (stored) => Number(stored?.version) === after.version,
  };
}

/** DELETE of one attachment: the record (if still the version read) and one less in the count. */
export function deleteWrites(a: StoredAttachment): TxWrite[] {
  return [
    {
      item: {
        Delete: {
          Key: attachmentKey(a),
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': a.version },
        },
      },
      onConditionFailed: () => 'retry',
      confirms: (stored) => stored === undefined,
    },
    {
      item: {
        Update: {
          Key: attachment.countKey(a.businessId, a.applicationId),
          ...updateOf({ add: { n: -1 } }),
        },
      },
    },
  ];
}

/**
 * Erasure's removal of every attachment item of an application and its
 * count (BatchWriteItem, 25 a call); what a create adds meanwhile recreates
 * the count, which the application's delete transaction checks
 * (noAttachmentsLeft) and so re-runs.
 */
export async function deleteAllItems(businessId: string, applicationId: string, ids: readonly string[]): Promise<void> {
  const all = [
    ...ids.map((id) => attachment.key({ businessId, applicationId, id })),
    attachment.countKey(businessId, applicationId),
  ];
  for (let i = 0; i < all.length; i += 25) {
    let pending = all.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length > 0 && attempt < 8; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
    if (pending.length > 0) throw new Error('attachment records not deleted (throttled)');
  }
}

/** In the application's delete transaction: no attachment was created since they were erased. */
export function noAttachmentsLeft(businessId: string, applicationId: string): TxWrite {
  return {
    item: {
      ConditionCheck: {
        Key: attachment.countKey(businessId, applicationId),
        ConditionExpression: IF_ABSENT,
      },
    },
    onConditionFailed: () => 'retry',
  };
}

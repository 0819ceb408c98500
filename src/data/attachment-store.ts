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
import { MAX_ATTACHMENTS_PER_APPLICATION } from '../domain/attachments';
import { FieldError, MESSAGES, notFound } from '../domain/errors';
import { applicationKey } from './application-store';
import { feedCounterKey, feedLaneStateOf, type FeedLaneState } from './feed-store';
import { attachment, type StoredAttachment } from './entities/attachment';
import type { Key } from './dynamo/keys';
import { batchGet, query, type Item } from './dynamo/table-io';
import { MAX_TRANSACTION_ITEMS, type TxWrite } from './dynamo/transact-write';
import { applicationRedactions } from './feed-redaction';
import { idempotencyTombstoneWrite } from './idempotency';
import { updateOf } from './dynamo/update-expression';
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
/** n of the count item among an application's items; undefined when there is none. */
function countOf(items: readonly Item[]): number | undefined {
  const { SK } = attachment.countKey('', '');
  const item = items.find((i) => i.SK === SK);
  return item === undefined ? undefined : Number(item.n ?? 0);
}

export async function readAttachments(
  businessId: string,
  applicationId: string,
  options: { withApplication: boolean },
): Promise<{ applicationExists: boolean; attachments: StoredAttachment[]; count: number | undefined }> {
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
    count: countOf(items),
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

/** The record deleted if still at the version read (a change since re-runs the operation from its read). */
const recordDelete = (a: StoredAttachment): TxWrite => ({
  item: {
    Delete: {
      Key: attachmentKey(a),
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: { ':v': a.version },
    },
  },
  onConditionFailed: () => 'retry',
  confirms: (stored) => stored === undefined,
});

/** DELETE of one attachment: the record (if still the version read) and one less in the count. */
export function deleteWrites(a: StoredAttachment): TxWrite[] {
  return [
    recordDelete(a),
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
 * The erasure of every attachment of an application read with its count (n as
 * read; undefined: no count item): one transaction deleting each record if
 * still the version read, the count if still n (a create or delete since
 * re-runs the erasure from the read, so nothing is left behind), turning the
 * Idempotency-Key record of each create into a tombstone, and redacting the
 * attachments' feed entries. `before` redacts first what cannot go into it
 * (entries near expiry, or over DynamoDB's 100 items: with 20 attachments, 41
 * items are records, count and tombstones, 59 are left for redactions).
 */
export function erasureWrites(
  businessId: string,
  applicationId: string,
  attachments: readonly StoredAttachment[],
  count: number | undefined,
  nowMs = Date.now(),
): { before: () => Promise<void>; writes: TxWrite[] } {
  const records = attachments.map(recordDelete);
  const countWrite: TxWrite[] =
    count === undefined
      ? []
      : [
          {
            item: {
              Delete: {
                Key: attachment.countKey(businessId, applicationId),
                ConditionExpression: 'n = :n',
                ExpressionAttributeValues: { ':n': count },
              },
            },
            onConditionFailed: () => 'retry',
            confirms: (stored) => stored === undefined,
          },
        ];
  const tombstones = attachments.flatMap((a) =>
    a.idempotencyPk ? [idempotencyTombstoneWrite(a.idempotencyPk, nowMs)] : [],
  );
  const fixed = [...records, ...countWrite, ...tombstones];
  if (fixed.length > MAX_TRANSACTION_ITEMS)
    throw new Error(`erasure of ${attachments.length} attachments exceeds a transaction`);
  const redactions = applicationRedactions(
    businessId,
    applicationId,
    attachments.flatMap((a) => a.feedRefs),
    nowMs,
    MAX_TRANSACTION_ITEMS - fixed.length,
  );
  return { before: redactions.before, writes: [...fixed, ...redactions.writes] };
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

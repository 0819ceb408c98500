/**
 * Application attachments (contract §19, src/data/attachment-store.ts): one
 * table partition per application, its attachments by id (ids sort by
 * creation) and its count item; the item mapping of an attachment.
 */
import type { AttachmentContentType, AttachmentStatus, RejectionReason } from '../../domain/attachments';
import { feedRefsOf, type FeedRef } from '../../domain/feed-refs';
import { keys, type Key } from '../dynamo/keys';
import { pattern } from './entity';

export interface StoredAttachment {
  readonly businessId: string;
  readonly applicationId: string;
  readonly id: string;
  readonly fileName: string;
  readonly contentType: AttachmentContentType;
  readonly size: number;
  readonly status: AttachmentStatus;
  readonly rejectionReason: RejectionReason | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
  readonly feedRefs: readonly FeedRef[];
  readonly idempotencyPk: string | null;
  /** The ETag of the checked copy downloads are pinned to (null until available). */
  readonly checkedEtag: string | null;
}

const ofApplication = pattern<{ readonly businessId: string; readonly applicationId: string }>(
  'table',
  'attachment id (creation order); COUNT: the count',
  ({ businessId, applicationId }) => keys.attachments(businessId, applicationId),
);

const key = (a: Pick<StoredAttachment, 'businessId' | 'applicationId' | 'id'>): Key =>
  keys.attachment(a.businessId, a.applicationId, a.id);

export const attachment = {
  entity: 'attachment',
  key,
  /** The count of an application's attachments (n), in the same partition. */
  countKey: (businessId: string, applicationId: string): Key => keys.attachmentCount(businessId, applicationId),
  patterns: { ofApplication },
  /** The item of an attachment. */
  item: (a: StoredAttachment): Record<string, unknown> => ({
    ...key(a),
    business_id: a.businessId,
    application_id: a.applicationId,
    id: a.id,
    file_name: a.fileName,
    content_type: a.contentType,
    size: a.size,
    status: a.status,
    rejection_reason: a.rejectionReason,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    version: a.version,
    feed_refs: a.feedRefs,
    ...(a.idempotencyPk ? { idempotency_pk: a.idempotencyPk } : {}),
    ...(a.checkedEtag ? { checked_etag: a.checkedEtag } : {}),
  }),
  /** The attachment an item holds; undefined for none or the count item. */
  fromItem: (item: Readonly<Record<string, unknown>> | undefined): StoredAttachment | undefined => {
    if (!item || item.SK === keys.attachmentCount('', '').SK) return undefined;
    return {
      businessId: String(item.business_id),
      applicationId: String(item.application_id),
      id: String(item.id),
      fileName: String(item.file_name),
      contentType: String(item.content_type) as AttachmentContentType,
      size: Number(item.size),
      status: String(item.status) as AttachmentStatus,
      rejectionReason: typeof item.rejection_reason === 'string' ? (item.rejection_reason as RejectionReason) : null,
      createdAt: String(item.created_at),
      updatedAt: String(item.updated_at),
      version: Number(item.version ?? 1),
      feedRefs: feedRefsOf(item.feed_refs),
      idempotencyPk: typeof item.idempotency_pk === 'string' ? item.idempotency_pk : null,
      checkedEtag: typeof item.checked_etag === 'string' ? item.checked_etag : null,
    };
  },
} as const;

/**
 * Application attachments (contract §19): create with a presigned POST,
 * list, show with a download URL, delete; the post-upload check; and the
 * erasure of an application's attachments (§17).
 *
 * Round trips, authentication (the token's GetItem) included: create 3 (one
 * BatchGetItem, one transaction; the presigned POST is computed, not
 * fetched), show 2, list 2 (the partition Query beside the application's
 * read), delete 4 (read, the objects' DeleteObjects, one transaction).
 */
import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { API_PREFIX } from '../domain/api-paths';
import {
  contentDispositionOf,
  DOWNLOAD_EXPIRES_SECONDS,
  fileNameProblem,
  isAttachmentId,
  newAttachmentId,
  refOfUploadKey,
  scanVerdictOf,
  storedKeyOf,
  uploadKeyOf,
  SIGNATURE_BYTES,
  UPLOAD_EXPIRES_SECONDS,
  UPLOAD_PREFIX,
  verdictOf,
  type AttachmentContentType,
  type RejectionReason,
  type StoredContent,
} from '../domain/attachments';
import { MESSAGES, notFound, type FieldErrorCollector } from '../domain/errors';
import { withFeedRef } from '../domain/feed-refs';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { created, etagOf, noContent, ok, type ApiResult } from '../domain/result';
import {
  createWrites,
  deleteWrites,
  erasureWrites,
  readAttachment,
  readAttachments,
  readForChange,
  readForCreate,
  statusWrite,
  type StoredAttachment,
} from '../data/attachment-store';
import {
  copyObject,
  deleteObjects,
  objectBytes,
  objectHead,
  presignDownload,
  presignUpload,
} from '../data/s3/attachment-objects';
import { feedAppendWrites, type NewFeedEntry } from '../data/feed-store';
import { idempotentCreate } from '../data/idempotency';
import type { RequestContext } from './request-context';
import { transactWrite } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';
import { inCallScope } from '../data/dynamo/call-scope';
import { runWithOrigin } from '../data/write-origin';
import { ATTACHMENT_CHECK_ORIGIN } from '../domain/audit';

export interface AttachmentBody {
  file_name: string;
  content_type: AttachmentContentType;
  size: number;
}

const location = (applicationId: string, id: string): string =>
  `${API_PREFIX}/applications/${encodeURIComponent(applicationId)}/attachments/${encodeURIComponent(id)}`;

/** The record as GET shows it (without download_url): also the `data` of its feed entries. */
export const attachmentView = (a: StoredAttachment): Record<string, unknown> => ({
  id: a.id,
  application_id: a.applicationId,
  file_name: a.fileName,
  content_type: a.contentType,
  size: a.size,
  status: a.status,
  ...(a.status === 'rejected' ? { rejection_reason: a.rejectionReason } : {}),
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});

/** Both places an attachment's bytes may be: the upload (until checked) and the checked copy. */
const keysOf = (a: StoredAttachment): string[] => [uploadKeyOf(a), storedKeyOf(a)];

/** With the download URL when the bytes are available. */
async function shownWithDownload(a: StoredAttachment): Promise<Record<string, unknown>> {
  if (a.status !== 'available') return attachmentView(a);
  const url = await presignDownload(
    storedKeyOf(a),
    a.checkedEtag ?? undefined,
    a.contentType,
    contentDispositionOf(a.fileName),
    DOWNLOAD_EXPIRES_SECONDS,
  );
  return { ...attachmentView(a), download_url: url };
}

/** Contract §19's checks the schema cannot state (the file name's characters). */
function checkBody(body: AttachmentBody, fieldErrors: FieldErrorCollector): void {
  if (!fieldErrors.has('file_name') && typeof body.file_name === 'string') {
    const problem = fileNameProblem(body.file_name);
    if (problem) fieldErrors.add('file_name', problem === 'blank' ? MESSAGES.blank : MESSAGES.invalid);
  }
}

/**
 * POST .../applications/{id}/attachments: the application must exist (404),
 * the body be valid (422, all fields at once), the application hold fewer
 * than 20 (422, decided in the transaction); then the record (pending) and a
 * presigned POST for exactly this key, size and type.
 */
export async function createAttachment(
  context: RequestContext,
  applicationId: string,
  body: AttachmentBody,
  fieldErrors: FieldErrorCollector,
): Promise<ApiResult> {
  const { businessId } = context;
  const idem = context.idempotency(body);
  checkBody(body, fieldErrors);
  const nowMs = Date.now();
  const id = newAttachmentId(nowMs, randomBytes(4).toString('hex'));
  const ref = { businessId, applicationId, id };
  // Computed (signed locally), never fetched; used only once the checks below pass.
  const upload = fieldErrors.empty
    ? await presignUpload(uploadKeyOf(ref), body.size, body.content_type, UPLOAD_EXPIRES_SECONDS)
    : undefined;
  return idempotentCreate(
    idem,
    (key) => readForCreate(businessId, applicationId, key),
    ({ applicationExists }) => {
      if (!applicationExists) throw notFound('application', applicationId);
      fieldErrors.throwIfAny();
      const createdAt = new Date(nowMs).toISOString();
      const attachment: StoredAttachment = {
        ...ref,
        fileName: body.file_name,
        contentType: body.content_type,
        size: body.size,
        status: 'pending',
        rejectionReason: null,
        createdAt,
        updatedAt: createdAt,
        version: 1,
        feedRefs: [],
        idempotencyPk: idem?.key.PK ?? null,
        checkedEtag: null,
      };
      const shown = {
        ...attachmentView(attachment),
        upload: {
          method: 'POST',
          url: upload!.url,
          fields: upload!.fields,
          expires_at: new Date(nowMs + UPLOAD_EXPIRES_SECONDS * 1000).toISOString(),
        },
      };
      return {
        result: created(shown, location(applicationId, id), { ETag: etagOf(id, 1) }),
        writes: createWrites(attachment),
      };
    },
  );
}

/** GET one: one BatchGetItem; the download URL is signed locally. */
export async function showAttachment(businessId: string, applicationId: string, id: string): Promise<ApiResult> {
  const attachment = isAttachmentId(id) ? await readAttachment(businessId, applicationId, id) : undefined;
  if (!attachment) throw notFound('attachment', id);
  return ok(await shownWithDownload(attachment), { ETag: etagOf(attachment.id, attachment.version) });
}

/** GET the list: the application's partition (at most 20 records), cut to the page in memory. */
export async function listAttachments(
  businessId: string,
  applicationId: string,
  page: PageRequest,
): Promise<{ entries: Record<string, unknown>[]; total: number }> {
  const { applicationExists, attachments } = await readAttachments(businessId, applicationId, {
    withApplication: true,
  });
  if (!applicationExists) throw notFound('application', applicationId);
  const range = pagePositions(page, attachments.length);
  const entries = range ? await Promise.all(attachments.slice(range.first - 1, range.last).map(shownWithDownload)) : [];
  return { entries, total: attachments.length };
}

/**
 * DELETE one: its bytes first, uploaded or checked (a record without bytes
 * is harmless, bytes without a record would be an orphan), then the record,
 * the count and `attachment.deleted` in one transaction.
 */
export async function deleteAttachment(businessId: string, applicationId: string, id: string): Promise<ApiResult> {
  if (!isAttachmentId(id)) throw notFound('attachment', id);
  return withRetries(async () => {
    const { attachment, feed } = await readForChange(businessId, applicationId, id);
    if (!attachment) throw notFound('attachment', id);
    await deleteObjects(keysOf(attachment));
    await transactWrite([
      ...deleteWrites(attachment),
      ...feedAppendWrites(businessId, feed, [
        { type: 'attachment.deleted', id, occurred_at: new Date().toISOString(), data: null },
      ]),
    ]);
    return noContent();
  });
}

// ---------------------------------------------------------------------------
// the post-upload check
// ---------------------------------------------------------------------------

/** Whether every byte is UTF-8 and none is NUL (contract §19's text/plain). */
function isUtf8WithoutNul(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * What is stored under `key`: its size and ETag, and the type its first bytes
 * show (`file-type`); text is read whole (UTF-8 needs every byte). Only a
 * file of the declared size is read at all, and only the object with that
 * ETag: bytes written meanwhile are not this check's (their own event checks them).
 */
async function storedContent(
  key: string,
  declared: StoredAttachment,
): Promise<(StoredContent & { etag: string }) | undefined> {
  const head = await objectHead(key);
  if (head === undefined) return undefined;
  const { size, etag } = head;
  if (size !== declared.size) return { size, etag, detected: undefined };
  if (declared.contentType === 'text/plain') {
    const bytes = await objectBytes(key, etag);
    return bytes && { size, etag, detected: undefined, utf8WithoutNul: isUtf8WithoutNul(bytes) };
  }
  const first = await objectBytes(key, etag, SIGNATURE_BYTES);
  if (!first) return undefined;
  return { size, etag, detected: (await fileTypeFromBuffer(first))?.mime };
}

export type CheckOutcome =
  | { status: 'available' }
  | { status: 'rejected'; reason: RejectionReason }
  | { status: 'awaiting-scan' | 'orphan-deleted' | 'stale-deleted' | 'not-pending' | 'no-object' | 'ignored' };

/** The check's function: its DynamoDB calls are checked against WORKER_GRANTS of src/http/grants.ts. */
export const CHECK_JOB_NAME = 'check-attachment';

/** Runs `run` with its DynamoDB calls attributed to the check (Lambda, the local server, tests). */
export const asCheckJob = <T>(run: () => Promise<T>): Promise<T> =>
  runWithOrigin(ATTACHMENT_CHECK_ORIGIN, () => inCallScope(CHECK_JOB_NAME, run));

export interface CheckOptions {
  /**
   * The bucket's uploads are scanned for malware (the stack's `malwareScan`
   * setting): a file that passes size and type stays `pending` until the
   * scan result arrives (applyScanResult).
   */
  readonly awaitScan?: boolean;
}

/**
 * The check of one uploaded object (deployed: the bucket's object-created
 * event on the upload prefix; locally: the local S3 server's events). An
 * upload under a key this service did not hand out, or whose record is gone
 * (deleted, erased), loses its bytes, and so does one that lands after its
 * record was settled (an old form used again): never checked, never served.
 * Keys outside the upload prefix are not the check's. A pending record becomes `available` (the bytes copied to the
 * stored prefix, with the declared type) or `rejected` (the bytes deleted);
 * either way its feed entry goes into the same transaction. Awaiting a scan,
 * a file that passes is left pending, untouched.
 */
export async function checkUploadedObject(key: string, options: CheckOptions = {}): Promise<CheckOutcome> {
  const ref = refOfUploadKey(key);
  if (!key.startsWith(UPLOAD_PREFIX)) return { status: 'ignored' };
  if (!ref) {
    await deleteObjects([key]);
    return { status: 'orphan-deleted' };
  }
  return withRetries(async (): Promise<CheckOutcome> => {
    const { attachment, feed } = await readForChange(ref.businessId, ref.applicationId, ref.id);
    if (!attachment) {
      await deleteObjects([key]);
      return { status: 'orphan-deleted' };
    }
    if (attachment.status !== 'pending') {
      await deleteObjects([key]);
      return { status: 'stale-deleted' };
    }
    const content = await storedContent(key, attachment);
    if (!content) return { status: 'no-object' };
    const verdict = verdictOf(attachment, content);
    if (verdict.status === 'available' && options.awaitScan) return { status: 'awaiting-scan' };
    return settle(key, attachment, feed, verdict, content.etag);
  });
}

/**
 * Applies GuardDuty's scan result for one object under the upload prefix.
 * The scan and the check start on the same upload and may finish in either
 * order, so a clean result runs the whole check itself (size and type) and
 * settles the record; malware, or a scan that could not judge the file,
 * rejects it and deletes the bytes. A record that is no longer pending, or
 * gone, or a key this service did not hand out, is left alone (the check
 * deletes orphaned uploads).
 */
export async function applyScanResult(key: string, scanResultStatus: string | undefined): Promise<CheckOutcome> {
  const ref = refOfUploadKey(key);
  if (!key.startsWith(UPLOAD_PREFIX) || !ref) return { status: 'ignored' };
  const scan = scanVerdictOf(scanResultStatus);
  return withRetries(async (): Promise<CheckOutcome> => {
    const { attachment, feed } = await readForChange(ref.businessId, ref.applicationId, ref.id);
    if (!attachment) return { status: 'ignored' };
    if (attachment.status !== 'pending') return { status: 'not-pending' };
    if (!scan.clean) return settle(key, attachment, feed, { status: 'rejected', reason: scan.reason });
    const content = await storedContent(key, attachment);
    if (!content) return { status: 'no-object' };
    return settle(key, attachment, feed, verdictOf(attachment, content), content.etag);
  });
}

/**
 * Makes a pending record `available` (the checked bytes, the object with
 * ETag `etag`, copied to the stored prefix with the declared type; downloads
 * are pinned to the copy's ETag) or `rejected` (the bytes deleted); the
 * record and its feed entry in one transaction. When the upload is no longer
 * the checked object, nothing changes: the newer upload's event checks it.
 */
async function settle(
  key: string,
  attachment: StoredAttachment,
  feed: Awaited<ReturnType<typeof readForChange>>['feed'],
  verdict: { status: 'available' } | { status: 'rejected'; reason: RejectionReason },
  etag?: string,
): Promise<CheckOutcome> {
  let checkedEtag: string | null = null;
  if (verdict.status === 'available') {
    const copied = await copyObject(
      key,
      etag!,
      storedKeyOf(attachment),
      attachment.contentType,
      contentDispositionOf(attachment.fileName),
    );
    if (copied === undefined) return { status: 'no-object' };
    checkedEtag = copied;
  } else await deleteObjects([key]);
  const now = Date.now();
  const updatedAt = new Date(Math.max(now, Date.parse(attachment.updatedAt) + 1)).toISOString();
  const after: StoredAttachment = {
    ...attachment,
    status: verdict.status,
    rejectionReason: verdict.status === 'rejected' ? verdict.reason : null,
    updatedAt,
    version: attachment.version + 1,
    feedRefs: withFeedRef(attachment.feedRefs, feed.n + 1, updatedAt, now),
    checkedEtag,
  };
  const entry: NewFeedEntry = {
    type: verdict.status === 'available' ? 'attachment.available' : 'attachment.rejected',
    id: attachment.id,
    occurred_at: updatedAt,
    data: attachmentView(after),
  };
  await transactWrite([statusWrite(after), ...feedAppendWrites(attachment.businessId, feed, [entry])]);
  // The upload has been copied; whatever is under its key now (an old form used again) is never checked.
  if (verdict.status === 'available') await deleteObjects([key]);
  return verdict;
}

// ---------------------------------------------------------------------------
// erasure
// ---------------------------------------------------------------------------

/**
 * Erases every attachment of an application (contract §17, §19), before the
 * application's own delete transaction: the bytes first (so an earlier
 * download URL stops working, and no object outlives its record), then one
 * transaction for the records, the count, the Idempotency-Key records of
 * their creates and the file names in earlier feed entries (erasureWrites).
 * The caller's transaction checks that no attachment came meanwhile
 * (noAttachmentsLeft) and re-runs if one did.
 */
export async function eraseAttachments(businessId: string, applicationId: string): Promise<void> {
  const { attachments, count } = await readAttachments(businessId, applicationId, { withApplication: false });
  if (attachments.length === 0 && count === undefined) return;
  await deleteObjects(attachments.flatMap(keysOf));
  const erasure = erasureWrites(businessId, applicationId, attachments, count);
  await erasure.before();
  await transactWrite(erasure.writes);
}

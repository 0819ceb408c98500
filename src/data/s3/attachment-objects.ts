/**
 * Every S3 access of attachments (contract §19): the presigned POST that
 * fixes key, size and type, the presigned download pinned to the checked
 * object, and what the check and erasure read, copy and delete. Bucket from
 * ATTACHMENTS_BUCKET; client and presigning shared with exports (src/data/s3/objects.ts,
 * src/data/s3/requests.ts).
 */
import { CopyObjectCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { attachmentsBucket } from '../config';
import { s3 } from './client';
import { isMissing, withinDeadline } from './objects';
import { deleteKeys, presignGet, presignPost, type PresignedPost } from './requests';

/** The policy admits exactly one object: this key, exactly `size` bytes, this Content-Type, for `expiresSeconds`. */
export const presignUpload = (
  key: string,
  size: number,
  contentType: string,
  expiresSeconds: number,
): Promise<PresignedPost> =>
  presignPost(attachmentsBucket(), key, { minBytes: size, maxBytes: size, contentType, expiresSeconds });

/**
 * A GET URL answering the checked object (its ETag, signed into the URL: other
 * bytes under the key are never served) with the declared type and as an
 * attachment, never as a page.
 */
export const presignDownload = (
  key: string,
  etag: string | undefined,
  contentType: string,
  contentDisposition: string,
  expiresSeconds: number,
): Promise<string> =>
  presignGet(attachmentsBucket(), key, {
    expiresSeconds,
    ...(etag ? { ifMatch: etag } : {}),
    contentType,
    contentDisposition,
  });

/** An object's size and ETag (which the reads and the copy below pin), or undefined when there is none. */
export async function objectHead(key: string): Promise<{ size: number; etag: string } | undefined> {
  try {
    const out = await s3().send(new HeadObjectCommand({ Bucket: attachmentsBucket(), Key: key }), withinDeadline());
    return { size: Number(out.ContentLength ?? 0), etag: String(out.ETag) };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Whether S3 refused because the object is no longer the one with the ETag asked for. */
const isChanged = (error: unknown): boolean =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412;

/**
 * The bytes of the object with ETag `etag`, from the start, at most `limit`
 * of them (all when undefined); undefined when the key holds no object or
 * another one now.
 */
export async function objectBytes(key: string, etag: string, limit?: number): Promise<Uint8Array | undefined> {
  try {
    const out = await s3().send(
      new GetObjectCommand({
        Bucket: attachmentsBucket(),
        Key: key,
        IfMatch: etag,
        ...(limit !== undefined ? { Range: `bytes=0-${limit - 1}` } : {}),
      }),
      withinDeadline(),
    );
    return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
  } catch (error) {
    if (isMissing(error) || isChanged(error)) return undefined;
    throw error;
  }
}

/**
 * The checked upload (the object with ETag `etag`, nothing written since)
 * copied to where downloads read it (S3 copies server-side, up to 5 GB in one
 * call), stored with the declared type and as an attachment: the copy's ETag,
 * or undefined when the upload is no longer that object.
 */
export async function copyObject(
  from: string,
  etag: string,
  to: string,
  contentType: string,
  contentDisposition: string,
): Promise<string | undefined> {
  const bucket = attachmentsBucket();
  try {
    const out = await s3().send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: to,
        CopySource: `${bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
        CopySourceIfMatch: etag,
        MetadataDirective: 'REPLACE',
        ContentType: contentType,
        ContentDisposition: contentDisposition,
      }),
      withinDeadline(),
    );
    return String(out.CopyObjectResult?.ETag);
  } catch (error) {
    if (isMissing(error) || isChanged(error)) return undefined;
    throw error;
  }
}

/** Deletes objects (missing ones are fine); any key S3 reports as not deleted fails the operation. */
export const deleteObjects = (objectKeys: readonly string[]): Promise<void> =>
  deleteKeys(attachmentsBucket(), objectKeys, withinDeadline);

/**
 * Every S3 access of attachments (contract §19): the presigned POST that
 * fixes key, size and type, the presigned download, and what the check and
 * erasure read and delete. Bucket from ATTACHMENTS_BUCKET, client from
 * src/data/s3-client.ts (the local S3 server's endpoint when S3_ENDPOINT is set).
 */
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachmentsBucket } from './config';
import { remainingMs } from './deadline';
import { s3 } from './s3-client';

/** An S3 call ends by the request's deadline (none outside a request: the check, retention). */
const within = (): { abortSignal?: AbortSignal } => {
  const left = remainingMs();
  return left === Infinity ? {} : { abortSignal: AbortSignal.timeout(Math.max(1, Math.floor(left))) };
};

export interface PresignedUpload {
  readonly url: string;
  readonly fields: Record<string, string>;
}

/**
 * The policy admits exactly one object: this key, exactly `size` bytes, this
 * Content-Type, until `expiresSeconds` from now (S3 refuses anything else at
 * upload, and so does the local gate, scripts/lib/s3-gate.ts; the check still measures what landed).
 */
export async function presignUpload(
  key: string,
  size: number,
  contentType: string,
  expiresSeconds: number,
): Promise<PresignedUpload> {
  const { url, fields } = await createPresignedPost(s3(), {
    Bucket: attachmentsBucket(),
    Key: key,
    Conditions: [
      ['content-length-range', size, size],
      ['eq', '$Content-Type', contentType],
    ],
    Fields: { 'Content-Type': contentType },
    Expires: expiresSeconds,
  });
  return { url, fields };
}

/** A GET URL answering the object with the declared type and as an attachment, never as a page. */
export function presignDownload(
  key: string,
  contentType: string,
  contentDisposition: string,
  expiresSeconds: number,
): Promise<string> {
  return getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: attachmentsBucket(),
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: contentDisposition,
    }),
    { expiresIn: expiresSeconds },
  );
}

const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/** The stored object's size, or undefined when there is none. */
export async function objectSize(key: string): Promise<number | undefined> {
  try {
    const out = await s3().send(new HeadObjectCommand({ Bucket: attachmentsBucket(), Key: key }), within());
    return Number(out.ContentLength ?? 0);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** The object's bytes from the start, at most `limit` of them (all when undefined); undefined when there is none. */
export async function objectBytes(key: string, limit?: number): Promise<Uint8Array | undefined> {
  try {
    const out = await s3().send(
      new GetObjectCommand({
        Bucket: attachmentsBucket(),
        Key: key,
        ...(limit !== undefined ? { Range: `bytes=0-${limit - 1}` } : {}),
      }),
      within(),
    );
    return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * A checked upload copied to where downloads read it (S3 copies server-side,
 * up to 5 GB in one call), stored with the declared type and as an attachment.
 */
export async function copyObject(
  from: string,
  to: string,
  contentType: string,
  contentDisposition: string,
): Promise<void> {
  const bucket = attachmentsBucket();
  await s3().send(
    new CopyObjectCommand({
      Bucket: bucket,
      Key: to,
      CopySource: `${bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
      MetadataDirective: 'REPLACE',
      ContentType: contentType,
      ContentDisposition: contentDisposition,
    }),
    within(),
  );
}

/** Deletes objects (missing ones are fine), 1000 per call; any key S3 reports as not deleted fails the operation. */
export async function deleteObjects(objectKeys: readonly string[]): Promise<void> {
  if (objectKeys.length === 0) return;
  for (let i = 0; i < objectKeys.length; i += 1000) {
    const out = await s3().send(
      new DeleteObjectsCommand({
        Bucket: attachmentsBucket(),
        Delete: { Objects: objectKeys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
      within(),
    );
    if (out.Errors?.length)
      throw new Error(`S3 kept ${out.Errors.length} attachment object(s): ${out.Errors[0]?.Code}`);
  }
}

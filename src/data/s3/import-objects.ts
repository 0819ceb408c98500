/**
 * Every S3 access of imports (contract §22): the presigned POST of the
 * upload, the streamed read of the uploaded file and its deletion, the
 * results file (one multipart upload, a part per RESULTS_PART_BYTES: at most
 * one part in memory) and its presigned download. In the attachments bucket
 * under `imports/` (src/domain/imports.ts); client and presigning shared with
 * attachments and exports (src/data/s3/objects.ts).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import {
  CONTENT_TYPE_OF,
  MAX_IMPORT_BYTES,
  RESULTS_URL_SECONDS,
  UPLOAD_FORM_SECONDS,
  resultsKeyOf,
  uploadKeyOf,
  type ImportFormat,
} from '../../domain/imports';
import { attachmentsBucket } from '../config';
import { s3 } from './client';
import { isMissing } from './objects';
import { deleteKeys, presignGet, presignPost, type PresignedPost } from './requests';

/** S3 takes parts of at least 5 MiB (the last one excepted). */
const RESULTS_PART_BYTES = 5 * 1024 * 1024;

/**
 * The upload form: this key, 1 byte to the largest import, the format's
 * Content-Type. The declared size is checked once the file is there (a
 * different size fails the import with `size_mismatch`).
 */
export const presignImportUpload = (businessId: string, id: string, format: ImportFormat): Promise<PresignedPost> =>
  presignPost(attachmentsBucket(), uploadKeyOf(businessId, id), {
    minBytes: 1,
    maxBytes: MAX_IMPORT_BYTES,
    contentType: CONTENT_TYPE_OF[format],
    expiresSeconds: UPLOAD_FORM_SECONDS,
  });

/** The uploaded file's size, or undefined when nothing was uploaded. */
export async function uploadSize(businessId: string, id: string): Promise<number | undefined> {
  try {
    const out = await s3().send(
      new HeadObjectCommand({ Bucket: attachmentsBucket(), Key: uploadKeyOf(businessId, id) }),
    );
    return Number(out.ContentLength ?? 0);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** How long a read of the upload waits for its next bytes before it fails (the run is then tried again). */
export const UPLOAD_READ_IDLE_MS = 30_000;

/**
 * The uploaded file's bytes, streamed (never held whole). A body that stops
 * sending for `idleMs` (an object replaced while it was read can leave its
 * response short of its length, and the socket open) fails the read instead
 * of waiting for ever; only the wait for S3 is timed, not the reader's own.
 */
export async function* uploadBytes(
  businessId: string,
  id: string,
  idleMs = UPLOAD_READ_IDLE_MS,
): AsyncGenerator<Uint8Array> {
  const out = await s3().send(new GetObjectCommand({ Bucket: attachmentsBucket(), Key: uploadKeyOf(businessId, id) }));
  if (!out.Body) return;
  const body = out.Body as Readable;
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  try {
    for (;;) {
      const timer = setTimeout(
        () => body.destroy(new Error(`the upload's read got no bytes for ${idleMs} ms`)),
        idleMs,
      );
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } finally {
        clearTimeout(timer);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    body.destroy();
  }
}

export const deleteUpload = (businessId: string, id: string): Promise<void> =>
  deleteKeys(attachmentsBucket(), [uploadKeyOf(businessId, id)]);

/** Writes the results file from its lines (in order), a part at a time. */
export async function writeResultsFile(businessId: string, id: string, lines: AsyncIterable<string>): Promise<void> {
  const Bucket = attachmentsBucket();
  const Key = resultsKeyOf(businessId, id);
  const started = await s3().send(
    new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'application/x-ndjson' }),
  );
  const UploadId = started.UploadId;
  if (!UploadId) throw new Error('S3 answered no UploadId');
  const parts: { PartNumber: number; ETag: string }[] = [];
  let pending: Buffer[] = [];
  let size = 0;
  const send = async (): Promise<void> => {
    const PartNumber = parts.length + 1;
    const out = await s3().send(
      new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: Buffer.concat(pending) }),
    );
    parts.push({ PartNumber, ETag: String(out.ETag) });
    pending = [];
    size = 0;
  };
  try {
    for await (const line of lines) {
      const bytes = Buffer.from(`${line}\n`);
      pending.push(bytes);
      size += bytes.length;
      if (size >= RESULTS_PART_BYTES) await send();
    }
    // An empty file is still one (empty) part.
    if (size > 0 || parts.length === 0) await send();
    await s3().send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    await s3()
      .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }))
      .catch(() => undefined);
    throw error;
  }
}

/** A presigned GET of the results file, valid RESULTS_URL_SECONDS. */
export const resultsUrl = (businessId: string, id: string): Promise<string> =>
  presignGet(attachmentsBucket(), resultsKeyOf(businessId, id), { expiresSeconds: RESULTS_URL_SECONDS });

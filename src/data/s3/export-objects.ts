/**
 * Every S3 access of exports (contract §20, src/services/exports.ts): the file
 * `exports/<business>/<id>.jsonl`, written as one multipart upload (a part per
 * PART_BYTES), and its presigned download. Client and presigning shared with
 * attachments (src/data/s3/objects.ts); no per-call deadline: the worker's
 * parts are megabytes and the client's own timeout bounds each call.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DOWNLOAD_URL_SECONDS } from '../../domain/exports';
import { exportsBucket } from '../config';
import { s3 } from './client';
import { deleteKeys, presignGet } from './requests';

const objectKey = (businessId: string, id: string): string =>
  `exports/${encodeURIComponent(businessId)}/${encodeURIComponent(id)}.jsonl`;

export async function startUpload(businessId: string, id: string): Promise<string> {
  const out = await s3().send(
    new CreateMultipartUploadCommand({
      Bucket: exportsBucket(),
      Key: objectKey(businessId, id),
      ContentType: 'application/x-ndjson',
    }),
  );
  if (!out.UploadId) throw new Error('S3 answered no UploadId');
  return out.UploadId;
}

export async function uploadPart(
  businessId: string,
  id: string,
  uploadId: string,
  partNumber: number,
  body: Buffer,
): Promise<{ PartNumber: number; ETag: string }> {
  const out = await s3().send(
    new UploadPartCommand({
      Bucket: exportsBucket(),
      Key: objectKey(businessId, id),
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: body,
    }),
  );
  return { PartNumber: partNumber, ETag: String(out.ETag) };
}

export async function completeUpload(
  businessId: string,
  id: string,
  uploadId: string,
  parts: readonly { PartNumber: number; ETag: string }[],
): Promise<void> {
  await s3().send(
    new CompleteMultipartUploadCommand({
      Bucket: exportsBucket(),
      Key: objectKey(businessId, id),
      UploadId: uploadId,
      MultipartUpload: { Parts: [...parts] },
    }),
  );
}

export async function abortUpload(businessId: string, id: string, uploadId: string): Promise<void> {
  await s3().send(
    new AbortMultipartUploadCommand({ Bucket: exportsBucket(), Key: objectKey(businessId, id), UploadId: uploadId }),
  );
}

/** A presigned GET of the file, valid DOWNLOAD_URL_SECONDS. */
export const downloadUrl = (businessId: string, id: string): Promise<string> =>
  presignGet(exportsBucket(), objectKey(businessId, id), { expiresSeconds: DOWNLOAD_URL_SECONDS });

/** Deletes the file (contract §20: an erasure after completion); a missing file is fine. */
export const deleteExportFile = (businessId: string, id: string): Promise<void> =>
  deleteKeys(exportsBucket(), [objectKey(businessId, id)]);

/**
 * Rewrites the completed file without the lines `drop` names, streaming: the
 * file is read line by line and written as a new multipart upload to the same
 * key, a part per `partBytes` (one part and one read chunk in memory). The
 * file is replaced only when the new upload completes. Answers how many lines
 * were dropped.
 */
export async function rewriteExportFile(
  businessId: string,
  id: string,
  drop: (line: string) => boolean,
  partBytes: number,
): Promise<number> {
  const Key = objectKey(businessId, id);
  const Bucket = exportsBucket();
  const source = await s3().send(new GetObjectCommand({ Bucket, Key }));
  const uploadId = await startUpload(businessId, id);
  try {
    const parts: { PartNumber: number; ETag: string }[] = [];
    let lines: Buffer[] = [];
    let bytes = 0;
    let dropped = 0;
    const flush = async (): Promise<void> => {
      parts.push(await uploadPart(businessId, id, uploadId, parts.length + 1, Buffer.concat(lines, bytes)));
      lines = [];
      bytes = 0;
    };
    const reader = createInterface({ input: source.Body as Readable, crlfDelay: Infinity });
    for await (const line of reader) {
      if (line === '') continue;
      if (drop(line)) {
        dropped++;
        continue;
      }
      const bytesOf = Buffer.from(`${line}\n`);
      lines.push(bytesOf);
      bytes += bytesOf.length;
      if (bytes >= partBytes) await flush();
    }
    if (bytes > 0 || parts.length === 0) await flush();
    await completeUpload(businessId, id, uploadId, parts);
    return dropped;
  } catch (error) {
    await abortUpload(businessId, id, uploadId).catch(() => undefined);
    throw error;
  }
}

/**
 * Every S3 access of exports (contract §20, src/services/exports.ts): the file
 * `exports/<business>/<id>.jsonl`, written as one multipart upload (a part per
 * PART_BYTES), and its presigned download. Client and presigning shared with
 * attachments (src/data/s3-objects.ts); no per-call deadline: the worker's
 * parts are megabytes and the client's own timeout bounds each call.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DOWNLOAD_URL_SECONDS } from '../domain/exports';
import { exportsBucket } from './config';
import { s3 } from './s3-client';
import { presignGet } from './s3-objects';

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

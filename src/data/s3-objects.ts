/**
 * What every S3 user of the service shares (attachments: src/data/attachment-objects.ts,
 * exports: src/data/export-objects.ts): the one client (src/data/s3-client.ts), the
 * presigned GET and POST, batch deletes, and how a call made for an API request
 * stays inside its deadline.
 */
import { DeleteObjectsCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { remainingMs } from './deadline';
import { s3 } from './s3-client';

/** One S3 call of an API request or a check waits at most this long (what is left of the deadline, if less). */
const CALL_MS = 5000;

/** The abort signal of one S3 call made inside a deadline (an API request, the check, retention). */
export const withinDeadline = (): { abortSignal: AbortSignal } => ({
  abortSignal: AbortSignal.timeout(Math.max(1, Math.floor(Math.min(CALL_MS, remainingMs())))),
});

/** Whether an S3 error says the object (or key) is not there. */
export const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

export interface PresignedPost {
  readonly url: string;
  readonly fields: Record<string, string>;
}

/**
 * A browser POST upload whose policy admits exactly one object: this key,
 * between `minBytes` and `maxBytes` bytes, this Content-Type, for
 * `expiresSeconds` (S3 refuses anything else at upload; so does the local
 * gate, scripts/lib/s3-gate.ts).
 */
export async function presignPost(
  bucket: string,
  key: string,
  limits: { minBytes: number; maxBytes: number; contentType: string; expiresSeconds: number },
): Promise<PresignedPost> {
  const { url, fields } = await createPresignedPost(s3(), {
    Bucket: bucket,
    Key: key,
    Conditions: [
      ['content-length-range', limits.minBytes, limits.maxBytes],
      ['eq', '$Content-Type', limits.contentType],
    ],
    Fields: { 'Content-Type': limits.contentType },
    Expires: limits.expiresSeconds,
  });
  return { url, fields };
}

/**
 * A presigned GET of one object, valid `expiresSeconds`. `ifMatch` pins it to
 * the object with that ETag: the condition is signed into the URL's query
 * (the SDK would make it a header the client must send), so the URL alone
 * never serves other bytes: S3 answers 412 once the object changed (the local
 * gate likewise). The response's type and disposition are fixed when given.
 */
export async function presignGet(
  bucket: string,
  key: string,
  options: { expiresSeconds: number; ifMatch?: string; contentType?: string; contentDisposition?: string },
): Promise<string> {
  const command = new GetObjectCommand({
    Bucket: bucket,
    Key: key,
    ...(options.ifMatch ? { IfMatch: options.ifMatch } : {}),
    ...(options.contentType ? { ResponseContentType: options.contentType } : {}),
    ...(options.contentDisposition ? { ResponseContentDisposition: options.contentDisposition } : {}),
  });
  if (options.ifMatch)
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers: Record<string, string>; query: Record<string, string> };
        request.query['If-Match'] = request.headers['if-match']!;
        delete request.headers['if-match'];
        return next(args);
      },
      { step: 'build', name: 'ifMatchInQuery' },
    );
  return getSignedUrl(s3(), command, { expiresIn: options.expiresSeconds });
}

/** Deletes objects (missing ones are fine), 1000 per call; any key S3 reports as not deleted fails the operation. */
export async function deleteKeys(
  bucket: string,
  keys: readonly string[],
  signal: () => { abortSignal?: AbortSignal } = () => ({}),
): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const out = await s3().send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
      signal(),
    );
    if (out.Errors?.length) throw new Error(`S3 kept ${out.Errors.length} object(s): ${out.Errors[0]?.Code}`);
  }
}

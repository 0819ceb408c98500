/**
 * What every S3 user of the service shares (attachments: src/data/s3/attachment-objects.ts,
 * exports: src/data/s3/export-objects.ts): how a call made for an API request
 * stays inside its deadline, and what a missing object looks like. The client:
 * src/data/s3/client.ts; presigned URLs and batch deletes without it:
 * src/data/s3/requests.ts.
 */
import { remainingMs } from '../deadline';

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

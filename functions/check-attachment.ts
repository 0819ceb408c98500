/**
 * The post-upload check (contract §19; not an API route): the attachments
 * bucket's object-created notifications invoke it (lib/api-stack.ts); the
 * local server runs the same handler on the local S3 server's events
 * (scripts/local-server.ts). Each object is checked on its own; a failure
 * fails the invocation, which Lambda retries (the check is idempotent: a
 * record no longer pending is left alone).
 */
import type { S3Event } from 'aws-lambda';
import { runWithDeadline } from '../src/data/deadline';
import { logger } from '../src/http/logger';
import { recordRejectedUpload } from '../src/http/metrics';
import { asCheckJob, checkUploadedObject } from '../src/services/attachments';

/** Each object's check is bounded (a few S3 and DynamoDB calls); the function's timeout leaves room for a batch. */
const CHECK_BUDGET_MS = 20_000;

export async function handler(event: S3Event): Promise<void> {
  for (const record of event.Records ?? []) {
    if (!record.eventName?.startsWith('ObjectCreated:')) continue;
    // S3 sends the key URL-encoded, spaces as '+'.
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    const outcome = await runWithDeadline(CHECK_BUDGET_MS, () => asCheckJob(() => checkUploadedObject(key)));
    logger.info('attachment checked', { key, ...outcome });
    if (outcome.status === 'rejected') recordRejectedUpload();
  }
}

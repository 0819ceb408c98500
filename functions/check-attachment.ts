/**
 * The post-upload check (contract §19; not an API route): the attachments
 * bucket's object-created notifications invoke it (lib/api-stack.ts); the
 * local server runs the same handler on the local S3 server's events
 * (scripts/local-server.ts). With the stack's `malwareScan` setting
 * (MALWARE_SCAN=true), a file that passes stays pending, and GuardDuty's
 * scan-result event (EventBridge) invokes this function again to settle it.
 * Each object is handled on its own. A check that fails is tried again
 * within the object's budget; one that keeps failing is logged at ERROR,
 * counted (the stack alarms on it) and fails the invocation, which Lambda
 * delivers again (both paths are idempotent: a record no longer pending is
 * left alone). Contract §19: a check never leaves a landed upload pending.
 */
import type { EventBridgeEvent, S3Event } from 'aws-lambda';
import { SCAN_RESULT_DETAIL_TYPE, scanResultOf } from '../src/services/attachment-check';
import { remainingMs, runWithDeadline } from '../src/services/job-runtime';
import { logger } from '../src/http/logger';
import { recordFailedCheck, recordRejectedUpload } from '../src/http/metrics';
import { applyScanResult, asCheckJob, checkUploadedObject, type CheckOutcome } from '../src/services/attachments';

/** Each object's check is bounded (a few S3 and DynamoDB calls); the function's timeout leaves room for a batch. */
const CHECK_BUDGET_MS = 20_000;

type ScanResultEvent = EventBridgeEvent<typeof SCAN_RESULT_DETAIL_TYPE, unknown>;

const isScanResult = (event: S3Event | ScanResultEvent): event is ScanResultEvent =>
  (event as ScanResultEvent)['detail-type'] === SCAN_RESULT_DETAIL_TYPE;

/** Attempts of one object's check, the pause before the second (doubling), and the least an attempt needs. */
const CHECK_ATTEMPTS = 3;
const FIRST_PAUSE_MS = 200;
const ATTEMPT_MS = 2_000;

async function run(key: string, step: () => Promise<CheckOutcome>): Promise<void> {
  await runWithDeadline(CHECK_BUDGET_MS, async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await asCheckJob(step);
        logger.info('attachment checked', { key, ...outcome });
        if (outcome.status === 'rejected') recordRejectedUpload();
        return;
      } catch (error) {
        const pause = FIRST_PAUSE_MS * 2 ** (attempt - 1);
        if (attempt >= CHECK_ATTEMPTS || remainingMs() < pause + ATTEMPT_MS) {
          logger.error('attachment check failed: the upload stays pending until a redelivery settles it', {
            key,
            attempts: attempt,
            error: error as Error,
          });
          recordFailedCheck();
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  });
}

export async function handler(event: S3Event | ScanResultEvent): Promise<void> {
  if (isScanResult(event)) {
    const scan = scanResultOf(event.detail);
    // The rule matches this bucket only; anything else is not ours to settle.
    if (!scan || scan.bucket !== process.env.ATTACHMENTS_BUCKET) {
      logger.warn('scan result ignored', { detail: event.detail });
      return;
    }
    await run(scan.key, () => applyScanResult(scan.key, scan.status));
    return;
  }
  const awaitScan = process.env.MALWARE_SCAN === 'true';
  for (const record of event.Records ?? []) {
    if (!record.eventName?.startsWith('ObjectCreated:')) continue;
    // S3 sends the key URL-encoded, spaces as '+'.
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    await run(key, () => checkUploadedObject(key, { awaitScan }));
  }
}

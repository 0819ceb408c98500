/**
 * The export worker Lambda (not an API route), fed by the export queue: one
 * message `{business_id, id}` = one run of src/services/exports.ts runExport.
 * A run stops starting batches a minute before the function's timeout; if the
 * export is not done it queues the next run, which resumes at the checkpoint.
 * A run that fails makes the invocation fail: SQS delivers the message again
 * (the lease of a crashed run expires first), and after 5 receives it goes to
 * the dead-letter queue (alarmed).
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { queueExportRun } from '../src/services/job-runtime';
import { asExportWorker, runExport } from '../src/services/exports';

const MARGIN_MS = 60_000;

export const handler = (event: SQSEvent, context: Context): Promise<void> =>
  asExportWorker(async () => {
    const outOfTime = (): boolean => context.getRemainingTimeInMillis() < MARGIN_MS;
    for (const record of event.Records) {
      const { business_id: businessId, id } = JSON.parse(record.body) as { business_id: string; id: string };
      if ((await runExport(businessId, id, { outOfTime })) === 'paused') await queueExportRun(businessId, id);
    }
  });

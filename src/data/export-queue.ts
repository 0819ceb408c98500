import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { exportQueueUrl } from './config';

let sqs: SQSClient | undefined;

/**
 * Deployed: queues one run of an export's worker (functions/run-export.ts);
 * a run that reaches its time limit queues the next one the same way.
 */
export async function queueExportRun(businessId: string, id: string): Promise<void> {
  const url = exportQueueUrl();
  if (!url) throw new Error('EXPORT_QUEUE_URL is not set');
  await (sqs ??= new SQSClient({ maxAttempts: 3 })).send(
    new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ business_id: businessId, id }) }),
  );
}

import { awsJsonCall } from './aws-json-requests';
import { exportQueueUrl } from './config';

/**
 * Deployed: queues one run of an export's worker (functions/run-export.ts);
 * a run that reaches its time limit queues the next one the same way.
 */
export async function queueExportRun(businessId: string, id: string): Promise<void> {
  const url = exportQueueUrl();
  if (!url) throw new Error('EXPORT_QUEUE_URL is not set');
  // A signed request, not the SQS client: the API functions that start or resume a run stay 25 KB smaller.
  // Sent to the queue URL's host, as the SQS client does (its `useQueueUrlAsEndpoint`).
  await awsJsonCall(
    'sqs',
    'SendMessage',
    { QueueUrl: url, MessageBody: JSON.stringify({ business_id: businessId, id }) },
    new URL(url).origin,
  );
}

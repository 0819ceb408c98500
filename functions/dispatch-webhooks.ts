/**
 * The webhook dispatcher Lambda (not an API route). Triggers:
 * - the schedule (EventBridge, every minute): every subscription that is due;
 * - SQS retry messages `{business_id, id}`: that one subscription, once its retry is due.
 * A subscription left waiting for a retry gets a delayed SQS message (at most
 * 15 minutes ahead; a message that arrives early re-queues itself for the rest).
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { webhookRetryQueueUrl } from '../src/data/config';
import { asDispatcher, pumpDue, pumpSubscription, type PumpResult } from '../src/services/webhook-dispatcher';
import '../src/services/feed-wiring';

const MAX_SQS_DELAY_SECONDS = 900;
let sqs: SQSClient | undefined;

async function wakeLater(businessId: string, id: string, dueAt: number): Promise<void> {
  const delay = Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - Date.now()) / 1000)));
  await (sqs ??= new SQSClient({ maxAttempts: 3 })).send(
    new SendMessageCommand({
      QueueUrl: webhookRetryQueueUrl(),
      MessageBody: JSON.stringify({ business_id: businessId, id }),
      DelaySeconds: delay,
    }),
  );
}

const isSqs = (event: unknown): event is SQSEvent =>
  Array.isArray((event as SQSEvent).Records) && (event as SQSEvent).Records[0]?.eventSource === 'aws:sqs';

export const handler = (event: unknown, context: Context): Promise<void> =>
  asDispatcher(() => dispatch(event, context));

async function dispatch(event: unknown, context: Context): Promise<void> {
  // Stop starting deliveries while one could still outlast the function.
  const deadline = Date.now() + context.getRemainingTimeInMillis() - 2_000;
  let runs: { businessId: string; id: string; result: PumpResult }[];
  if (isSqs(event)) {
    const targets = event.Records.map((record) => {
      const body = JSON.parse(record.body) as { business_id: string; id: string };
      return { businessId: body.business_id, id: body.id };
    });
    runs = await Promise.all(
      targets.map(async (t) => ({
        ...t,
        result: await pumpSubscription(t.businessId, t.id, deadline).catch((error: unknown): PumpResult => ({
          state: 'failed',
          error,
        })),
      })),
    );
  } else {
    runs = await pumpDue(deadline);
  }
  // A message that arrived early keeps its chain alive; a fresh failure starts one.
  const wakeUps = runs.filter(
    (r) => r.result.state === 'retry-scheduled' || (isSqs(event) && r.result.state === 'waiting'),
  );
  await Promise.all(
    wakeUps.map((r) => ('dueAt' in r.result ? wakeLater(r.businessId, r.id, r.result.dueAt) : undefined)),
  );
  // The others were served; now the invocation fails (Errors alarm; an SQS batch comes back, and a
  // message that keeps failing ends in the dead-letter queue and its alarm).
  const failed = runs.flatMap((r) => (r.result.state === 'failed' ? [r.result.error] : []));
  if (failed.length > 0) throw new AggregateError(failed, `${failed.length} webhook subscription run(s) failed`);
}

/**
 * The webhook dispatcher Lambda (not an API route). Triggers:
 * - the schedule (EventBridge, every minute): pollDue finds the subscriptions
 *   with entries to deliver (per business, one read of the feed's lane
 *   counters) and sends one lane message `{business_id, id}` per subscription;
 * - SQS lane messages (batch size 1: one invocation per subscription): that one
 *   subscription delivers until it is caught up, waits for a retry (a delayed
 *   message wakes it, at most 15 minutes ahead; one that arrives early re-queues
 *   itself for the rest) or runs out of time (a message continues it at once).
 * So a receiver that is slow or never answers holds its own invocation only;
 * the event source's maximum concurrency (lib/api-stack.ts) bounds the lanes.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { webhookRetryQueueUrl } from '../src/services/job-runtime';
import {
  asDispatcher,
  pollDue,
  pumpSubscription,
  type CaughtUpMemory,
  type PumpResult,
  type SubscriptionRef,
} from '../src/services/webhook-dispatcher';
import '../src/services/feed-wiring';

const MAX_SQS_DELAY_SECONDS = 900;
const SQS_BATCH = 10;
let sqs: SQSClient | undefined;
/** Kept while the container is warm: subscriptions found caught up are not read again until their feed moves. */
const memory: CaughtUpMemory = new Map();

/** One lane message per subscription, each delayed until its `dueAt` (at most 15 minutes; 0 = now). */
async function sendLanes(lanes: readonly (SubscriptionRef & { dueAt: number })[]): Promise<void> {
  const client = (sqs ??= new SQSClient({ maxAttempts: 3 }));
  for (let i = 0; i < lanes.length; i += SQS_BATCH) {
    const batch = lanes.slice(i, i + SQS_BATCH);
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: webhookRetryQueueUrl(),
        Entries: batch.map((lane, n) => ({
          Id: String(n),
          MessageBody: JSON.stringify({ business_id: lane.businessId, id: lane.id }),
          DelaySeconds: Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil((lane.dueAt - Date.now()) / 1000))),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`${out.Failed.length} webhook lane message(s) not sent`);
  }
}

const isSqs = (event: unknown): event is SQSEvent =>
  Array.isArray((event as SQSEvent).Records) && (event as SQSEvent).Records[0]?.eventSource === 'aws:sqs';

export const handler = (event: unknown, context: Context): Promise<void> =>
  asDispatcher(() => (isSqs(event) ? runLanes(event, context) : poll()));

/** The schedule: find the work, hand each subscription its lane. */
async function poll(): Promise<void> {
  const { work, failures } = await pollDue(Date.now(), memory);
  await sendLanes(work.map((ref) => ({ ...ref, dueAt: 0 })));
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} business poll(s) failed`);
}

async function runLanes(event: SQSEvent, context: Context): Promise<void> {
  // Stop starting deliveries while one could still outlast the function.
  const deadline = Date.now() + context.getRemainingTimeInMillis() - 2_000;
  const runs = await Promise.all(
    event.Records.map(async (record) => {
      const body = JSON.parse(record.body) as { business_id: string; id: string };
      const ref = { businessId: body.business_id, id: body.id };
      const result = await pumpSubscription(ref.businessId, ref.id, deadline).catch((error: unknown): PumpResult => ({
        state: 'failed',
        error,
      }));
      return { ...ref, result };
    }),
  );
  // A fresh failure starts a wake-up chain, a message that arrived early keeps it alive, a run out of time continues.
  await sendLanes(
    runs.flatMap((r) =>
      r.result.state === 'retry-scheduled' || r.result.state === 'waiting'
        ? [{ ...r, dueAt: r.result.dueAt }]
        : r.result.state === 'out-of-time'
          ? [{ ...r, dueAt: 0 }]
          : [],
    ),
  );
  // Now the invocation fails (Errors alarm; the message comes back, and one that keeps failing ends in the
  // dead-letter queue and its alarm).
  const failed = runs.flatMap((r) => (r.result.state === 'failed' ? [r.result.error] : []));
  if (failed.length > 0) throw new AggregateError(failed, `${failed.length} webhook subscription run(s) failed`);
}

/**
 * The webhook dispatcher (contract §14): each subscription is a consumer of
 * its business's change feed with its own cursor. One run of `pumpSubscription`
 * delivers that subscription's pending entries in feed order, one at a time,
 * until it is caught up, waiting for a retry, or out of time.
 *
 * Safety between concurrent runs (two Lambdas, or Lambda and a retry message):
 * every write is conditioned on the `version` that was read. A run first takes
 * the lease (version v -> v+1), delivers, then records the outcome (v+1 -> v+2)
 * and releases it; a run that loses either condition stops. So the cursor only
 * moves by one writer, one entry at a time, and an expired lease (a crashed run)
 * lets the next run deliver the same entry again: at least once, never out of order.
 *
 * Runs in the dispatcher Lambda (functions/dispatch-webhooks.ts) and in-process
 * in the local server (startLocalDispatcher).
 */
import {
  afterAttempt,
  DELIVERY_TIMEOUT_MS,
  parseRetryDelays,
  wants,
  webhookIdOf,
  type DeliveryOutcome,
} from '../domain/webhooks';
import { inCallScope } from '../data/call-scope';
import { webhookRetryDelaysRaw } from '../data/config';
import { open } from '../data/secret-box';
import {
  claimLease,
  readDueSubscriptions,
  readSubscription,
  recordAttempt,
  sealingContext,
  skipTo,
  type StoredSubscription,
} from '../data/webhook-store';
import { changeSource, type FeedEntry } from './change-source';
import { deliver } from './webhook-delivery';

/** The function's name: its DynamoDB calls are checked against WORKER_GRANTS of src/http/routes.ts. */
export const DISPATCHER_NAME = 'dispatch-webhooks';

/** Runs one dispatcher invocation (Lambda or local pass) with its calls attributed to the dispatcher. */
export const asDispatcher = <T>(run: () => Promise<T>): Promise<T> => inCallScope(DISPATCHER_NAME, run);

/** A lease outlives the longest delivery, so a live run is never overtaken. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000;
const PAGE = 25;

export interface DispatchDeps {
  readonly now: () => number;
  readonly retryDelays: readonly number[];
  readonly send: (sub: StoredSubscription, entry: FeedEntry, secret: string) => Promise<DeliveryOutcome>;
}

const secrets = new Map<string, string>();

async function secretOf(sub: StoredSubscription): Promise<string> {
  const context = sealingContext(sub.businessId, sub.id);
  let secret = secrets.get(context);
  if (secret === undefined) {
    secret = await open(sub.secretSealed, context);
    secrets.set(context, secret);
  }
  return secret;
}

export const defaultDeps = (): DispatchDeps => ({
  now: Date.now,
  retryDelays: parseRetryDelays(webhookRetryDelaysRaw()),
  send: (sub, entry, secret) =>
    deliver({
      url: sub.url,
      secret,
      webhookId: webhookIdOf(sub.id, entry.cursor),
      body: JSON.stringify(entry),
      now: new Date(),
    }),
});

/**
 * `retry-scheduled`: an attempt failed in this run (the caller may arrange a
 * wake-up at dueAt); `waiting`: found waiting for an earlier scheduled retry.
 */
export type PumpResult =
  | { readonly state: 'idle' | 'gone' | 'busy' | 'disabled' | 'out-of-time' }
  | { readonly state: 'failed'; readonly error: unknown }
  | { readonly state: 'waiting' | 'retry-scheduled'; readonly dueAt: number };

/**
 * Delivers what is pending for one subscription. `deadline` (epoch ms) stops
 * it before a new delivery could outlast the caller (the Lambda's timeout).
 */
export async function pumpSubscription(
  businessId: string,
  id: string,
  deadline: number,
  deps: DispatchDeps = defaultDeps(),
): Promise<PumpResult> {
  for (;;) {
    const sub = await readSubscription(businessId, id);
    if (!sub) return { state: 'gone' };
    if (sub.status !== 'active') return { state: 'disabled' };
    const now = deps.now();
    if (sub.leaseUntil > now) return { state: 'busy' };
    if (sub.nextAttemptAt > now) return { state: 'waiting', dueAt: sub.nextAttemptAt };
    if (now + LEASE_MS > deadline) return { state: 'out-of-time' };

    const { entries } = await changeSource().readAfter(businessId, sub.cursor, PAGE);
    const next = entries.find((e) => wants(sub.types, e.type));
    if (!next) {
      const last = entries.at(-1);
      // Nothing wanted in this page: move past it (conditional, like every move) and look again.
      if (!last) return { state: 'idle' };
      if (!(await skipTo(sub, last.cursor))) return { state: 'busy' };
      continue;
    }
    const skippedTo = entries[entries.indexOf(next) - 1]?.cursor ?? sub.cursor;
    if (!(await claimLease(sub, now + LEASE_MS, skippedTo))) return { state: 'busy' };
    const leased = { ...sub, cursor: skippedTo };

    const outcome = await deps.send(leased, next, await secretOf(sub));
    const after = afterAttempt(leased, next.cursor, outcome, deps.now(), deps.retryDelays);
    if (!(await recordAttempt(leased, sub.version + 1, after))) return { state: 'gone' };
    if (after.status === 'disabled') return { state: 'disabled' };
    if (!outcome.ok) return { state: 'retry-scheduled', dueAt: after.nextAttemptAt };
  }
}

/** Subscriptions served side by side in one pass (each one stays in order, one delivery at a time). */
const PARALLEL_SUBSCRIPTIONS = 16;

/** Every active subscription whose next attempt is due, one pass (the schedule and the local poller). */
export async function pumpDue(
  deadline: number,
  deps: DispatchDeps = defaultDeps(),
): Promise<{ businessId: string; id: string; result: PumpResult }[]> {
  const due = await readDueSubscriptions(deps.now());
  const results: { businessId: string; id: string; result: PumpResult }[] = [];
  let next = 0;
  // A few workers take subscriptions in turn: a slow receiver holds up one worker, not the pass,
  // and a subscription whose run fails (DynamoDB, the feed) leaves the others to be served.
  const worker = async (): Promise<void> => {
    for (let s = due[next++]; s; s = due[next++]) {
      const result = await pumpSubscription(s.businessId, s.id, deadline, deps).catch((error: unknown): PumpResult => ({
        state: 'failed',
        error,
      }));
      results.push({ ...s, result });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_SUBSCRIPTIONS, due.length) }, worker));
  return results;
}

/**
 * `npm start`: the same dispatcher in-process, polling every `intervalMs`, so a
 * commit is delivered within about a second. Returns a stop function that
 * waits for the pass in flight.
 */
export function startLocalDispatcher(
  intervalMs = 1000,
  deps: () => DispatchDeps = defaultDeps,
  onError: (error: unknown) => void = (error) => console.error('webhook dispatcher:', error),
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = asDispatcher(() => pumpDue(Date.now() + 60_000, deps()))
      .then((runs) => {
        for (const { result } of runs) if (result.state === 'failed') onError(result.error);
      })
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

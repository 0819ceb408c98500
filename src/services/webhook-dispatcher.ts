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
 * Isolation: `pollDue` finds the subscriptions with work and delivers nothing;
 * each of them then runs `pumpSubscription` in a lane of its own (deployed: one
 * SQS message and Lambda invocation each, functions/dispatch-webhooks.ts;
 * locally: one promise each, startLocalDispatcher), so no subscription's
 * delivery waits for another's. docs/webhooks.md says what bounds the lanes.
 */
import { keepAtMost } from '../domain/bounded-map';
import {
  afterAttempt,
  DELIVERY_TIMEOUT_MS,
  parseRetryDelays,
  wants,
  webhookIdOf,
  type DeliveryOutcome,
} from '../domain/webhooks';
import { inCallScope } from '../data/dynamo/call-scope';
import { webhookRetryDelaysRaw } from '../data/config';
import { open } from '../data/secret-box';
import {
  claimLease,
  readDueSubscriptions,
  readSubscription,
  readSubscriptionsById,
  recordAttempt,
  sealingContext,
  skipTo,
  type StoredSubscription,
} from '../data/webhook-store';
import { changeSource, type FeedEntry } from './change-source';
import { deliver } from './webhook-delivery';
import { readsEntry } from '../domain/token-view';
import { projectFeedEntry, rightsOfToken } from './token-view';

/** `last_delivery_error` of a subscription whose creating token was revoked or expired (contract §25). */
export const TOKEN_REVOKED = 'token_revoked';

/** The function's name: its DynamoDB calls are checked against WORKER_GRANTS of src/http/grants.ts. */
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

/** Opened signing secrets by subscription, the oldest forgotten first: bounded like the other kept lookups. */
const secrets = new Map<string, string>();
const MAX_SECRETS = 1000;

async function secretOf(sub: StoredSubscription): Promise<string> {
  const context = sealingContext(sub.businessId, sub.id);
  let secret = secrets.get(context);
  if (secret === undefined) {
    secret = await open(sub.secretSealed, context);
    keepAtMost(secrets, MAX_SECRETS, context, secret);
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
 * `out-of-time`: entries are left that this run had no time for;
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
  // What this run knows: the subscription as its own last write left it (every write is conditioned on the
  // version, so nobody else moved it meanwhile), and the entries after its cursor already read.
  let sub = await readSubscription(businessId, id);
  let page: FeedEntry[] = [];
  for (;;) {
    if (!sub) return { state: 'gone' };
    if (sub.status !== 'active') return { state: 'disabled' };
    const now = deps.now();
    if (sub.leaseUntil > now) return { state: 'busy' };
    if (sub.nextAttemptAt > now) return { state: 'waiting', dueAt: sub.nextAttemptAt };
    if (now + LEASE_MS > deadline) return { state: 'out-of-time' };

    if (page.length === 0) page = (await changeSource().readAfter(businessId, sub.cursor, PAGE)).entries;
    // Its creating token's rights at delivery time (a subscription stored without its token's hash: every right).
    const rights =
      page.length === 0 || sub.tokenHash === undefined ? undefined : await rightsOfToken(sub.tokenHash, now);
    if (rights === 'revoked') {
      // Its token is gone: the subscription is disabled and receives nothing more.
      if (!(await claimLease(sub, now + LEASE_MS, sub.cursor))) return { state: 'busy' };
      const ended = { ...sub, status: 'disabled' as const, nextAttemptAt: 0, lastDeliveryError: TOKEN_REVOKED };
      await recordAttempt(sub, sub.version + 1, ended);
      return { state: 'disabled' };
    }
    const at = page.findIndex(
      (e) => wants(sub?.types ?? null, e.type) && (rights === undefined || readsEntry(rights, e.type, e.data)),
    );
    const next = page[at];
    if (!next) {
      const last = page.at(-1);
      // Nothing wanted in this page: move past it (conditional, like every move) and look again.
      if (!last) return { state: 'idle' };
      if (!(await skipTo(sub, last.cursor))) return { state: 'busy' };
      sub = { ...sub, cursor: last.cursor, version: sub.version + 1 };
      page = [];
      continue;
    }
    const skippedTo = page[at - 1]?.cursor ?? sub.cursor;
    if (!(await claimLease(sub, now + LEASE_MS, skippedTo))) return { state: 'busy' };
    const leased = { ...sub, cursor: skippedTo };

    const body = rights === undefined ? next : projectFeedEntry(rights, next);
    const outcome = await deps.send(leased, body, await secretOf(sub));
    const after = afterAttempt(leased, next.cursor, outcome, deps.now(), deps.retryDelays);
    if (!(await recordAttempt(leased, sub.version + 1, after))) return { state: 'gone' };
    if (after.status === 'disabled') return { state: 'disabled' };
    if (!outcome.ok) return { state: 'retry-scheduled', dueAt: after.nextAttemptAt };
    sub = { ...leased, ...after, version: sub.version + 2, leaseUntil: 0 };
    page = page.slice(at + 1);
  }
}

/** A subscription by its business and id. */
export interface SubscriptionRef {
  readonly businessId: string;
  readonly id: string;
}

const refKey = (r: SubscriptionRef): string => `${r.businessId}\u0000${r.id}`;

/**
 * What one poller remembers between polls: per subscription, the feed end
 * (its business's lane counters as a cursor) at which it was last found caught
 * up. Only a shortcut: the end is read fresh every poll and a subscription's
 * cursor never moves back, so "caught up at this same end" is still true, and
 * a poller that remembers nothing (another instance, a cold Lambda) reads the
 * subscription instead.
 */
export type CaughtUpMemory = Map<string, string | null>;

export interface PollResult {
  /** Subscriptions due now with entries after their cursor: each gets its own lane. */
  readonly work: SubscriptionRef[];
  /** Businesses whose feed or subscriptions could not be read this time (the others were served). */
  readonly failures: unknown[];
}

/**
 * One poll (contract §14: idle subscriptions cost no work each): the due
 * subscriptions' keys (one Query), then per business one read of its feed's
 * lane counters. A subscription remembered as caught up at that same end is
 * not read at all; the others of the business are read together (one
 * BatchGetItem) and those behind the end are returned as work. Nothing is
 * delivered here: the caller gives each one its own lane.
 */
export async function pollDue(now: number, memory: CaughtUpMemory = new Map()): Promise<PollResult> {
  const due = await readDueSubscriptions(now);
  const dueKeys = new Set(due.map(refKey));
  for (const key of memory.keys()) if (!dueKeys.has(key)) memory.delete(key);
  const byBusiness = new Map<string, string[]>();
  for (const d of due) byBusiness.set(d.businessId, [...(byBusiness.get(d.businessId) ?? []), d.id]);

  const work: SubscriptionRef[] = [];
  const failures: unknown[] = [];
  await eachAtMost(POLL_CONCURRENCY, [...byBusiness], async ([businessId, ids]) => {
    try {
      const end = await changeSource().end(businessId);
      const unknown = ids.filter((id) => {
        const key = refKey({ businessId, id });
        return !(memory.has(key) && memory.get(key) === end);
      });
      if (unknown.length === 0) return;
      const subs = await readSubscriptionsById(businessId, unknown);
      for (const sub of subs) {
        if (!sub || sub.status !== 'active') continue;
        if (sub.cursor === end) memory.set(refKey(sub), end);
        else work.push({ businessId, id: sub.id });
      }
    } catch (error) {
      failures.push(error);
    }
  });
  return { work, failures };
}

/**
 * Businesses read at once by one poll: with thousands of businesses due, an
 * unbounded fan-out would open as many connections and throttle the table in a
 * burst; 16 keep a poll to a few round trips per hundred businesses.
 */
const POLL_CONCURRENCY = 16;

/** Runs `task` on every item, at most `limit` at a time (a worker pool: one slow item holds up only its worker). */
async function eachAtMost<T>(limit: number, items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * `npm start`: polls every `intervalMs` (pollDue) and runs each subscription
 * with work in a lane of its own (pumpSubscription), never awaited by the
 * poll: a receiver that is slow, hangs or streams holds up its own lane only,
 * and the next poll still starts the others' lanes. A subscription whose lane
 * is still running is not started twice by this process; another process's
 * run of it finds the lease taken (claimLease) and stops, so several local
 * processes never deliver an entry twice. Returns a stop function that waits
 * for the poll and the lanes in flight.
 */
export function startLocalDispatcher(
  intervalMs = 1000,
  deps: () => DispatchDeps = defaultDeps,
  onError: (error: unknown) => void = (error) => console.error('webhook dispatcher:', error),
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();
  const lanes = new Map<string, Promise<void>>();
  const memory: CaughtUpMemory = new Map();
  const startLane = (ref: SubscriptionRef): void => {
    const key = refKey(ref);
    if (lanes.has(key)) return;
    const lane = asDispatcher(() => pumpSubscription(ref.businessId, ref.id, Date.now() + LOCAL_LANE_MS, deps()))
      .then(() => undefined, onError)
      .finally(() => lanes.delete(key));
    lanes.set(key, lane);
  };
  const tick = (): void => {
    polling = asDispatcher(() => pollDue(Date.now(), memory))
      .then(({ work, failures }) => {
        failures.forEach(onError);
        if (!stopped) work.forEach(startLane);
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
    await polling;
    await Promise.all(lanes.values());
  };
}

/** How long one local lane run may keep delivering before it leaves the rest to the next poll. */
const LOCAL_LANE_MS = 60_000;

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
  pingEntry,
  pingKey,
  resultOf,
  wants,
  webhookIdOf,
  type DeliveryOutcome,
  type PendingPing,
} from '../domain/webhooks';
import { dayOf } from '../domain/webhook-deliveries';
import { inCallScope } from '../data/dynamo/call-scope';
import { webhookRetryDelaysRaw } from '../data/config';
import { open } from '../data/secret-box';
import {
  claimLease,
  deliveryLogItem,
  markDeliveryDay,
  readDueSubscriptions,
  readSubscription,
  readSubscriptionsById,
  recordAttempt,
  recordPing,
  sealingContext,
  skipTo,
  writeDeliveryLog,
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

/** What is delivered: a feed entry, or a ping (its cursor is the subscription's, null before any change). */
export type DeliveredEntry = Omit<FeedEntry, 'cursor'> & { readonly cursor: string | null };

export interface DispatchDeps {
  readonly now: () => number;
  readonly retryDelays: readonly number[];
  /** One attempt; `entryKey` names the entry (ChangeSource keys, or the ping's id): its webhook-id is built from it. */
  readonly send: (
    sub: StoredSubscription,
    entry: DeliveredEntry,
    secret: string,
    entryKey: string,
  ) => Promise<DeliveryOutcome>;
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
  send: (sub, entry, secret, entryKey) =>
    deliver({
      url: sub.url,
      secret,
      webhookId: webhookIdOf(sub.id, entryKey),
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
  // The delivery log's items are written in batches beside the lane (a delivery never waits for them); the run
  // ends once they all are, and reports the first write that failed.
  const logs = new LogWrites();
  const result = await deliverPending(businessId, id, deadline, deps, logs).finally(() => logs.settled());
  logs.throwIfFailed();
  return result;
}

/** One BatchWriteItem's worth of the delivery log. */
const LOG_BATCH = 25;

/**
 * The delivery log's items of one run: sent LOG_BATCH at a time while the run
 * goes on, the rest when it ends. Every write is handled at once (a failure is
 * kept, never an unhandled rejection).
 */
class LogWrites {
  private buffer: Record<string, unknown>[] = [];
  private readonly pending: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;
  add(item: Record<string, unknown>): void {
    this.buffer.push(item);
    if (this.buffer.length >= LOG_BATCH) this.flush();
  }
  private flush(): void {
    if (this.buffer.length === 0) return;
    const items = this.buffer;
    this.buffer = [];
    this.pending.push(
      writeDeliveryLog(items).catch((error: unknown) => {
        this.failure ??= { error };
      }),
    );
  }
  settled = async (): Promise<void> => {
    this.flush();
    await Promise.all(this.pending);
  };
  throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

async function deliverPending(
  businessId: string,
  id: string,
  deadline: number,
  deps: DispatchDeps,
  logs: LogWrites,
): Promise<PumpResult> {
  // What this run knows: the subscription as its own last write left it (every write is conditioned on the
  // version, so nobody else moved it meanwhile), and the entries after its cursor already read.
  let sub = await readSubscription(businessId, id);
  let page: { entry: FeedEntry; key: string }[] = [];
  for (;;) {
    if (!sub) return { state: 'gone' };
    // A ping goes out whatever the status (contract §26): it tells whether a disabled one's receiver is back.
    if (sub.status !== 'active' && !sub.ping) return { state: 'disabled' };
    const now = deps.now();
    if (sub.leaseUntil > now) return { state: 'busy' };
    if (now + LEASE_MS > deadline) return { state: 'out-of-time' };
    if (sub.ping) {
      const pinged = await sendPing(sub, sub.ping, now, deps, logs);
      if (!pinged) return { state: 'busy' };
      sub = pinged;
      continue;
    }
    if (sub.nextAttemptAt > now) return { state: 'waiting', dueAt: sub.nextAttemptAt };

    if (page.length === 0) {
      const read = await changeSource().readAfter(businessId, sub.cursor, PAGE);
      page = read.entries.map((entry, i) => ({ entry, key: read.keys[i] ?? entry.cursor }));
    }
    // Its creating token's rights at delivery time (a subscription created without a token: every right).
    const rights =
      page.length === 0 || sub.tokenHash === undefined ? undefined : await rightsOfToken(sub.tokenHash, now);
    if (rights === 'revoked') return disableRevoked(sub, now);
    const at = page.findIndex(
      (e) =>
        wants(sub?.types ?? null, e.entry.type) &&
        (rights === undefined || readsEntry(rights, e.entry.type, e.entry.data)),
    );
    const next = page[at];
    if (!next) {
      const last = page.at(-1)?.entry;
      // Nothing wanted in this page: move past it (conditional, like every move) and look again.
      if (!last) return { state: 'idle' };
      if (!(await skipTo(sub, last.cursor))) return { state: 'busy' };
      sub = { ...sub, cursor: last.cursor, version: sub.version + 1 };
      page = [];
      continue;
    }
    const skippedTo = page[at - 1]?.entry.cursor ?? sub.cursor;
    const seq = await leaseAttempt(sub, now, skippedTo);
    if (seq === undefined) return { state: 'busy' };
    const leased = { ...sub, cursor: skippedTo };

    const body = rights === undefined ? next.entry : projectFeedEntry(rights, next.entry);
    const outcome = await deps.send(leased, body, await secretOf(sub), next.key);
    const done = deps.now();
    const after = afterAttempt(leased, next.entry.cursor, outcome, done, deps.retryDelays);
    logs.add(logAttempt(leased, seq, next.entry, next.key, leased.attempts + 1, outcome, now, done));
    const recorded = await recordAttempt(leased, sub.version + 1, after);
    if (!recorded) return { state: 'gone' };
    // A ping asked for while this attempt was out goes next, whatever this attempt left (the loop sends it).
    if (!recorded.ping && after.status === 'disabled') return { state: 'disabled' };
    if (!recorded.ping && !outcome.ok) return { state: 'retry-scheduled', dueAt: after.nextAttemptAt };
    sub = {
      ...leased,
      ...after,
      version: sub.version + 2,
      leaseUntil: 0,
      logN: seq,
      logDay: dayOf(now),
      ping: recorded.ping,
    };
    if (outcome.ok) page = page.slice(at + 1);
  }
}

/**
 * A subscription whose creating token is revoked or expired: disabled (`token_revoked`), it receives nothing more.
 * No attempt was made, so none is logged (the lease keeps the log's number and day).
 */
async function disableRevoked(sub: StoredSubscription, now: number): Promise<PumpResult> {
  const unchanged = { seq: sub.logN, day: sub.logDay ?? dayOf(now) };
  if (!(await claimLease(sub, now + LEASE_MS, sub.cursor, unchanged))) return { state: 'busy' };
  const ended = { ...sub, status: 'disabled' as const, nextAttemptAt: 0, lastDeliveryError: TOKEN_REVOKED };
  await recordAttempt(sub, sub.version + 1, ended);
  return { state: 'disabled' };
}

/**
 * Takes the delivery lease with the attempt's number in the delivery log (the
 * next of the subscription's sequence) and marks it when it is the day's first.
 * Undefined: another run moved the subscription, or it was deleted.
 */
async function leaseAttempt(sub: StoredSubscription, now: number, cursor: string | null): Promise<number | undefined> {
  const seq = sub.logN + 1;
  const day = dayOf(now);
  const [leased] = await Promise.all([
    claimLease(sub, now + LEASE_MS, cursor, { seq, day }),
    sub.logDay === day ? undefined : markDeliveryDay(sub, day, seq, now),
  ]);
  return leased ? seq : undefined;
}

/** The attempt as the delivery log keeps it (contract §26): what, when, how it ended; no body. */
const logAttempt = (
  sub: StoredSubscription,
  seq: number,
  entry: DeliveredEntry,
  entryKey: string,
  attempt: number,
  outcome: DeliveryOutcome,
  startedAt: number,
  endedAt: number,
): Record<string, unknown> =>
  deliveryLogItem(sub, seq, {
    webhook_id: webhookIdOf(sub.id, entryKey),
    cursor: entry.cursor,
    type: entry.type,
    attempt,
    attempted_at: new Date(startedAt).toISOString(),
    result: resultOf(outcome),
    duration_ms: Math.max(0, endedAt - startedAt),
  });

/**
 * One attempt of a pending ping through the subscription's lane: under the
 * lease, signed like every delivery, logged, never retried; the subscription's
 * cursor, retry state and `last_delivery_error` stay as they were. The
 * subscription as this run now knows it, or undefined when another run moved it.
 */
async function sendPing(
  sub: StoredSubscription,
  ping: PendingPing,
  now: number,
  deps: DispatchDeps,
  logs: LogWrites,
): Promise<StoredSubscription | undefined> {
  const seq = await leaseAttempt(sub, now, sub.cursor);
  if (seq === undefined) return undefined;
  const entry = pingEntry(sub.id, sub.cursor, ping);
  const outcome = await deps.send(sub, entry, await secretOf(sub), pingKey(ping));
  logs.add(logAttempt(sub, seq, entry, pingKey(ping), 1, outcome, now, deps.now()));
  const recorded = await recordPing(sub, sub.version + 1, ping.id);
  if (!recorded) return undefined;
  return { ...sub, ping: recorded.ping, version: sub.version + 2, leaseUntil: 0, logN: seq, logDay: dayOf(now) };
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
export type CaughtUpMemory = Map<string, string>;

/** What "caught up" is remembered at: the feed end and where the subscription sorts in `due` (moved by a resume or a ping). */
const caughtUpAt = (end: string | null, dueAt: number): string => `${end ?? ''}@${dueAt}`;

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
  const dueAt = new Map(due.map((d) => [refKey(d), d.dueAt]));
  for (const key of memory.keys()) if (!dueAt.has(key)) memory.delete(key);
  const byBusiness = new Map<string, string[]>();
  for (const d of due) byBusiness.set(d.businessId, [...(byBusiness.get(d.businessId) ?? []), d.id]);

  const work: SubscriptionRef[] = [];
  const failures: unknown[] = [];
  await eachAtMost(POLL_CONCURRENCY, [...byBusiness], async ([businessId, ids]) => {
    try {
      const end = await changeSource().end(businessId);
      const at = (id: string): string => caughtUpAt(end, dueAt.get(refKey({ businessId, id })) ?? 0);
      const unknown = ids.filter((id) => memory.get(refKey({ businessId, id })) !== at(id));
      if (unknown.length === 0) return;
      const subs = await readSubscriptionsById(businessId, unknown);
      for (const sub of subs) {
        if (!sub) continue;
        if (sub.ping) work.push({ businessId, id: sub.id });
        else if (sub.status !== 'active') continue;
        else if (sub.cursor === end) memory.set(refKey(sub), at(sub.id));
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

/**
 * Webhook subscriptions as consumers of the change feed (contract §14): the
 * retry schedule and the delivery state machine. No I/O here; the dispatcher
 * (src/services/webhook-dispatcher.ts) reads, calls these and writes the
 * result with conditional writes. The URL and address policy is apart
 * (src/domain/webhook-urls.ts): only the create and the delivery load it.
 */

/** Contract §14: delays before retry 1..7 after the first attempt, in seconds. */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** A 2xx must arrive within this; anything slower counts as a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The most of a receiver's answer body that is read; the rest is never read (the connection is closed). */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** Contract §14: subscriptions per business; the next create answers 422. */
export const MAX_SUBSCRIPTIONS_PER_BUSINESS = 20;

/**
 * `WEBHOOK_RETRY_DELAYS` (comma-separated seconds, n delays = n retries);
 * empty/absent = the default schedule. A malformed value fails loudly at start.
 */
export function parseRetryDelays(raw: string | undefined): readonly number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_DELAYS_SECONDS;
  const delays = raw.split(',').map((part) => part.trim());
  if (!delays.every((d) => /^\d+(\.\d+)?$/.test(d)))
    throw new Error(`WEBHOOK_RETRY_DELAYS must be comma-separated seconds, got ${JSON.stringify(raw)}`);
  return delays.map(Number);
}

export type SubscriptionStatus = 'active' | 'disabled';

/** The part of a subscription the dispatcher moves. */
export interface DeliveryState {
  readonly status: SubscriptionStatus;
  /** Cursor of the last entry delivered (or skipped); null = before the first retained entry. */
  readonly cursor: string | null;
  /** Failed attempts of the entry after `cursor`. */
  readonly attempts: number;
  /** Epoch ms before which the next attempt must not start (0 = now). */
  readonly nextAttemptAt: number;
  readonly lastDeliveryError: string | null;
}

/** A 2xx (`status`) in time, or why not (`HTTP <status>`, `timeout`, `connection failed`). */
export type DeliveryOutcome =
  { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

/**
 * The state after one delivery attempt of the entry with `entryCursor`:
 * success moves the cursor on; a failure schedules the next retry or, after
 * the last one, disables the subscription.
 */
export function afterAttempt(
  state: DeliveryState,
  entryCursor: string,
  outcome: DeliveryOutcome,
  now: number,
  delaysSeconds: readonly number[],
): DeliveryState {
  if (outcome.ok) return { ...state, cursor: entryCursor, attempts: 0, nextAttemptAt: 0 };
  const attempts = state.attempts + 1;
  const delay = delaysSeconds[attempts - 1];
  if (delay === undefined) {
    return { ...state, status: 'disabled', attempts, nextAttemptAt: 0, lastDeliveryError: outcome.error };
  }
  return { ...state, attempts, nextAttemptAt: now + Math.round(delay * 1000), lastDeliveryError: outcome.error };
}

/** An entry the subscription does not want is passed over without a delivery. */
export const wants = (types: readonly string[] | null, type: string): boolean => types === null || types.includes(type);

/**
 * `webhook-id`: the same for every attempt of one entry to one subscription,
 * different across subscriptions (Standard Webhooks: the idempotency key).
 * Built from the entry's key (its place in the feed, ChangeSource), not its
 * cursor: a cursor also carries the other lanes' positions, which depend on
 * where the reading started, so an entry resumed or replayed from another
 * cursor (contract §26) would otherwise arrive under another id.
 */
export const webhookIdOf = (subscriptionId: string, entryKey: string): string => `msg_${subscriptionId}_${entryKey}`;

/** Contract §26: the one entry `POST /webhook_subscriptions/{id}/ping` delivers, whatever the subscription's types. */
export const PING_TYPE = 'webhook.ping';

/** A ping asked for and not yet attempted: its id and when it was asked for (ISO). */
export interface PendingPing {
  readonly id: string;
  readonly at: string;
}

/** The ping as delivered: an entry of the feed's shape, at the subscription's cursor (a receiver may store it). */
export const pingEntry = (
  subscriptionId: string,
  cursor: string | null,
  ping: PendingPing,
): { cursor: string | null; type: string; id: string; occurred_at: string; data: { subscription_id: string } } => ({
  cursor,
  type: PING_TYPE,
  id: ping.id,
  occurred_at: ping.at,
  data: { subscription_id: subscriptionId },
});

/** A ping's key in place of a feed entry's: its own id, never a feed position. */
export const pingKey = (ping: PendingPing): string => ping.id;

/**
 * `last_delivery_error` is one of three texts and nothing more (contract §14): a
 * refused address, a closed port and an unknown host all read `connection
 * failed`, so the field cannot be used to probe a network.
 */
export const httpFailure = (status: number): string => `HTTP ${status}`;

/** The delivery log's `result` of an attempt (contract §26): `HTTP <status>` for any answer, else the failure. */
export const resultOf = (outcome: DeliveryOutcome): string =>
  outcome.ok ? httpFailure(outcome.status) : outcome.error;
export const TIMEOUT = 'timeout';
export const CONNECTION_FAILED = 'connection failed';

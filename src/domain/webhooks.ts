/**
 * Webhook subscriptions as consumers of the change feed (contract §14): the
 * retry schedule, the delivery state machine and the URL/address policy. No
 * I/O here; the dispatcher (src/services/webhook-dispatcher.ts) reads, calls
 * these and writes the result with conditional writes.
 */
import ipaddr from 'ipaddr.js';

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

export type DeliveryOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

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
 */
export const webhookIdOf = (subscriptionId: string, entryCursor: string): string =>
  `msg_${subscriptionId}_${entryCursor}`;

/**
 * `last_delivery_error` is one of three texts and nothing more (contract §14): a
 * refused address, a closed port and an unknown host all read `connection
 * failed`, so the field cannot be used to probe a network.
 */
export const httpFailure = (status: number): string => `HTTP ${status}`;
export const TIMEOUT = 'timeout';
export const CONNECTION_FAILED = 'connection failed';

// ---------------------------------------------------------------------------
// URL and address policy (SSRF)
// ---------------------------------------------------------------------------

export interface UrlPolicy {
  /** The local server (`npm start`): loopback http targets are allowed too. */
  readonly local: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The syntactic check of a subscription URL: https (or, locally, http to a
 * loopback host), no credentials. Returns the host to resolve, or null when
 * the URL is not allowed.
 */
export function urlTarget(raw: string, policy: UrlPolicy): { host: string } | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  const host = url.hostname;
  if (url.protocol === 'https:') return { host };
  if (url.protocol === 'http:' && policy.local && LOOPBACK_HOSTS.has(host)) return { host };
  return null;
}

/**
 * IPv6 prefixes that carry an IPv4 address for a translator or tunnel to reach
 * (IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and the
 * local-use 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32): refused whole,
 * whatever IPv4 address they embed, because where they lead is decided by a
 * gateway this service cannot check. Listed here rather than left to ipaddr.js's
 * range names, which do not cover ::/96.
 */
const TRANSLATED_PREFIXES = [
  '::/96',
  '::ffff:0:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2002::/16',
  '2001::/32',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * An IPv6 text as the WHATWG URL parser writes it (hex groups, compressed,
 * lower case), so every spelling is judged by its one meaning: ipaddr.js alone
 * reads the IPv4-compatible `::a.b.c.d` as the mapped `::ffff:a.b.c.d`.
 * IPv4 text is left as is; undefined when it is no address.
 */
function canonicalAddress(address: string): string | undefined {
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/**
 * Whether an address may receive deliveries: public unicast only (ipaddr.js
 * ranges: private, loopback, link-local incl. 169.254.169.254, unique-local incl.
 * fd00:ec2::254, multicast, carrier-grade NAT, reserved and unspecified are
 * refused, and so is every IPv4-in-IPv6 translation form above); locally,
 * loopback too. An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 address it
 * carries (a socket connects to that), so it is judged as that address. The
 * delivery agent applies this same function at connect time
 * (src/services/webhook-delivery.ts).
 */
export function isAllowedAddress(address: string, policy: UrlPolicy): boolean {
  const canonical = canonicalAddress(address);
  if (canonical === undefined || !ipaddr.isValid(canonical)) return false;
  const parsed = ipaddr.process(canonical);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (policy.local && v6.range() === 'loopback') return true;
    if (TRANSLATED_PREFIXES.some((cidr) => v6.match(cidr))) return false;
  }
  const range = parsed.range();
  if (range === 'unicast') return true;
  return policy.local && range === 'loopback';
}

/**
 * The local exception for request-filtering-agent: the two loopback addresses the
 * contract's local hosts resolve to (exact addresses: its CIDR matching warns
 * across IPv4/IPv6).
 */
export const agentAllowList = (policy: UrlPolicy): string[] => (policy.local ? ['127.0.0.1', '::1'] : []);

/**
 * Rate limits (contract §18): N requests per W seconds, counted in a sliding
 * window of time slices. Pure arithmetic; src/data/rate-counts.ts keeps the
 * slices of each token and business and syncs them with DynamoDB.
 *
 * A slice is W·50 ms long (a window spans 20 slices, 21 partly): a count is
 * the sum of every slice that overlaps the window, so a count never misses a
 * request still inside the window (the 1.1·N + 5 bound holds however requests
 * bunch) and counts at most one slice too long, W/20: a token sending at twice
 * its limit is admitted N·W/(W + W/20) ≈ 0.95·N per window, one sending at
 * 80 % counts at most 0.84·N and is never refused.
 */

/** N requests per W seconds. */
export interface RatePolicy {
  readonly requests: number;
  readonly windowSeconds: number;
}

export const RATE_LIMIT_BOUNDS = {
  requests: { min: 1, max: 100_000 },
  windowSeconds: { min: 1, max: 3600 },
} as const;

/** A token's limit when neither the token nor its business sets one. */
export const DEFAULT_TOKEN_RATE_LIMIT: RatePolicy = { requests: 600, windowSeconds: 60 };
/** A business's limit over all its tokens when its fixture sets none. */
export const DEFAULT_BUSINESS_RATE_LIMIT: RatePolicy = { requests: 3000, windowSeconds: 60 };

const within = (value: number, range: { min: number; max: number }): boolean =>
  Number.isInteger(value) && value >= range.min && value <= range.max;

export const isValidRatePolicy = (p: RatePolicy): boolean =>
  within(p.requests, RATE_LIMIT_BOUNDS.requests) && within(p.windowSeconds, RATE_LIMIT_BOUNDS.windowSeconds);

/** `N/W` as `--rate-limit` takes it, or one line saying what is wrong. */
export function parseRatePolicy(text: string): RatePolicy | string {
  const m = /^(\d{1,7})\/(\d{1,5})$/.exec(text.trim());
  const { requests: n, windowSeconds: w } = RATE_LIMIT_BOUNDS;
  const expected = `N/W: N requests (${n.min}..${n.max}) per W seconds (${w.min}..${w.max}), e.g. 600/60`;
  if (!m) return `expected ${expected}, got ${JSON.stringify(text)}`;
  const policy = { requests: Number(m[1]), windowSeconds: Number(m[2]) };
  return isValidRatePolicy(policy) ? policy : `out of range: expected ${expected}, got ${text}`;
}

/** Request counts by slice start (epoch ms). */
export type Slices = ReadonlyMap<number, number>;

export const sliceMsOf = (policy: RatePolicy): number => policy.windowSeconds * 50;

/** The slice a request at `nowMs` is counted in. */
export const sliceStartOf = (policy: RatePolicy, nowMs: number): number =>
  Math.floor(nowMs / sliceMsOf(policy)) * sliceMsOf(policy);

/** Whether the slice starting at `start` still overlaps the window ending at `nowMs`. */
const inWindow = (policy: RatePolicy, start: number, nowMs: number): boolean =>
  start + sliceMsOf(policy) > nowMs - policy.windowSeconds * 1000;

/** Requests counted in the window that ends at `nowMs`. */
export function countInWindow(slices: Iterable<readonly [number, number]>, policy: RatePolicy, nowMs: number): number {
  let count = 0;
  for (const [start, n] of slices) if (inWindow(policy, start, nowMs)) count += n;
  return count;
}

/** Slices no window from `nowMs` on will count: what a sync may remove. */
export const staleSlices = (slices: Iterable<readonly [number, number]>, policy: RatePolicy, nowMs: number): number[] =>
  [...slices].filter(([start]) => !inWindow(policy, start, nowMs)).map(([start]) => start);

/** Milliseconds until the count falls below `below` as slices leave the window (0: it is below already). */
export function msUntilBelow(
  slices: Iterable<readonly [number, number]>,
  policy: RatePolicy,
  nowMs: number,
  below: number,
): number {
  if (below <= 0) return Infinity;
  const counted = [...slices].filter(([start]) => inWindow(policy, start, nowMs)).sort(([a], [b]) => a - b);
  let count = counted.reduce((sum, [, n]) => sum + n, 0);
  for (const [start, n] of counted) {
    if (count < below) break;
    count -= n;
    if (count < below) return start + sliceMsOf(policy) + policy.windowSeconds * 1000 - nowMs;
  }
  return 0;
}

/** One policy's state as the RateLimit fields report it. */
export interface PolicyState {
  readonly policy: RatePolicy;
  /** Requests left in the current window. */
  readonly remaining: number;
  /** Whole seconds until the window frees capacity (the next request is admitted when remaining is 0). */
  readonly resetSeconds: number;
}

/** The standing of `policy` for `counted` slices plus `expected` requests not in them. */
function standingOf(counted: Slices, expected: number, cap: number, policy: RatePolicy, nowMs: number): PolicyState {
  const count = countInWindow(counted, policy, nowMs);
  const remaining = Math.max(0, Math.min(policy.requests - count - expected, cap));
  // Until the oldest counted request leaves the window (0: nothing counted); refused: until one more fits.
  const ms =
    remaining > 0
      ? count === 0
        ? 0
        : msUntilBelow(counted, policy, nowMs, count)
      : msUntilBelow(counted, policy, nowMs, Math.min(policy.requests - expected, count));
  const resetSeconds = Math.ceil(Math.min(ms, policy.windowSeconds * 1000 + sliceMsOf(policy)) / 1000);
  return { policy, remaining, resetSeconds: remaining > 0 ? resetSeconds : Math.max(1, resetSeconds) };
}

/** The state of `policy` for `slices` at `nowMs`, counted by one instance alone. */
export const policyState = (slices: Slices, policy: RatePolicy, nowMs: number): PolicyState =>
  standingOf(slices, 0, Infinity, policy, nowMs);

/** The tuning of {@link InstanceCounts} (docs/rate-limits.md; chosen with test/unit/rate-instances.test.ts). */
export const SHARING = {
  /** An instance sends its counts at most this often (contract §18: one call per second). */
  syncIntervalMs: 1000,
  /** How far back a sync's answer is read for the other instances' rate. */
  rateLookbackMs: 2000,
  /** The longest a view's age is extrapolated with the others' rate. */
  unseenHorizonMs: 1500,
  /** Instances that synced this long before an answer count as sharing the subject. */
  activeMs: 3000,
  /**
   * Traffic that began this recently (the others' counts of its first second are mostly not sent yet): the others'
   * rate is guessed from this instance's own too, when k instances at that rate would be this much over the limit.
   */
  youngMs: 2500,
  youngOverLimit: 1.3,
  /**
   * An instance that refused this many requests within `saturatedMs` admits at most its share of what its view
   * shows free, until it has not for that long (one refusal may be the noise of a token near its limit).
   */
  saturatedAfter: 3,
  saturatedMs: 3000,
} as const;

const addTo = (map: Map<number, number>, start: number, n: number): void => {
  const left = (map.get(start) ?? 0) + n;
  if (left > 0) map.set(start, left);
  else map.delete(start);
};

/**
 * One instance's counts of one subject (a token, a business) when several
 * instances count it (docs/rate-limits.md): what DynamoDB last answered
 * (every instance's counts), what this instance admitted since, and what it
 * expects the others admitted that the answer does not show yet. Pure: the
 * caller (src/data/rate-counts.ts) sends the counts and hands back the answers.
 *
 * - Unseen: the others' admissions per ms (from the growth of their counts,
 *   and while the traffic is young and looks well over the limit, from this
 *   instance's own rate times the other instances known) times the age of the
 *   view.
 * - Saturated (this instance refused a few requests lately): it admits at most its share
 *   (1 / the instances that synced lately) of what its view shows free less
 *   what the others had admitted unseen at its previous answer (`lag`): when
 *   old requests leave the window, all instances see the same capacity free
 *   at once, and each takes its part of it, not all of it.
 */
export class InstanceCounts {
  /** Every instance's counts as DynamoDB last answered (this instance's sent counts included). */
  synced = new Map<number, number>();
  /** Admitted here and sent, not answered yet. */
  sending = new Map<number, number>();
  /** Admitted here, not sent yet. */
  pending = new Map<number, number>();
  lastSyncAt = -Infinity;
  /** What this instance itself added to `synced`: the rest is the other instances'. */
  private ownSynced = new Map<number, number>();
  /** The other instances' counts at the last answer, and when it came. */
  private othersBefore = new Map<number, number>();
  private answeredAt: number | undefined;
  /** Requests the other instances admitted per ms lately. */
  private othersRate = 0;
  /** What the others had admitted and not sent at the previous answer (seen in hindsight at the last). */
  private lag = 0;
  /** 1 / the instances that synced this subject lately. */
  private share = 1;
  /** The last refusals (at most SHARING.saturatedAfter), oldest first. */
  private refusals: number[] = [];

  /** Counts one admitted request in the slice starting at `start`. */
  count(start: number): void {
    addTo(this.pending, start, 1);
  }

  /** Remembers a refusal: after a few, for a while, the instance admits only its share of what frees. */
  refused(nowMs: number): void {
    this.refusals.push(nowMs);
    if (this.refusals.length > SHARING.saturatedAfter) this.refusals.shift();
  }

  private saturated(nowMs: number): boolean {
    return this.refusals.length === SHARING.saturatedAfter && nowMs - this.refusals[0]! < SHARING.saturatedMs;
  }

  /** Admitted here since the view DynamoDB last answered. */
  private own(): Map<number, number> {
    return mergeSlices(this.sending, this.pending);
  }

  /** Others' requests this instance expects the view does not show yet. */
  private unseen(nowMs: number): number {
    if (this.othersRate === 0) return 0;
    // Since its last sync, plus half a sync interval the others had not sent yet, on average; capped: an
    // instance that refuses (and so does not sync) must not refuse for ever on a rate it measured long ago.
    const age = Math.min(Math.max(0, nowMs - this.lastSyncAt) + SHARING.syncIntervalMs / 2, SHARING.unseenHorizonMs);
    return this.othersRate * age;
  }

  standing(policy: RatePolicy, nowMs: number): PolicyState {
    const own = this.own();
    let cap = Infinity;
    if (this.saturated(nowMs)) {
      const free = policy.requests - countInWindow(this.synced, policy, nowMs) - this.lag;
      cap = Math.ceil(this.share * free) - countInWindow(own, policy, nowMs);
    }
    return standingOf(mergeSlices(this.synced, own), Math.round(this.unseen(nowMs)), cap, policy, nowMs);
  }

  /** A sync goes out now: the unsent counts it carries (now in `sending`). */
  beginSync(nowMs: number): Map<number, number> {
    const sent = this.pending;
    this.pending = new Map();
    for (const [start, n] of sent) addTo(this.sending, start, n);
    this.lastSyncAt = nowMs;
    return sent;
  }

  /** The sync failed or its outcome is unknown: its counts go with the next. */
  syncFailed(sent: Slices): void {
    for (const [start, n] of sent) {
      addTo(this.sending, start, -n);
      addTo(this.pending, start, n);
    }
  }

  /**
   * DynamoDB answered the sync that carried `sent`: `slices` are every
   * instance's counts, `instances` how many synced this subject within
   * SHARING.activeMs (this one included).
   */
  syncAnswered(sent: Slices, slices: Map<number, number>, instances: number, policy: RatePolicy, nowMs: number): void {
    for (const [start, n] of sent) {
      addTo(this.sending, start, -n);
      addTo(this.ownSynced, start, n);
    }
    // Kept while an answer may still hold them (else they would read as the others'): a window and the lookback.
    const kept = nowMs - Math.max(policy.windowSeconds * 1000, SHARING.rateLookbackMs) - 2 * SHARING.syncIntervalMs;
    for (const start of this.ownSynced.keys()) if (start < kept) this.ownSynced.delete(start);
    this.synced = slices;
    this.share = 1 / Math.max(1, instances);
    const others = new Map<number, number>();
    for (const [start, n] of slices) {
      const theirs = n - (this.ownSynced.get(start) ?? 0);
      if (theirs > 0) others.set(start, theirs);
    }
    this.lag = 0;
    if (this.answeredAt !== undefined)
      for (const [start, n] of others)
        if (start < this.answeredAt) this.lag += Math.max(0, n - (this.othersBefore.get(start) ?? 0));
    this.othersBefore = others;
    this.answeredAt = nowMs;
    this.othersRate = this.rateOf(others, policy, nowMs);
  }

  /**
   * The other instances' admissions per ms lately: what the recent slices hold
   * beyond this instance's own (a few slices at least, so a long window's
   * coarse slices still give a rate); while the traffic is young (the others'
   * counts of its first second are mostly not sent yet), at least this
   * instance's own rate times the other instances.
   */
  private rateOf(others: Map<number, number>, policy: RatePolicy, nowMs: number): number {
    let lookback = Math.max(SHARING.rateLookbackMs, 2 * sliceMsOf(policy));
    let theirs = 0;
    let first = nowMs;
    for (const start of this.synced.keys()) {
      first = Math.min(first, start);
      if (start >= nowMs - lookback) theirs += others.get(start) ?? 0;
    }
    // Traffic that began within the lookback: its rate over the time it has run, not over the whole lookback.
    lookback = Math.min(lookback, Math.max(nowMs - first, sliceMsOf(policy), 250));
    let rate = theirs / lookback;
    if (nowMs - first < SHARING.youngMs && this.share < 1) {
      const since = Math.max(first, nowMs - SHARING.rateLookbackMs);
      let mine = 0;
      for (const [start, n] of mergeSlices(this.ownSynced, this.own())) if (start >= since) mine += n;
      const instances = 1 / this.share;
      const mineRate = mine / Math.max(nowMs - since, 250);
      // From a few requests on (one or two say little of a rate), and only when k instances at this instance's
      // rate would be well over the limit: spread at random, one instance's rate over a second or two is noisy,
      // and a token near its limit must not be refused for it.
      const overLimit = (instances * mineRate * policy.windowSeconds * 1000) / policy.requests;
      if (mine >= 3 && overLimit >= SHARING.youngOverLimit) rate = Math.max(rate, (instances - 1) * mineRate);
    }
    return rate;
  }
}

/** The request is admitted while fewer than N are counted. */
export const admits = (state: PolicyState): boolean => state.remaining > 0;

/** Merges slice counts (several sources of one subject's counts). */
export function mergeSlices(...sources: Slices[]): Map<number, number> {
  const merged = new Map<number, number>();
  for (const source of sources) for (const [start, n] of source) merged.set(start, (merged.get(start) ?? 0) + n);
  return merged;
}

/**
 * Rate limits (contract §18): N requests per W seconds in a sliding window of time slices, W/20 long and at most 1
 * s. Pure; src/data/rate-counts.ts syncs the counts with DynamoDB. A count sums every slice overlapping the window:
 * it never misses a request still inside it (the bound holds however requests bunch) and holds one at most a slice
 * longer than W (Retry-After ≤ W + 1); a token at twice its limit gets ≥ N·W/(W + W/20) ≈ 0.95·N per window, one at
 * 80 % counts at most 0.84·N and is never refused.
 */

/** N requests per W seconds. */
export type RatePolicy = { readonly requests: number; readonly windowSeconds: number };

/** Windows of at least 10 s: shorter ones cannot be counted across instances that sync once a second. */
export const RATE_LIMIT_BOUNDS = { requests: { min: 1, max: 100_000 }, windowSeconds: { min: 10, max: 3600 } } as const;
/** A token's limit when neither the token nor its business sets one. */
export const DEFAULT_TOKEN_RATE_LIMIT: RatePolicy = { requests: 600, windowSeconds: 60 };
/** A business's limit over all its tokens when its fixture sets none. */
export const DEFAULT_BUSINESS_RATE_LIMIT: RatePolicy = { requests: 3000, windowSeconds: 60 };
/** Each instance sends its counts of a token (or business) at most this often (contract §18). */
export const SYNC_INTERVAL_MS = 1000;

const within = (value: number, { min, max }: { min: number; max: number }): boolean =>
  Number.isInteger(value) && value >= min && value <= max;
export const isValidRatePolicy = (p: RatePolicy): boolean =>
  within(p.requests, RATE_LIMIT_BOUNDS.requests) && within(p.windowSeconds, RATE_LIMIT_BOUNDS.windowSeconds);

/** Request counts by slice start (epoch ms). */
export type Slices = ReadonlyMap<number, number>;
export const sliceMsOf = (policy: RatePolicy): number => Math.min(policy.windowSeconds * 50, 1000);
/** The shortest slice of any window: what a request is counted in while its limit is not known yet. */
export const FINEST_SLICE_MS = sliceMsOf({ requests: 1, windowSeconds: RATE_LIMIT_BOUNDS.windowSeconds.min });
/** The slice a request at `nowMs` is counted in. */
export const sliceStartOf = (sliceMs: number, nowMs: number): number => Math.floor(nowMs / sliceMs) * sliceMs;

/**
 * Whether a slice starting at `start` overlaps the window ending at `nowMs` (a finer one: held longer, never less),
 * for the slices of one policy at one instant. Every request walks its subjects' slices (a window of W seconds holds
 * up to W of them, at least 20), so the slice length and the window's start are taken once, not per slice.
 */
function windowAt(policy: RatePolicy, nowMs: number): (start: number) => boolean {
  const sliceMs = sliceMsOf(policy);
  const since = nowMs - policy.windowSeconds * 1000;
  return (start) => start + sliceMs > since;
}

/** Requests counted in the window that ends at `nowMs`. */
export function countInWindow(slices: Slices, policy: RatePolicy, nowMs: number): number {
  const counts = windowAt(policy, nowMs);
  let sum = 0;
  for (const [start, n] of slices) if (counts(start)) sum += n;
  return sum;
}
/** Slices no window from `nowMs` on will count: what a sync may remove. */
export function staleSlices(slices: Slices, policy: RatePolicy, nowMs: number): number[] {
  const counts = windowAt(policy, nowMs);
  const stale: number[] = [];
  for (const start of slices.keys()) if (!counts(start)) stale.push(start);
  return stale;
}

/** One policy's standing (the RateLimit fields): requests left, ms until the window frees capacity. */
export type PolicyState = { readonly policy: RatePolicy; readonly remaining: number; readonly resetMs: number };

/** The standing of `policy` for the counts `slices` at `nowMs`. */
export function policyState(slices: Slices, policy: RatePolicy, nowMs: number): PolicyState {
  const counts = windowAt(policy, nowMs);
  const counted: [number, number][] = [];
  let count = 0;
  let oldest = Infinity;
  for (const entry of slices) {
    if (!counts(entry[0])) continue;
    counted.push(entry);
    count += entry[1];
    oldest = Math.min(oldest, entry[0]);
  }
  const remaining = Math.max(0, policy.requests - count);
  const sliceMs = sliceMsOf(policy);
  const heldUntil = (start: number): number =>
    // A slice from an instance whose clock runs ahead is held no longer than one of this instant.
    Math.min(start + sliceMs, nowMs + sliceMs) + policy.windowSeconds * 1000 - nowMs;
  if (count === 0) return { policy, remaining, resetMs: 0 };
  // Capacity left: until the oldest counted request leaves. None: until enough of the oldest have left.
  if (remaining > 0) return { policy, remaining, resetMs: heldUntil(oldest) };
  counted.sort(([a], [b]) => a - b);
  let left = count;
  const [binding] = counted.find(([, n]) => (left -= n) < policy.requests)!;
  return { policy, remaining, resetMs: heldUntil(binding) };
}

/** The `t` of the RateLimit field: whole seconds, never more than the window. */
export const resetSeconds = (state: PolicyState): number =>
  Math.min(Math.ceil(state.resetMs / 1000), state.policy.windowSeconds);
/** Retry-After of a refusal: whole seconds until the window admits again, at least 1 (at most W + 1). */
export const retryAfterSeconds = (state: PolicyState): number => Math.max(1, Math.ceil(state.resetMs / 1000));

const addTo = (map: Map<number, number>, start: number, n: number): void => {
  const left = (map.get(start) ?? 0) + n;
  void (left > 0 ? map.set(start, left) : map.delete(start));
};

/**
 * A sync as it goes out: one UpdateItem that sets its instance's mark on the item to `seq` (a tag increasing per
 * instance), applied only where that mark is older than `since` (the oldest tag whose counts `slices` carries). A
 * sync sent again after its answer was lost, or landing after a later one carried its counts, adds nothing: every
 * request is counted once however a sync fails.
 */
export interface Sync {
  readonly seq: number;
  readonly since: number;
  readonly slices: Slices;
}

/**
 * The marks (attribute -> tag) a sync may remove: of instances silent for a window and a minute (for clocks that
 * differ), whose resends could only carry slices no window counts.
 */
export const staleMarks = (marks: ReadonlyMap<string, number>, policy: RatePolicy, nowMs: number): string[] =>
  [...marks].filter(([, seq]) => seq + policy.windowSeconds * 1000 + 60_000 < nowMs).map(([name]) => name);

/** Syncs kept apart while in doubt; beyond, the two oldest merge (a count may then land twice: toward refusing). */
export const MAX_IN_DOUBT = 16;

/**
 * One instance's counts of one subject (a token, a business): every instance's counts as DynamoDB last answered,
 * plus what this instance admitted that no answer shows yet. Another instance's admissions reach this view within
 * about two seconds; so that each admits at most one second of the limit's rate meanwhile (the contract's (k −
 * 1)·⌈N/W⌉), an instance whose last answer shows others' counts holds at most ⌈N/W⌉ unanswered admissions.
 */
export class Counts {
  /** Every instance's counts as DynamoDB last answered. */
  synced: Slices = new Map();
  /** This instance's among them: the rest are the other instances'. */
  private readonly ownSynced = new Map<number, number>();
  /** Admitted here, in no answer yet. */
  private readonly unanswered = new Map<number, number>();
  /** Admitted here, not sent yet. */
  private pending = new Map<number, number>();
  /** Sent by syncs not answered (oldest first): maybe stored, maybe not; carried by the next sync under their tags. */
  private readonly inDoubt: { seq: number; slices: Map<number, number> }[] = [];
  lastSyncAt = -Infinity;

  /** Counts one admitted request in the slice starting at `start`. */
  count(start: number): void {
    addTo(this.pending, start, 1);
    addTo(this.unanswered, start, 1);
  }

  /** The standing of `policy`; beside other instances, none left while ⌈N/W⌉ are unanswered (until the next answer). */
  state(policy: RatePolicy, nowMs: number): PolicyState {
    const all = new Map(this.synced);
    for (const [start, n] of this.unanswered) addTo(all, start, n);
    const state = policyState(all, policy, nowMs);
    if (state.remaining === 0) return state;
    const alone = countInWindow(this.synced, policy, nowMs) <= countInWindow(this.ownSynced, policy, nowMs);
    if (alone) return state;
    const paced = Math.ceil(policy.requests / policy.windowSeconds) - countInWindow(this.unanswered, policy, nowMs);
    if (paced >= state.remaining) return state;
    if (paced > 0) return { ...state, remaining: paced };
    return { policy, remaining: 0, resetMs: Math.max(0, this.lastSyncAt + SYNC_INTERVAL_MS - nowMs) };
  }

  /** Whether counts wait to be sent: admitted since the last sync, or carried by syncs not answered. */
  get unsent(): boolean {
    return this.pending.size > 0 || this.inDoubt.length > 0;
  }
  /** Whether a sync may go out now: counts to send, and none sent within the sync interval. */
  due = (nowMs: number): boolean => this.unsent && nowMs >= this.lastSyncAt + SYNC_INTERVAL_MS;

  /** A sync tagged `seq` goes out with the unsent counts and every sync's in doubt; in doubt itself until answered. */
  beginSync(nowMs: number, seq: number): Sync {
    this.inDoubt.push({ seq, slices: this.pending });
    this.pending = new Map();
    this.lastSyncAt = nowMs;
    if (this.inDoubt.length > MAX_IN_DOUBT) {
      const [older] = this.inDoubt.splice(0, 1);
      for (const [start, n] of older!.slices) addTo(this.inDoubt[0]!.slices, start, n);
    }
    const slices = new Map<number, number>();
    for (const sent of this.inDoubt) for (const [start, n] of sent.slices) addTo(slices, start, n);
    return { seq, since: this.inDoubt[0]!.seq, slices };
  }

  /**
   * The last sync answered with every instance's counts, `slices`, and `landed`, the tag of the last sync stored (its
   * own, or the item's mark if refused): later syncs never will be, and their counts go with the next.
   */
  syncAnswered(sync: Sync, slices: Slices, landed = sync.seq): void {
    for (const sent of this.inDoubt.splice(0))
      for (const [start, n] of sent.slices)
        if (sent.seq <= landed) {
          addTo(this.unanswered, start, -n);
          addTo(this.ownSynced, start, n);
        } else addTo(this.pending, start, n);
    for (const start of this.ownSynced.keys()) if (!slices.has(start)) this.ownSynced.delete(start);
    this.synced = slices;
  }
}

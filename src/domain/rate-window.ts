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

/**
 * One instance's standing when several count one subject (docs/rate-limits.md):
 * `synced` is every instance's count as DynamoDB last answered, `own` what
 * this instance admitted since (not in `synced` yet), `unseen` how many the
 * other instances are expected to have admitted that `synced` does not show
 * yet (their rate since this instance's last sync times how stale its view is).
 */
export function instanceStanding(
  synced: Slices,
  own: Slices,
  policy: RatePolicy,
  unseen: number,
  nowMs: number,
): PolicyState {
  const all = mergeSlices(synced, own);
  const counted = countInWindow(all, policy, nowMs);
  const expected = Math.round(unseen);
  const remaining = Math.max(0, policy.requests - counted - expected);
  // Until the oldest counted request leaves the window (0: nothing counted); refused: until one more fits.
  const ms =
    remaining > 0
      ? counted === 0
        ? 0
        : msUntilBelow(all, policy, nowMs, counted)
      : msUntilBelow(all, policy, nowMs, policy.requests - expected);
  const resetSeconds = Math.ceil(Math.min(ms, policy.windowSeconds * 1000 + sliceMsOf(policy)) / 1000);
  return { policy, remaining, resetSeconds: remaining > 0 ? resetSeconds : Math.max(1, resetSeconds) };
}

/** The state of `policy` for `slices` at `nowMs`, counted by one instance alone. */
export const policyState = (slices: Slices, policy: RatePolicy, nowMs: number): PolicyState =>
  instanceStanding(slices, new Map(), policy, 0, nowMs);

/** The request is admitted while fewer than N are counted. */
export const admits = (state: PolicyState): boolean => state.remaining > 0;

/** Merges slice counts (several sources of one subject's counts). */
export function mergeSlices(...sources: Slices[]): Map<number, number> {
  const merged = new Map<number, number>();
  for (const source of sources) for (const [start, n] of source) merged.set(start, (merged.get(start) ?? 0) + n);
  return merged;
}

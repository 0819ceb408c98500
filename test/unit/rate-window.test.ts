import fc from 'fast-check';
import {
  countInWindow,
  Counts,
  parseRatePolicy,
  policyState,
  resetSeconds,
  retryAfterSeconds,
  sliceMsOf,
  sliceStartOf,
  staleSlices,
  type RatePolicy,
} from '../../src/domain/rate-window';
import { mostInAnyWindow } from '../support/rate-windows';

/** One sender at fixed request times against one counter: which requests are admitted. */
function run(policy: RatePolicy, times: readonly number[]): number[] {
  const slices = new Map<number, number>();
  const admitted: number[] = [];
  for (const t of times) {
    if (!policyState(slices, policy, t).remaining) continue;
    const start = sliceStartOf(sliceMsOf(policy), t);
    // A new slice: those no window counts any more go, as a sync removes them.
    if (!slices.has(start)) for (const stale of staleSlices(slices, policy, t)) slices.delete(stale);
    slices.set(start, (slices.get(start) ?? 0) + 1);
    admitted.push(t);
  }
  return admitted;
}

const steady = (perSecond: number, seconds: number, offsetMs = 0): number[] =>
  Array.from({ length: Math.floor(perSecond * seconds) }, (_, i) => offsetMs + (i * 1000) / perSecond);

const policies = fc.record({
  requests: fc.integer({ min: 1, max: 2000 }),
  windowSeconds: fc.integer({ min: 10, max: 3600 }),
});
/** Windows up to two minutes: a steady sender over three windows of an hour is too many requests for a unit test. */
const shortPolicies = fc.record({
  requests: fc.integer({ min: 1, max: 2000 }),
  windowSeconds: fc.integer({ min: 10, max: 120 }),
});

describe('the sliding window (contract §18)', () => {
  it('admits at most N in any W seconds, however the requests bunch', () => {
    fc.assert(
      fc.property(policies, fc.array(fc.integer({ min: 0, max: 8_000_000 }), { maxLength: 3000 }), (policy, raw) => {
        const times = [...raw].sort((a, b) => a - b);
        expect(mostInAnyWindow(run(policy, times), policy.windowSeconds * 1000)).toBeLessThanOrEqual(policy.requests);
      }),
      { numRuns: 60 },
    );
  });

  // From N = 10 on: below that one request more or less is over 10 % (a token of 1 per second sending every
  // 500 ms is admitted every 1.5 s: its request exactly a window after the last one is still counted).
  it('admits at least 0.9·N per window on average over three windows to a sender at twice the limit (N >= 10)', () => {
    fc.assert(
      fc.property(
        shortPolicies.filter((p) => p.requests >= 10),
        fc.integer({ min: 0, max: 999 }),
        (policy, offset) => {
          const rate = (2 * policy.requests) / policy.windowSeconds;
          const admitted = run(policy, steady(rate, 3 * policy.windowSeconds, offset));
          expect(admitted.length / 3).toBeGreaterThanOrEqual(0.9 * policy.requests);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never refuses a sender below 80 % of the limit', () => {
    fc.assert(
      fc.property(shortPolicies, fc.integer({ min: 0, max: 999 }), (policy, offset) => {
        const times = steady((0.8 * policy.requests) / policy.windowSeconds, 4 * policy.windowSeconds, offset);
        expect(run(policy, times)).toHaveLength(times.length);
      }),
      { numRuns: 60 },
    );
  });

  it('reports what is left and when the window frees capacity', () => {
    const policy = { requests: 3, windowSeconds: 10 };
    const at = (ms: number): number => sliceStartOf(sliceMsOf(policy), ms);
    const slices = new Map([
      [at(1000), 2],
      [at(4200), 1],
    ]);
    expect(policyState(slices, policy, 5000)).toEqual({ policy, remaining: 0, resetMs: 6500 });
    // The first slice (1000-1500 ms) leaves the window at 11.5 s; the second at 14.5 s.
    expect(policyState(slices, policy, 11_600)).toEqual({ policy, remaining: 2, resetMs: 2900 });
    expect(policyState(new Map(), policy, 0)).toEqual({ policy, remaining: 3, resetMs: 0 });
    expect(countInWindow(slices, policy, 14_600)).toBe(0);
    expect(staleSlices(slices, policy, 14_600)).toEqual([1000, 4000]);
  });

  it('t never exceeds W; Retry-After is 1..W + 1 and true: the window admits again when it has passed', () => {
    fc.assert(
      fc.property(policies, fc.array(fc.integer({ min: 0, max: 8_000_000 }), { maxLength: 500 }), (policy, raw) => {
        const times = [...raw].sort((a, b) => a - b);
        const slices = new Map<number, number>();
        for (const t of times) {
          const state = policyState(slices, policy, t);
          expect(resetSeconds(state)).toBeLessThanOrEqual(policy.windowSeconds);
          expect(resetSeconds(state)).toBeGreaterThanOrEqual(0);
          if (state.remaining > 0) {
            const start = sliceStartOf(sliceMsOf(policy), t);
            slices.set(start, (slices.get(start) ?? 0) + 1);
            continue;
          }
          const retryAfter = retryAfterSeconds(state);
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(policy.windowSeconds + 1);
          expect(policyState(slices, policy, t + retryAfter * 1000).remaining).toBeGreaterThan(0);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a fresh 60 s token reports t=60 at most, and a burst refused says Retry-After 61 at most', () => {
    const policy = { requests: 5, windowSeconds: 60 };
    const counts = new Counts();
    const now = 1_000_999; // late in its slice: the slice is held until 61 s from its start
    counts.count(sliceStartOf(sliceMsOf(policy), now));
    expect(resetSeconds(counts.state(policy, now))).toBe(60);
    for (let i = 0; i < 4; i++) counts.count(sliceStartOf(sliceMsOf(policy), now));
    const refused = counts.state(policy, now);
    expect({ remaining: refused.remaining, retryAfter: retryAfterSeconds(refused) }).toEqual({
      remaining: 0,
      retryAfter: 61,
    });
  });

  it('alone an instance admits a burst up to N; beside others, at most ⌈N/W⌉ no answer has shown yet', () => {
    const policy = { requests: 100, windowSeconds: 10 };
    const slice = (ms: number): number => sliceStartOf(sliceMsOf(policy), ms);
    const alone = new Counts();
    for (let i = 0; i < 100; i++) alone.count(slice(0));
    expect(alone.state(policy, 0).remaining).toBe(0);
    const alongside = new Counts();
    alongside.count(slice(0));
    const sent = alongside.beginSync(0);
    // The answer shows 30 requests of other instances besides this one's.
    alongside.syncAnswered(sent, new Map([[slice(0), 31]]));
    for (let i = 0; i < 9; i++) alongside.count(slice(100));
    expect(alongside.state(policy, 200)).toEqual({ policy, remaining: 1, resetMs: 10_000 - 200 + sliceMsOf(policy) });
    alongside.count(slice(200));
    // Ten unanswered: refused until the next sync answered (due a second after the last).
    expect(alongside.state(policy, 300)).toEqual({ policy, remaining: 0, resetMs: 700 });
    const next = alongside.beginSync(1000);
    alongside.syncAnswered(next, new Map([[slice(0), 41]]));
    expect(alongside.state(policy, 1100).remaining).toBe(10);
  });

  it('parses N/W within 1..100000 and 10..3600, and says what is wrong otherwise', () => {
    expect(parseRatePolicy('600/60')).toEqual({ requests: 600, windowSeconds: 60 });
    expect(parseRatePolicy('100000/3600')).toEqual({ requests: 100000, windowSeconds: 3600 });
    expect(parseRatePolicy('1/10')).toEqual({ requests: 1, windowSeconds: 10 });
    for (const bad of ['0/60', '100001/60', '10/0', '10/9', '5/1', '10/3601', '10', '10/6.5', '-1/5', 'abc', '10 / 60', ''])
      expect(parseRatePolicy(bad)).toEqual(expect.stringMatching(/^(expected|out of range)/));
  });
});

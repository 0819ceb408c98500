import fc from 'fast-check';
import {
  countInWindow,
  parseRatePolicy,
  policyState,
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
    const start = sliceStartOf(policy, t);
    slices.set(start, (slices.get(start) ?? 0) + 1);
    admitted.push(t);
  }
  return admitted;
}

const steady = (perSecond: number, seconds: number, offsetMs = 0): number[] =>
  Array.from({ length: Math.floor(perSecond * seconds) }, (_, i) => offsetMs + (i * 1000) / perSecond);

const policies = fc.record({
  requests: fc.integer({ min: 1, max: 2000 }),
  windowSeconds: fc.integer({ min: 1, max: 120 }),
});

describe('the sliding window (contract §18)', () => {
  it('admits at most N in any W seconds, however the requests bunch', () => {
    fc.assert(
      fc.property(policies, fc.array(fc.integer({ min: 0, max: 400_000 }), { maxLength: 3000 }), (policy, raw) => {
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
        policies.filter((p) => p.requests >= 10),
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
      fc.property(policies, fc.integer({ min: 0, max: 999 }), (policy, offset) => {
        const times = steady((0.8 * policy.requests) / policy.windowSeconds, 4 * policy.windowSeconds, offset);
        expect(run(policy, times)).toHaveLength(times.length);
      }),
      { numRuns: 60 },
    );
  });

  it('reports what is left and when the window frees capacity', () => {
    const policy = { requests: 3, windowSeconds: 10 };
    const slices = new Map([
      [sliceStartOf(policy, 1000), 2],
      [sliceStartOf(policy, 4200), 1],
    ]);
    expect(policyState(slices, policy, 5000)).toEqual({ policy, remaining: 0, resetSeconds: 7 });
    // The first slice (1000-1500 ms) leaves the window at 11.5 s; the second at 14.5 s.
    expect(policyState(slices, policy, 11_600)).toEqual({ policy, remaining: 2, resetSeconds: 3 });
    expect(policyState(new Map(), policy, 0)).toEqual({ policy, remaining: 3, resetSeconds: 0 });
    expect(countInWindow(slices, policy, 14_600)).toBe(0);
    expect(staleSlices(slices, policy, 14_600)).toEqual([1000, 4000]);
  });

  it('parses N/W within 1..100000 and 1..3600, and says what is wrong otherwise', () => {
    expect(parseRatePolicy('600/60')).toEqual({ requests: 600, windowSeconds: 60 });
    expect(parseRatePolicy('100000/3600')).toEqual({ requests: 100000, windowSeconds: 3600 });
    for (const bad of ['0/60', '100001/60', '10/0', '10/3601', '10', '10/6.5', '-1/5', 'abc', '10 / 60', ''])
      expect(parseRatePolicy(bad)).toEqual(expect.stringMatching(/^(expected|out of range)/));
  });
});

import { run } from '../support/rate-simulation';

/**
 * k instances sharing one token's limit, simulated with the Counts of
 * src/domain/rate-window.ts that src/data/rate-counts.ts uses
 * (test/support/rate-simulation.ts: deterministic, seeded; one sync a second
 * per instance, 0–200 ms round trips, requests spread at random or in turn as
 * `INSTANCES=N npm start` does). Contract §18: at most 1.1·N + 5 + (k − 1)·⌈N/W⌉
 * in any W seconds, whatever the demand; at least 0.9·N per W over three
 * windows at twice the limit; no 429 below 80 %.
 */
const SEEDS = [101, 202, 303, 404, 505];
const bound = (n: number, w: number, k: number): number => 1.1 * n + 5 + (k - 1) * Math.ceil(n / w);

describe.each([
  { k: 4, requests: 40, windowSeconds: 10, spread: 'in turn' },
  { k: 4, requests: 40, windowSeconds: 10, spread: 'random' },
  { k: 8, requests: 100, windowSeconds: 10, spread: 'random' },
  { k: 2, requests: 120, windowSeconds: 60, spread: 'random' },
] as const)('$k instances, $requests per $windowSeconds s, requests spread $spread', ({ k, spread, ...policy }) => {
  const most = bound(policy.requests, policy.windowSeconds, k);

  it('at twice and at ten times the limit: within the bound; at twice, at least 0.9·N per window', () => {
    for (const seed of SEEDS) {
      const twice = run(policy, k, 2, seed, spread);
      const tenfold = run(policy, k, 10, seed, spread);
      expect({ seed, twice: twice.most, tenfold: tenfold.most, bound: most }).toEqual({
        seed,
        twice: Math.min(twice.most, most),
        tenfold: Math.min(tenfold.most, most),
        bound: most,
      });
      expect(twice.perWindow).toBeGreaterThanOrEqual(0.9 * policy.requests);
    }
  });

  it('79 % of the limit: never refused', () => {
    for (const seed of SEEDS)
      expect({ seed, refused: run(policy, k, 0.79, seed, spread).refused }).toEqual({ seed, refused: 0 });
  });
});

describe('1 instance: exact whatever the window and the demand', () => {
  it.each([
    { requests: 10, windowSeconds: 10 },
    { requests: 600, windowSeconds: 60 },
  ])('$requests per $windowSeconds s', (policy) => {
    for (const seed of SEEDS.slice(0, 3)) {
      expect(run(policy, 1, 2, seed, 'random').most).toBeLessThanOrEqual(policy.requests);
      expect(run(policy, 1, 10, seed, 'random').most).toBeLessThanOrEqual(policy.requests);
      expect(run(policy, 1, 0.8, seed, 'random').refused).toBe(0);
    }
  });
});

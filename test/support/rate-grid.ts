/**
 * The over-admission table of docs/rate-limits.md: `npx tsx test/support/rate-grid.ts` runs the simulation of
 * test/support/rate-simulation.ts (the production Counts) for k = 1, 2, 4, 8 instances and W = 10, 60, 3600 s, at
 * twice and ten times the limit (N = 10, 40, 100, 600; three seeds each, requests spread at random), and prints per
 * cell the worst over-admission (most admitted in any W, less N) as a share of N, beside what the contract allows
 * (0.1·N + 5 + (k − 1)·⌈N/W⌉, for the same N); then the least admitted per window at twice the limit and the runs
 * at 80 % that met a 429.
 */
import { run } from './rate-simulation';

const INSTANCES = [1, 2, 4, 8];
const WINDOWS = [10, 60, 3600];
const SEEDS = [1, 2, 3];
const limitsOf = (w: number): number[] => (w === 3600 ? [100, 600] : [10, 40, 100, 600]);
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

for (const k of INSTANCES) {
  const cells = WINDOWS.map((w) => {
    let worst = -Infinity;
    let allowed = 0;
    let least = Infinity;
    let refusedRuns = 0;
    for (const n of limitsOf(w))
      for (const s of SEEDS) {
        const policy = { requests: n, windowSeconds: w };
        const seed = s * 7919 + k * 31 + n;
        // An hour's window: two windows (the second is the steady one), not four.
        const windows = w === 3600 ? 2 : 4;
        for (const demand of [2, 10]) {
          const outcome = run(policy, k, demand, seed, 'random', windows);
          if ((outcome.most - n) / n > worst) {
            worst = (outcome.most - n) / n;
            allowed = (0.1 * n + 5 + (k - 1) * Math.ceil(n / w)) / n;
          }
          if (demand === 2) least = Math.min(least, outcome.perWindow / n);
        }
        if (run(policy, k, 0.8, seed, 'random', windows).refused > 0) refusedRuns++;
      }
    return `W=${w}: ${pct(worst)} (allowed ${pct(allowed)}), least ${least.toFixed(2)}·N, 429 at 80 %: ${refusedRuns}`;
  });
  console.log(`k=${k}  ${cells.join(' | ')}`);
}

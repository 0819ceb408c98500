/**
 * The figures of docs/rate-limits.md ("How far the counts can be off"): `npx tsx test/support/rate-grid.ts`
 * runs the simulation of test/support/rate-simulation.ts over instances, windows, limits and demands (about a
 * minute on one core) and prints, per spread, k and W: the worst most-in-any-window over 1.1·N + 5 at twice and at
 * ten times the limit, the least admitted per window over N at twice the limit, and how many runs at 80 % met a 429.
 */
import { run } from './rate-simulation';

const INSTANCES = [1, 2, 4, 8, 16];
const WINDOWS = [1, 3, 10, 60];
const LIMITS = [10, 30, 100, 600];
const SEEDS = [1, 2, 3];

for (const spread of ['random', 'in turn'] as const) {
  console.log(
    `spread ${spread}: worst most/(1.1·N + 5) at 2x | at 10x | least per-window/N at 2x | runs with a 429 at 0.8x`,
  );
  for (const k of INSTANCES) {
    const cells = WINDOWS.map((w) => {
      let twice = 0;
      let tenfold = 0;
      let least = Infinity;
      let refusedRuns = 0;
      for (const n of LIMITS)
        for (const s of SEEDS) {
          const policy = { requests: n, windowSeconds: w };
          const bound = 1.1 * n + 5;
          const seed = s * 7919 + k * 31 + n;
          const atTwice = run(policy, k, 2, seed, spread);
          twice = Math.max(twice, atTwice.most / bound);
          least = Math.min(least, atTwice.perWindow / n);
          // 10x of 600 per 60 s is 24,000 requests: left out for time.
          if (!(w === 60 && n === 600)) tenfold = Math.max(tenfold, run(policy, k, 10, seed, spread).most / bound);
          if (run(policy, k, 0.8, seed, spread).refused > 0) refusedRuns++;
        }
      return `W=${w}: ${twice.toFixed(2)} | ${tenfold.toFixed(2)} | ${least.toFixed(2)} | ${refusedRuns}/${LIMITS.length * SEEDS.length}`;
    });
    console.log(`k=${k}  ${cells.join('   ')}`);
  }
}

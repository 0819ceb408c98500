/** The most of `times` (epoch ms, any order) within any interval of `windowMs`: what a rate limit may admit. */
export function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

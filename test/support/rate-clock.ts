/**
 * Moves this test file's clock on (Date.now, which the rate counts of
 * src/data/rate-counts.ts read): a rate window passes without being waited
 * for. Only the clock of the test file's context moves (jest gives each file
 * its own globals); timers keep real time.
 */
const realNow = Date.now.bind(Date);
let skewMs = 0;

export function advanceClock(ms: number): void {
  if (skewMs === 0) Date.now = () => realNow() + skewMs;
  skewMs += ms;
}

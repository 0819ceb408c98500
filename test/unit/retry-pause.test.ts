import fc from 'fast-check';
import { retryPauseMs } from '../../src/data/dynamo/retry-pause';

describe('the pause before an optimistic operation reads again', () => {
  it('is at most twice the refused attempt, spread over all of that range', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 5000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ms, r) => {
          const pause = retryPauseMs(ms, 1, r);
          expect(pause).toBeGreaterThanOrEqual(0);
          expect(pause).toBeLessThanOrEqual(2 * ms);
        },
      ),
    );
    expect(retryPauseMs(100, 1, 0)).toBe(0);
    expect(retryPauseMs(100, 1, 0.999)).toBeCloseTo(199.8);
  });

  it('shrinks as refusals add up: a writer that lost more rounds reads again sooner', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 5000, noNaN: true }),
        fc.integer({ min: 1, max: 39 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (ms, refusals, r) => {
          expect(retryPauseMs(ms, refusals + 1, r)).toBeLessThan(retryPauseMs(ms, refusals, r));
        },
      ),
    );
  });

  it('scales with the attempt: the same contention on a slower store spaces writers further apart', () => {
    expect(retryPauseMs(400, 2, 0.5)).toBe(4 * retryPauseMs(100, 2, 0.5));
    expect(retryPauseMs(-5, 1, 0.5)).toBe(0);
  });

  it('leaves room for one more attempt as long as the refused one within the time left', () => {
    expect(retryPauseMs(300, 1, 0.9, 500)).toBe(200);
    expect(retryPauseMs(300, 1, 0.9, 200)).toBe(0);
    expect(retryPauseMs(300, 1, 0.1, 10_000)).toBeCloseTo(60);
  });
});

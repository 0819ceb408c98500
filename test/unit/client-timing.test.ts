import fc from 'fast-check';
import {
  backoffMs,
  parseRetryAfter,
  rateLimitWaitMs,
  retryWaitMs,
  MAX_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
} from '../../client/src/timing';

/** The client's waits (contract §23): Retry-After capped at 60 s, else 0.5 s·2ⁿ with jitter capped at 8 s; r=0 waits t. */
describe('client timing', () => {
  it('backs off 0.5 s·2ⁿ within ±25 %, never over 8 s, growing with n', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, random) => {
        const wait = backoffMs(n, random);
        const base = 500 * 2 ** n;
        expect(wait).toBeLessThanOrEqual(MAX_BACKOFF_MS);
        expect(wait).toBeGreaterThanOrEqual(Math.min(MAX_BACKOFF_MS, base * 0.75));
        expect(wait).toBeLessThanOrEqual(base * 1.25);
      }),
    );
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(n, 0.5))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('waits what Retry-After says, at most 60 s; an HTTP date counts from now', () => {
    const now = Date.parse('2026-11-27T05:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter(' 120 ', now)).toBe(120);
    expect(parseRetryAfter('Fri, 27 Nov 2026 05:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Fri, 27 Nov 2026 04:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(retryWaitMs(3, 5, 0.9)).toBe(3000);
    expect(retryWaitMs(0, 0, 0.9)).toBe(0);
    expect(retryWaitMs(86_400 * 3, 0, 0)).toBe(MAX_RETRY_AFTER_MS); // an uncapped Retry-After would sleep for days
    expect(retryWaitMs(null, 1, 0.5)).toBe(1000);
  });

  it('reads the RateLimit field: the longest t of an exhausted policy, else no wait', () => {
    expect(rateLimitWaitMs('"token";r=0;t=2, "business";r=5;t=1')).toBe(2000);
    expect(rateLimitWaitMs('"token";r=0;t=2, "business";r=0;t=7')).toBe(7000);
    expect(rateLimitWaitMs('"token";r=1;t=2, "business";r=5;t=9')).toBe(0);
    expect(rateLimitWaitMs('"token";t=4;r=0')).toBe(4000);
    expect(rateLimitWaitMs('"token";r=0;t=3600')).toBe(MAX_RETRY_AFTER_MS);
    expect(rateLimitWaitMs(null)).toBe(0);
    expect(rateLimitWaitMs('garbage')).toBe(0);
  });
});

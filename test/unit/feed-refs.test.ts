import fc from 'fast-check';
import { ENTRY_TTL_SECONDS } from '../../src/domain/change-feed';
import {
  EXPIRY_MARGIN_SECONDS,
  TTL_LAG_SECONDS,
  expiresAtOf,
  feedRefsOf,
  redactionPlan,
  withFeedRef,
  type FeedRef,
} from '../../src/domain/feed-refs';

const now = Date.parse('2026-11-23T12:00:00.000Z');
const nowS = now / 1000;

describe('feed references of an application (which entries an erasure redacts)', () => {
  it('records each entry with its expiry and drops those TTL has surely removed', () => {
    const old: FeedRef = [1, nowS - TTL_LAG_SECONDS - 1];
    const lagging: FeedRef = [2, nowS - 60];
    const refs = withFeedRef([old, lagging], 9, '2026-11-23T12:00:00.000Z', now);
    expect(refs).toEqual([lagging, [9, nowS + ENTRY_TTL_SECONDS]]);
    expect(expiresAtOf('2026-11-23T12:00:00.000Z')).toBe(nowS + ENTRY_TTL_SECONDS);
  });

  it('reads back only well-formed references', () => {
    expect(feedRefsOf([[3, 100], [4], 'x', [5, 200]])).toEqual([
      [3, 100],
      [5, 200],
    ]);
    expect(feedRefsOf(undefined)).toEqual([]);
  });

  it('puts entries safely before expiry into the transaction, near-expiry ones before it', () => {
    const plan = redactionPlan(
      [
        [1, nowS + 10],
        [2, nowS + EXPIRY_MARGIN_SECONDS + 60],
        [3, nowS - 100],
        [4, nowS - TTL_LAG_SECONDS - 1],
      ],
      now,
    );
    expect(plan).toEqual({ inTransaction: [2], before: [1, 3] });
  });

  it('redacts every live entry exactly once and never more than the cap in the transaction (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 300 }),
        fc.array(fc.integer({ min: -20 * 86400, max: 31 * 86400 }), { minLength: 300, maxLength: 300 }),
        fc.integer({ min: 1, max: 100 }),
        (seqs, offsets, cap) => {
          const refs = seqs.map((s, i): FeedRef => [s, nowS + offsets[i]!]);
          const plan = redactionPlan(refs, now, cap);
          const live = refs.filter(([, e]) => e + TTL_LAG_SECONDS > nowS).map(([s]) => s);
          const all = [...plan.inTransaction, ...plan.before];
          return (
            plan.inTransaction.length <= cap &&
            new Set(all).size === all.length &&
            [...all].sort((a, b) => a - b).join() === [...live].sort((a, b) => a - b).join() &&
            plan.inTransaction.every((s) => refs.find(([x]) => x === s)![1] > nowS + EXPIRY_MARGIN_SECONDS)
          );
        },
      ),
    );
  });
});

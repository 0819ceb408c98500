import fc from 'fast-check';
import { endsWalk, isDue, retentionCutoff, retentionDaysOf, runOrder } from '../../src/domain/retention';

const DAY = 24 * 60 * 60 * 1000;
const iso = (ms: number): string => new Date(ms).toISOString();

describe('retention due dates (contract §17: updated_at older than application_retention_days)', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');

  it('is due strictly after the boundary: exactly `days` old is kept, one millisecond older is erased', () => {
    const cutoff = retentionCutoff(now, 30);
    expect(iso(cutoff)).toBe('2026-10-24T12:00:00.000Z');
    expect(isDue('2026-10-24T12:00:00.000Z', cutoff)).toBe(false);
    expect(isDue('2026-10-24T11:59:59.999Z', cutoff)).toBe(true);
    expect(isDue('2026-11-23T11:00:00.000Z', cutoff)).toBe(false);
  });

  it('is due exactly when the age exceeds the days (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 36_500 }),
        fc.integer({ min: 0, max: 40_000 * DAY }),
        fc.integer({ min: Date.parse('2000-01-01'), max: Date.parse('2100-01-01') }),
        (days, age, nowMs) => isDue(iso(nowMs - age), retentionCutoff(nowMs, days)) === age > days * DAY,
      ),
    );
  });

  it('never un-dues an application as time passes (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3650 }),
        fc.integer({ min: 0, max: 4000 * DAY }),
        fc.integer({ min: 0, max: 400 * DAY }),
        (days, age, later) => {
          const nowMs = Date.parse('2030-01-01');
          const at = iso(nowMs - age);
          return !isDue(at, retentionCutoff(nowMs, days)) || isDue(at, retentionCutoff(nowMs + later, days));
        },
      ),
    );
  });

  it('reads only whole days in range as a setting; anything else keeps applications', () => {
    expect(retentionDaysOf(30)).toBe(30);
    for (const v of [undefined, null, 0, -1, 1.5, '30', 36_501, Number.NaN]) expect(retentionDaysOf(v)).toBeUndefined();
  });

  it('stops the walk only at a kept application that is still where the walk saw it', () => {
    expect(endsWalk({ kind: 'kept', updatePosition: 7 }, 7)).toBe(true);
    expect(endsWalk({ kind: 'kept', updatePosition: 90 }, 7)).toBe(false);
    expect(endsWalk({ kind: 'erased' }, 7)).toBe(false);
    expect(endsWalk({ kind: 'gone' }, 7)).toBe(false);
  });

  it('visits every business once per run, whatever the day (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 20 }), fc.integer({ min: 0, max: 2 ** 45 }), (ids, t) => {
        const order = runOrder(ids, t);
        return order.length === ids.length && [...order].sort().join('\n') === [...ids].sort().join('\n');
      }),
    );
  });
});

import fc from 'fast-check';
import {
  DELIVERY_LOG_DAYS,
  DELIVERY_TTL_SECONDS,
  dayMarkExpiry,
  dayOf,
  firstShownDay,
  logPage,
} from '../../src/domain/webhook-deliveries';
import { LANE_COUNT, entryKeyOf, positionStatus, type LaneCounter } from '../../src/domain/change-feed';

const DAY = 24 * 60 * 60 * 1000;

describe('the delivery log’s pages (contract §26: newest first, §7 pages)', () => {
  it('the pages of a log cover its numbers from the first shown to the newest, each once, newest first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 100 }),
        (newest, firstShown, perPage) => {
          const first = firstShown <= newest ? firstShown : null;
          const { total } = logPage({ page: 1, perPage }, newest, first);
          expect(total).toBe(first === null ? 0 : newest - first + 1);
          const seen: number[] = [];
          for (let page = 1; page <= Math.ceil(total / perPage) + 1; page++) {
            const { range } = logPage({ page, perPage }, newest, first);
            if (!range) continue;
            expect(range.to - range.from + 1).toBeLessThanOrEqual(perPage);
            for (let n = range.to; n >= range.from; n--) seen.push(n);
          }
          expect(seen).toEqual(Array.from({ length: total }, (_, i) => newest - i));
        },
      ),
    );
  });

  it('a page past the end has no range; its total stays', () =>
    expect(logPage({ page: 4, perPage: 3 }, 7, 1)).toEqual({ total: 7, range: undefined }));
});

describe('the log’s window and expiry', () => {
  it('shows whole UTC days from the day 30 days ago; marks outlive their day’s attempts', () => {
    const now = Date.parse('2026-12-07T15:00:00Z');
    expect(firstShownDay(now)).toBe('d20261107');
    expect(dayOf(Date.parse('2026-11-07T00:00:00Z'))).toBe('d20261107');
    expect(dayOf(Date.parse('2026-11-06T23:59:59.999Z'))).toBe('d20261106');
    // An attempt at the first instant of the first shown day is still there at the window's last instant.
    const earliest = Date.parse('2026-11-07T00:00:00Z');
    const lastShown = Date.parse('2026-12-07T23:59:59.999Z');
    expect(earliest / 1000 + DELIVERY_TTL_SECONDS).toBeGreaterThan(lastShown / 1000);
    expect(dayMarkExpiry(earliest + 5 * 60 * 60 * 1000)).toBeGreaterThan(lastShown / 1000);
    expect(DELIVERY_LOG_DAYS).toBe(30);
  });
});

describe('resume’s cursor check (positionStatus) and the entries’ keys', () => {
  const now = Date.parse('2026-12-07T15:00:00Z');
  const at = (lane: number, seq: number): number[] =>
    Array.from({ length: LANE_COUNT }, (_, l) => (l === lane ? seq : 0));
  const counters = (lane: number, counter: LaneCounter): LaneCounter[] =>
    Array.from({ length: LANE_COUNT }, (_, l) => (l === lane ? counter : { n: 0, days: {} }));
  const old = dayOf(now - 40 * DAY);
  const today = dayOf(now);

  it('beyond a lane’s end: invalid; entries after it older than the window: expired; else ok', () => {
    const aged = counters(3, { n: 5, days: { [old]: 1 } });
    expect(positionStatus(at(3, 6), aged, now)).toBe('invalid');
    expect(positionStatus(at(3, 2), aged, now)).toBe('expired');
    // Nothing after it: nothing was missed, however old.
    expect(positionStatus(at(3, 5), aged, now)).toBe('ok');
    const mixed = counters(3, { n: 5, days: { [old]: 1, [today]: 4 } });
    expect(positionStatus(at(3, 2), mixed, now)).toBe('expired');
    expect(positionStatus(at(3, 3), mixed, now)).toBe('ok');
  });

  it('an entry’s key is its lane and sequence, one spelling each', () => {
    fc.assert(
      fc.property(fc.nat({ max: LANE_COUNT - 1 }), fc.nat(), fc.nat({ max: LANE_COUNT - 1 }), fc.nat(), (a, s, b, t) =>
        expect(entryKeyOf(a, s) === entryKeyOf(b, t)).toBe(a === b && s === t),
      ),
    );
  });
});

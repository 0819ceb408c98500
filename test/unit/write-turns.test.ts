import fc from 'fast-check';
import {
  MAX_TURN_MS,
  MIN_TURN_MS,
  REFUSALS_BEFORE_TURN,
  TURN_AFTER_MS,
  blocks,
  goesBefore,
  isLive,
  mayClaim,
  turnLengthMs,
  turnOf,
  turnWaitMs,
  wantsTurn,
  type Turn,
  type Writer,
} from '../../src/domain/write-turns';
import { guardedByTurn } from '../../src/data/write-turns';

const writer = fc.record({ by: fc.uuid(), since: fc.integer({ min: 0, max: 10_000 }) });
const turnAt = (w: Writer, until: number): Turn => ({ ...w, until });

describe('a turn on a contended item', () => {
  it('is read from its three attributes, and only when all are well-formed', () => {
    expect(turnOf({ n: 3, turn_by: 'a', turn_until: 200, turn_since: 100 })).toEqual({
      by: 'a',
      until: 200,
      since: 100,
    });
    expect(turnOf({ n: 3 })).toBeUndefined();
    expect(turnOf(undefined)).toBeUndefined();
    expect(turnOf({ turn_by: 'a', turn_until: 'soon', turn_since: 1 })).toBeUndefined();
    expect(turnOf({ turn_by: 7, turn_until: 2, turn_since: 1 })).toBeUndefined();
  });

  it('holds until its end, and never keeps its own holder out', () => {
    fc.assert(
      fc.property(
        writer,
        writer,
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        (holder, other, until, now) => {
          const turn = turnAt(holder, until);
          expect(isLive(turn, now)).toBe(until > now);
          expect(blocks(turn, holder, now)).toBe(false);
          expect(blocks(turn, other, now)).toBe(until > now && other.by !== holder.by);
          expect(blocks(undefined, other, now)).toBe(false);
        },
      ),
    );
  });

  it('goes to the older request: of two writers exactly one may take the other one’s live turn (no deadlock, no starvation)', () => {
    fc.assert(
      fc.property(writer, writer, (a, b) => {
        fc.pre(a.by !== b.by);
        const now = 1_000;
        const aMay = mayClaim(turnAt(b, now + 500), a, now);
        const bMay = mayClaim(turnAt(a, now + 500), b, now);
        expect(aMay).not.toBe(bMay);
        expect(aMay).toBe(goesBefore(a, b));
        if (a.since !== b.since) expect(aMay).toBe(a.since < b.since);
      }),
    );
  });

  it('may be claimed when there is none, when it expired, or when it is already mine', () => {
    fc.assert(
      fc.property(writer, writer, fc.integer({ min: 0, max: 5_000 }), (me, holder, ago) => {
        const now = 10_000;
        expect(mayClaim(undefined, me, now)).toBe(true);
        expect(mayClaim(turnAt(holder, now - ago), me, now)).toBe(true);
        expect(mayClaim(turnAt(me, now + 500), me, now)).toBe(true);
      }),
    );
  });

  it(`is wanted only after ${REFUSALS_BEFORE_TURN} refusals on the item by a writer busy for ${TURN_AFTER_MS} ms (the uncontended path never claims)`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 5_000 }), (refusals, elapsed) => {
        expect(wantsTurn(refusals, elapsed)).toBe(refusals >= REFUSALS_BEFORE_TURN && elapsed >= TURN_AFTER_MS);
      }),
    );
    expect(wantsTurn(REFUSALS_BEFORE_TURN, TURN_AFTER_MS)).toBe(true);
    expect(wantsTurn(REFUSALS_BEFORE_TURN - 1, 60_000)).toBe(false);
    expect(wantsTurn(40, TURN_AFTER_MS - 1)).toBe(false);
  });

  it('lasts twice the holder’s last attempt, within bounds (a dead holder blocks for a short while only)', () => {
    expect(turnLengthMs(120)).toBe(240);
    expect(turnLengthMs(0)).toBe(MIN_TURN_MS);
    expect(turnLengthMs(-3)).toBe(MIN_TURN_MS);
    expect(turnLengthMs(60_000)).toBe(MAX_TURN_MS);
    fc.assert(
      fc.property(fc.double({ min: -10, max: 1e6, noNaN: true }), (ms) => {
        const length = turnLengthMs(ms);
        expect(length).toBeGreaterThanOrEqual(MIN_TURN_MS);
        expect(length).toBeLessThanOrEqual(MAX_TURN_MS);
      }),
    );
  });
});

describe('a writer blocked by another request’s turn', () => {
  it('pauses until about the turn’s end, at most one attempt plus a little jitter, and leaves room for one more attempt', () => {
    fc.assert(
      fc.property(
        writer,
        fc.integer({ min: -2_000, max: 2_000 }),
        fc.double({ min: 0, max: 3_000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 6_000, noNaN: true }),
        (holder, untilFromNow, attempt, r, left) => {
          const now = 50_000;
          const pause = turnWaitMs(turnAt(holder, now + untilFromNow), now, attempt, r, left);
          expect(pause).toBeGreaterThanOrEqual(0);
          expect(pause).toBeLessThanOrEqual(Math.max(0, untilFromNow) + 0.25 * attempt + 1e-9);
          expect(pause).toBeLessThanOrEqual(1.25 * attempt + 1e-9);
          expect(pause).toBeLessThanOrEqual(Math.max(0, left - attempt) + 1e-9);
        },
      ),
    );
    const turn = turnAt({ by: 'h', since: 0 }, 1_300);
    expect(turnWaitMs(turn, 1_000, 500, 0)).toBe(300);
    expect(turnWaitMs(turn, 1_000, 200, 0)).toBe(200);
    expect(turnWaitMs(turn, 2_000, 200, 0)).toBe(0);
    expect(turnWaitMs(turn, 1_000, 500, 0, 600)).toBe(100);
  });
});

describe('a guarded advance of a contended item', () => {
  const advance: {
    Key: { PK: string; SK: string };
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  } = {
    Key: { PK: 'B#x#counter#employees', SK: 'C' },
    UpdateExpression: 'SET n = :next',
    ConditionExpression: 'n = :current',
    ExpressionAttributeValues: { ':next': 4, ':current': 3 },
  };

  it('also requires no live turn of another request and removes the turn', () => {
    const guarded = guardedByTurn(advance, 'me', 1234);
    expect(guarded.ConditionExpression).toBe(
      '(n = :current) AND (attribute_not_exists(#turnBy) OR #turnBy = :turnMe OR #turnUntil < :turnNow)',
    );
    expect(guarded.UpdateExpression).toBe('SET n = :next REMOVE #turnBy, #turnUntil, #turnSince');
    expect(guarded.ExpressionAttributeNames).toEqual({
      '#turnBy': 'turn_by',
      '#turnUntil': 'turn_until',
      '#turnSince': 'turn_since',
    });
    expect(guarded.ExpressionAttributeValues).toEqual({ ':next': 4, ':current': 3, ':turnMe': 'me', ':turnNow': 1234 });
    expect(guarded.Key).toBe(advance.Key);
  });

  it('joins an existing REMOVE clause (one per expression) and keeps the item’s own names', () => {
    const guarded = guardedByTurn(
      {
        ...advance,
        UpdateExpression: 'SET n = :next, #at = :now REMOVE #old0, #old1',
        ExpressionAttributeNames: { '#at': 'at', '#old0': 'd20260101', '#old1': 'd20260102' },
      },
      'me',
      1,
    );
    expect(guarded.UpdateExpression).toBe(
      'SET n = :next, #at = :now REMOVE #turnBy, #turnUntil, #turnSince, #old0, #old1',
    );
    expect(guarded.ExpressionAttributeNames).toMatchObject({ '#at': 'at', '#old0': 'd20260101', '#turnBy': 'turn_by' });
  });

  it('without a condition of its own is conditioned on the turn alone', () => {
    const { ConditionExpression, ...plain } = advance;
    expect(ConditionExpression).toBeDefined();
    expect(guardedByTurn(plain, 'me', 1).ConditionExpression).toBe(
      '(attribute_not_exists(#turnBy) OR #turnBy = :turnMe OR #turnUntil < :turnNow)',
    );
  });
});

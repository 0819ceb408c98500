import { changedFields, decodeActor, encodeActor, SYSTEM_JOBS, type Actor } from '../../src/domain/audit';
import fc from 'fast-check';
import {
  APPLICATION_LANES,
  EMPLOYEE_LANES,
  LANE_COUNT,
  MAX_CURSOR_LENGTH,
  assemblePage,
  idsInLane,
  laneOfTicket,
  lanesOfKind,
  dayMarkOf,
  decodeCursor,
  encodeCursor,
  fetchPlan,
  laneOf,
  parseTypes,
  staleDayMarks,
  startSeq,
  type StoredEntry,
} from '../../src/domain/change-feed';

const position = fc.array(fc.nat({ max: 10_000_000 }), { minLength: LANE_COUNT, maxLength: LANE_COUNT });

describe('cursor', () => {
  it('round-trips, is bound to its business and has one spelling', () => {
    fc.assert(
      fc.property(position, fc.string({ minLength: 1 }), (p, business) => {
        const cursor = encodeCursor(business, p);
        expect(decodeCursor(business, cursor)).toEqual(p);
        expect(decodeCursor(`${business}x`, cursor)).toBeUndefined();
        expect(decodeCursor(business, `${cursor}A`)).toBeUndefined();
      }),
    );
  });

  it('reads the longest position, every lane at the largest sequence it spells, within the query limit', () => {
    const longest = new Array<number>(LANE_COUNT).fill(36 ** 10 - 1);
    const cursor = encodeCursor('b', longest);
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(decodeCursor('b', cursor)).toEqual(longest);
    expect(decodeCursor('b', encodeCursor('b', new Array<number>(LANE_COUNT).fill(36 ** 10)))).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'x!'],
    ['too few parts', 'YzEu'],
    ['wrong tag and lanes', Buffer.from('c1.abc.1.2').toString('base64url')],
    ['too long', 'a'.repeat(MAX_CURSOR_LENGTH + 1)],
  ])('%s is malformed', (_name, c) => {
    expect(decodeCursor('b', c)).toBeUndefined();
  });
});

describe('lanes', () => {
  it('a record always has the same lane; applications and employees use lanes of their own, all lanes used', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect(laneOf('employee', ids[7] as string)).toBe(laneOf('employee', ids[7] as string));
    expect(LANE_COUNT).toBe(APPLICATION_LANES + EMPLOYEE_LANES);
    const counts = new Array<number>(LANE_COUNT).fill(0);
    const applications = ids.map((id) => laneOf('application', id));
    const employees = ids.map((id) => laneOf('employee', id));
    expect(Math.min(...applications)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...applications)).toBeLessThan(APPLICATION_LANES);
    expect(Math.min(...employees)).toBeGreaterThanOrEqual(APPLICATION_LANES);
    expect(Math.max(...employees)).toBeLessThan(LANE_COUNT);
    for (const lane of [...applications, ...employees]) counts[lane] = (counts[lane] ?? 0) + 1;
    const fewest = (from: number, to: number): number => Math.min(...counts.slice(from, to));
    expect(fewest(0, APPLICATION_LANES)).toBeGreaterThan(ids.length / APPLICATION_LANES / 2);
    expect(fewest(APPLICATION_LANES, LANE_COUNT)).toBeGreaterThan(ids.length / EMPLOYEE_LANES / 2);
  });

  it('a chunk of new records can be given distinct ids all in one lane of their kind', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'employee' | 'application'>('employee', 'application'),
        fc.nat({ max: 1000 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer(),
        (kind, pick, count, seed) => {
          const lane = kind === 'application' ? pick % APPLICATION_LANES : APPLICATION_LANES + (pick % EMPLOYEE_LANES);
          let i = seed;
          const ids = idsInLane(kind, lane, count, () => `id-${i++}`);
          expect(ids).toHaveLength(count);
          expect(new Set(ids).size).toBe(count);
          expect(ids.every((id) => laneOf(kind, id) === lane)).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
    // A lane of the other kind is a programming error, not a loop that never ends.
    expect(() => idsInLane('employee', 0, 1, () => 'x')).toThrow('not a lane of employees');
  });

  it('consecutive tickets take every lane of the kind in turn', () => {
    fc.assert(
      fc.property(fc.constantFrom('application' as const, 'employee' as const), fc.nat({ max: 1e9 }), (kind, t) => {
        const count = kind === 'application' ? APPLICATION_LANES : EMPLOYEE_LANES;
        const lanes = Array.from({ length: count }, (_, i) => laneOfTicket(kind, t + i));
        expect([...lanes].sort((a, b) => a - b)).toEqual(lanesOfKind(kind));
        expect(laneOfTicket(kind, t + count)).toBe(lanes[0]);
      }),
      { numRuns: 50 },
    );
    expect(lanesOfKind('application')).toHaveLength(APPLICATION_LANES);
  });
});

describe('fetch plan', () => {
  it('takes, per lane, the entries right after the cursor, never past the counter, at most the budget', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 50 }), fc.nat({ max: 50 })), { minLength: LANE_COUNT, maxLength: LANE_COUNT }),
        fc.integer({ min: 1, max: 100 }),
        (lanes, budget) => {
          const from = lanes.map(([p]) => p);
          const counters = lanes.map(([p, extra]) => ({ n: p + extra, days: {} }));
          const plan = fetchPlan(from, counters, budget);
          const pending = lanes.reduce((a, [, extra]) => a + extra, 0);
          expect(plan.length).toBe(Math.min(budget, pending));
          for (let lane = 0; lane < LANE_COUNT; lane++) {
            const seqs = plan.filter((k) => k.lane === lane).map((k) => k.seq);
            expect(seqs).toEqual(seqs.map((_, i) => (from[lane] as number) + 1 + i));
            expect(seqs.every((s) => s <= (counters[lane] as { n: number }).n)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('page assembly', () => {
  const entry = (
    lane: number,
    seq: number,
    at: number,
    type: StoredEntry['type'] = 'employee.updated',
    tokenId = 'aaaaaaaaaaaa',
  ): StoredEntry => ({
    lane,
    seq,
    type,
    id: `r${lane}`,
    occurred_at: new Date(at).toISOString(),
    data: { seq },
    audit: { actor: { type: 'token', token_id: tokenId, token_name: 'sync' }, request_id: `req-${lane}-${seq}` },
  });
  const zero = new Array<number>(LANE_COUNT).fill(0);

  it('keeps each lane in sequence order, and each cursor resumes right after its entry', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: LANE_COUNT - 1 }), fc.nat({ max: 1000 })), { maxLength: 60 }),
        (raw) => {
          const seqs = new Array<number>(LANE_COUNT).fill(0);
          const plan: { lane: number; seq: number }[] = [];
          const fetched: StoredEntry[] = [];
          for (const [lane, at] of raw) {
            seqs[lane] = (seqs[lane] as number) + 1;
            plan.push({ lane, seq: seqs[lane] as number });
            fetched.push(entry(lane, seqs[lane] as number, 1_700_000_000_000 + at));
          }
          const page = assemblePage('b', zero, plan, fetched, { withCursor: true, wanted: undefined });
          if (page.expired) throw new Error('unexpected');
          expect(page.entries).toHaveLength(raw.length);
          expect(page.next).toEqual(seqs);
          for (let lane = 0; lane < LANE_COUNT; lane++) {
            const order = page.entries.filter((e) => e.id === `r${lane}`).map((e) => (e.data as { seq: number }).seq);
            expect(order).toEqual(order.map((_, i) => i + 1));
          }
          // Everything up to entry i consumed, nothing after it: every entry's cursor, lane by lane, in one comparison
          // (an expect per lane and entry made jest's matchers most of this property's CPU).
          const lanesOf = (at: (lane: number) => number | undefined) =>
            Array.from({ length: LANE_COUNT }, (_, l) => at(l));
          const cursors = page.entries.map((e) => {
            const p = decodeCursor('b', e.cursor) as number[];
            return lanesOf((lane) => p[lane]);
          });
          const consumed = page.entries.map((_, i) => {
            const upTo = page.entries.slice(0, i + 1);
            return lanesOf((lane) => upTo.filter((x) => x.id === `r${lane}`).length);
          });
          expect(cursors).toEqual(consumed);
        },
      ),
    );
  });

  it('a missing entry after a cursor is expiry; without a cursor it is skipped', () => {
    const plan = [
      { lane: 3, seq: 5 },
      { lane: 3, seq: 6 },
    ];
    const fetched = [undefined, entry(3, 6, 1)];
    const from = zero.map((s, l) => (l === 3 ? 4 : s));
    expect(assemblePage('b', from, plan, fetched, { withCursor: true, wanted: undefined }).expired).toBe(true);
    const page = assemblePage('b', from, plan, fetched, { withCursor: false, wanted: undefined });
    expect(page.expired).toBe(false);
    if (!page.expired) {
      expect(page.entries).toHaveLength(1);
      expect(page.next[3]).toBe(6);
    }
  });

  it('unwanted types are consumed, not returned', () => {
    const plan = [
      { lane: 1, seq: 1 },
      { lane: 1, seq: 2 },
    ];
    const fetched = [entry(1, 1, 1, 'employee.created'), entry(1, 2, 2, 'application.created')];
    const page = assemblePage('b', zero, plan, fetched, {
      withCursor: true,
      wanted: new Set(['application.created'] as const),
    });
    if (page.expired) throw new Error('unexpected');
    expect(page.entries.map((e) => e.type)).toEqual(['application.created']);
    expect(page.next[1]).toBe(2);
  });

  it('entries of other tokens are consumed, not returned; each returned entry carries its audit fields', () => {
    const plan = [1, 2, 3].map((seq) => ({ lane: 2, seq }));
    const fetched = [
      entry(2, 1, 1, 'employee.created', 'bbbbbbbbbbbb'),
      entry(2, 2, 2, 'employee.updated', 'aaaaaaaaaaaa'),
      { ...entry(2, 3, 3), audit: { actor: { type: 'admin' as const }, request_id: null } },
    ];
    const page = assemblePage('b', zero, plan, fetched, {
      withCursor: true,
      wanted: undefined,
      tokenId: 'aaaaaaaaaaaa',
    });
    if (page.expired) throw new Error('unexpected');
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      actor: { type: 'token', token_id: 'aaaaaaaaaaaa', token_name: 'sync' },
      request_id: 'req-2-2',
    });
    expect(page.next[2]).toBe(3);
  });
});

describe('audit fields', () => {
  it('actors survive their stored form', () => {
    const actors: Actor[] = [
      { type: 'token', token_id: '0123456789ab', token_name: 'payroll: sync' },
      { type: 'token', token_id: '0123456789ab', token_name: '' },
      ...SYSTEM_JOBS.map((name): Actor => ({ type: 'system', name })),
      { type: 'admin' },
    ];
    for (const actor of actors) expect(decodeActor(encodeActor(actor))).toEqual(actor);
    // Entries written before the audit fields existed.
    expect(decodeActor(undefined)).toEqual({ type: 'admin' });
    expect(decodeActor('sno_such_job')).toEqual({ type: 'admin' });
  });

  it('changed fields: sorted names of the values that differ, updated_at left out, objects by value', () => {
    expect(
      changedFields(
        { a: 1, b: 'x', c: null, d: { p: 1, q: 2 }, e: [1, 2], updated_at: '1' },
        { a: 1, b: 'y', c: null, d: { q: 2, p: 1 }, e: [2, 1], updated_at: '2', f: 0 },
      ),
    ).toEqual(['b', 'e', 'f']);
    expect(changedFields({ z: 1, a: 1 }, { z: 2, a: 2 })).toEqual(['a', 'z']);
    expect(changedFields({ a: null }, {})).toEqual([]);
  });
});

describe('retention start', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it('starts before the first entry of the day 30 days ago or later, at the end of an idle lane', () => {
    expect(startSeq({ n: 90, days: { d20261001: 1, d20261024: 40, d20261101: 60 } }, now)).toBe(39);
    expect(startSeq({ n: 90, days: { d20261001: 1 } }, now)).toBe(90);
    expect(startSeq({ n: 0, days: {} }, now)).toBe(0);
  });
  it('drops marks older than 35 days', () => {
    expect(staleDayMarks({ n: 9, days: { d20261001: 1, d20261020: 5 } }, now)).toEqual(['d20261001']);
    expect(dayMarkOf('2026-11-23T10:00:00.000Z')).toBe('d20261123');
  });
});

describe('types', () => {
  it('parses a comma list and names unknown types', () => {
    expect(parseTypes('application.created, employee.updated').unknown).toEqual([]);
    expect(parseTypes('application.created,employee.fired').unknown).toEqual(['employee.fired']);
    expect(parseTypes(undefined)).toEqual({ unknown: [] });
  });
});

import fc from 'fast-check';
import { DERIVED_JOB_FIELDS, addDays, daysToRun, effectiveChanges, shownDay } from '../../src/domain/effective-dates';
import { deriveJobFields, type JobSpan } from '../../src/domain/job-dates';
import { parseEffectiveCommand } from '../../scripts/lib/effective-command';

/** Days of a small window (2026-02-20 .. 2026-03-11: a month end and no leap day in between), so jobs meet often. */
const BASE = '2026-02-20';
const dayArb = fc.integer({ min: 0, max: 20 }).map((n) => addDays(BASE, n));
const jobsArb = fc
  .array(
    fc.record({
      from: dayArb,
      length: fc.option(fc.integer({ min: 0, max: 8 }), { nil: null }),
      supervisor_id: fc.constantFrom(null, 's1', 's2'),
      location_id: fc.constantFrom(null, 'l1', 'l2'),
      department_id: fc.constantFrom(null, 'd1'),
    }),
    { maxLength: 5 },
  )
  .map((raw) =>
    raw.map((j, i): JobSpan => ({
      id: `job-${i}`,
      seq: i + 1,
      from: j.from,
      to: j.length === null ? null : addDays(j.from, j.length),
      supervisor_id: j.supervisor_id,
      location_id: j.location_id,
      department_id: j.department_id,
    })),
  );

describe('calendar days', () => {
  it('addDays crosses month, year and leap-day boundaries like the calendar', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(() => addDays('2026-3-1', 1)).toThrow(RangeError);
  });

  it('addDays agrees with UTC date arithmetic and is undone by its opposite', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.integer({ min: -800, max: 800 }),
        (ms, n) => {
          const day = new Date(ms).toISOString().slice(0, 10);
          const expected = new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
          return addDays(day, n) === expected && addDays(addDays(day, n), -n) === day;
        },
      ),
    );
  });

  it('daysToRun: every day after the last done up to today, in order; today alone the first time; none when done', () => {
    expect(daysToRun(undefined, '2026-03-02')).toEqual(['2026-03-02']);
    expect(daysToRun('2026-02-27', '2026-03-02')).toEqual(['2026-02-28', '2026-03-01', '2026-03-02']);
    expect(daysToRun('2026-03-02', '2026-03-02')).toEqual([]);
    expect(daysToRun('2026-03-05', '2026-03-02')).toEqual([]);
    fc.assert(
      fc.property(dayArb, dayArb, (through, today) => {
        const days = daysToRun(through, today);
        if (through >= today) return days.length === 0;
        return (
          days[0] === addDays(through, 1) &&
          days[days.length - 1] === today &&
          days.every((d, i) => i === 0 || d === addDays(days[i - 1]!, 1))
        );
      }),
    );
  });
});

describe('what a day changes (contract §26)', () => {
  it('names every derived field', () => {
    expect(DERIVED_JOB_FIELDS).toEqual(Object.keys(deriveJobFields([], BASE)).sort());
    expect(DERIVED_JOB_FIELDS).toEqual(expect.arrayContaining(['supervisor_id', 'location_id', 'department_id']));
  });

  it('a leaver: the day after the last day of the only job, the current job and the active flags go', () => {
    const jobs: JobSpan[] = [
      {
        id: 'j',
        seq: 1,
        from: '2025-01-01',
        to: '2026-02-28',
        supervisor_id: 's',
        location_id: 'l',
        department_id: null,
      },
    ];
    expect(effectiveChanges(jobs, '2026-02-28', '2026-03-01')).toEqual([
      'current_employee_job_from',
      'current_employee_job_to',
      'has_active_employee_job',
      'has_active_or_future_employee_job',
    ]);
    // Already shown (a run or a write on that day or later): nothing.
    expect(effectiveChanges(jobs, '2026-03-01', '2026-03-01')).toEqual([]);
    expect(effectiveChanges(jobs, '2026-03-02', '2026-03-01')).toEqual([]);
  });

  it('exactly the fields whose derived value differs between the day shown and the day', () => {
    fc.assert(
      fc.property(jobsArb, dayArb, dayArb, (jobs, shown, day) => {
        const changes = effectiveChanges(jobs, shown, day);
        if (day <= shown) return changes.length === 0;
        const before = deriveJobFields(jobs, shown);
        const after = deriveJobFields(jobs, day);
        return JSON.stringify(changes) === JSON.stringify(DERIVED_JOB_FIELDS.filter((f) => before[f] !== after[f]));
      }),
    );
  });

  it('a day changes something only for an employee with a job starting that day or ending the day before (the index finds every one)', () => {
    fc.assert(
      fc.property(jobsArb, dayArb, (jobs, day) => {
        const changed = effectiveChanges(jobs, addDays(day, -1), day).length > 0;
        const indexed = jobs.some((j) => j.from === day || j.to === addDays(day, -1));
        return !changed || indexed;
      }),
    );
  });

  it('days applied one by one end where one jump ends: the last entry shows what today shows', () => {
    fc.assert(
      fc.property(jobsArb, dayArb, fc.integer({ min: 1, max: 10 }), (jobs, start, n) => {
        let shown = start;
        for (let i = 1; i <= n; i++) {
          const day = addDays(start, i);
          if (effectiveChanges(jobs, shown, day).length > 0) shown = day;
        }
        const end = addDays(start, n);
        return JSON.stringify(deriveJobFields(jobs, shown)) === JSON.stringify(deriveJobFields(jobs, end));
      }),
    );
  });
});

describe('the day an employee last entry shows', () => {
  const TZ = 'Europe/Rome';
  it('the effective day when the last write was the effective-date write', () => {
    const at = '2026-03-05T10:00:00.000Z';
    expect(shownDay({ updatedAt: at, effectiveDay: '2026-03-01', effectiveAt: at }, TZ)).toBe('2026-03-01');
  });

  it('the business day of a later write (Rome is UTC+1: 23:30 UTC is the next day there)', () => {
    expect(
      shownDay(
        { updatedAt: '2026-03-05T23:30:00.000Z', effectiveDay: '2026-03-01', effectiveAt: '2026-03-01T00:01:00.000Z' },
        TZ,
      ),
    ).toBe('2026-03-06');
    expect(
      shownDay({ updatedAt: '2026-03-05T22:59:59.000Z', effectiveDay: undefined, effectiveAt: undefined }, TZ),
    ).toBe('2026-03-05');
  });

  it('never earlier than a written effective day (a catch-up run wrote a later day at an earlier clock)', () => {
    expect(
      shownDay(
        { updatedAt: '2026-03-02T08:00:00.000Z', effectiveDay: '2026-03-04', effectiveAt: '2026-03-02T07:00:00.000Z' },
        TZ,
      ),
    ).toBe('2026-03-04');
  });
});

describe('npm run admin -- effective run (arguments)', () => {
  it('--now and --business, or one line naming the problem', () => {
    expect(parseEffectiveCommand(['run'], 5)).toEqual({ nowMs: 5 });
    expect(parseEffectiveCommand(['run', '--now', '2026-03-01T00:05:00+01:00', '--business', 'b'])).toEqual({
      nowMs: Date.parse('2026-02-28T23:05:00Z'),
      businessId: 'b',
    });
    expect(parseEffectiveCommand(['run', '--now', 'midnight'])).toMatch(/^effective: --now must be an ISO 8601/);
    expect(parseEffectiveCommand(['go'])).toBe('effective: the only subcommand is run');
    expect(parseEffectiveCommand(['run', '--business', ' '])).toBe('effective: --business needs an id');
  });
});

import { deriveJobFields, isValidTimezone, todayIn, type JobSpan } from '../../src/domain/job-dates';

const TODAY = '2026-06-15';

let nextSeq = 0;
function job(from: string, to: string | null, extra: Partial<JobSpan> = {}): JobSpan {
  nextSeq += 1;
  return {
    id: `job-${nextSeq}`,
    seq: nextSeq,
    from,
    to,
    supervisor_id: null,
    location_id: null,
    department_id: null,
    ...extra,
  };
}

describe('deriveJobFields (contract §4)', () => {
  it('no jobs: booleans false, every date and reference null', () => {
    expect(deriveJobFields([], TODAY)).toEqual({
      has_active_employee_job: false,
      has_active_or_future_employee_job: false,
      first_employee_job_from: null,
      first_employee_job_to: null,
      last_employee_job_from: null,
      last_employee_job_to: null,
      current_employee_job_from: null,
      current_employee_job_to: null,
      current_or_last_employee_job_from: null,
      current_or_last_employee_job_to: null,
      supervisor_id: null,
      location_id: null,
      department_id: null,
    });
  });

  it('a single current open-ended job is first, last, current and current-or-last', () => {
    const d = deriveJobFields(
      [job('2020-01-01', null, { supervisor_id: 's', location_id: 'l', department_id: 'd' })],
      TODAY,
    );
    expect(d).toEqual({
      has_active_employee_job: true,
      has_active_or_future_employee_job: true,
      first_employee_job_from: '2020-01-01',
      first_employee_job_to: null,
      last_employee_job_from: '2020-01-01',
      last_employee_job_to: null,
      current_employee_job_from: '2020-01-01',
      current_employee_job_to: null,
      current_or_last_employee_job_from: '2020-01-01',
      current_or_last_employee_job_to: null,
      supervisor_id: 's',
      location_id: 'l',
      department_id: 'd',
    });
  });

  it('only past jobs: not active, no current, current-or-last is the last', () => {
    const d = deriveJobFields(
      [
        job('2019-01-01', '2019-12-31', { location_id: 'old' }),
        job('2021-01-01', '2022-06-30', { location_id: 'newer' }),
      ],
      TODAY,
    );
    expect(d.has_active_employee_job).toBe(false);
    expect(d.has_active_or_future_employee_job).toBe(false);
    expect([d.first_employee_job_from, d.first_employee_job_to]).toEqual(['2019-01-01', '2019-12-31']);
    expect([d.last_employee_job_from, d.last_employee_job_to]).toEqual(['2021-01-01', '2022-06-30']);
    expect([d.current_employee_job_from, d.current_employee_job_to]).toEqual([null, null]);
    expect([d.current_or_last_employee_job_from, d.current_or_last_employee_job_to]).toEqual([
      '2021-01-01',
      '2022-06-30',
    ]);
    expect(d.location_id).toBe('newer');
  });

  it('only a future job: active-or-future, and current-or-last is that future job', () => {
    const d = deriveJobFields([job('2027-01-01', null, { department_id: 'kitchen' })], TODAY);
    expect(d.has_active_employee_job).toBe(false);
    expect(d.has_active_or_future_employee_job).toBe(true);
    expect(d.current_employee_job_from).toBeNull();
    expect(d.last_employee_job_from).toBe('2027-01-01');
    expect(d.current_or_last_employee_job_from).toBe('2027-01-01');
    expect(d.department_id).toBe('kitchen');
  });

  it('past, current and future: last is the future job, current-or-last prefers the current one', () => {
    const d = deriveJobFields(
      [
        job('2027-01-01', '2027-12-31', { supervisor_id: 'future-boss' }),
        job('2018-03-01', '2019-02-28', { supervisor_id: 'old-boss' }),
        job('2025-01-01', '2026-12-31', { supervisor_id: 'boss' }),
      ],
      TODAY,
    );
    expect(d.has_active_employee_job).toBe(true);
    expect(d.has_active_or_future_employee_job).toBe(true);
    expect(d.first_employee_job_from).toBe('2018-03-01');
    expect([d.last_employee_job_from, d.last_employee_job_to]).toEqual(['2027-01-01', '2027-12-31']);
    expect([d.current_employee_job_from, d.current_employee_job_to]).toEqual(['2025-01-01', '2026-12-31']);
    expect([d.current_or_last_employee_job_from, d.current_or_last_employee_job_to]).toEqual([
      '2025-01-01',
      '2026-12-31',
    ]);
    expect(d.supervisor_id).toBe('boss');
  });

  it('overlapping active jobs: current is the one with the latest from, whatever the input order', () => {
    const long = job('2020-01-01', null, { location_id: 'a' });
    const recent = job('2026-01-01', '2026-12-31', { location_id: 'b' });
    for (const jobs of [
      [long, recent],
      [recent, long],
    ]) {
      const d = deriveJobFields(jobs, TODAY);
      expect(d.current_employee_job_from).toBe('2026-01-01');
      expect(d.location_id).toBe('b');
      expect(d.first_employee_job_from).toBe('2020-01-01');
      expect(d.first_employee_job_to).toBeNull();
    }
  });

  it('a job ending today is still active', () => {
    const d = deriveJobFields([job('2026-01-01', TODAY)], TODAY);
    expect(d.has_active_employee_job).toBe(true);
    expect(d.current_employee_job_to).toBe(TODAY);
  });

  it('a job that ended yesterday is not active', () => {
    const d = deriveJobFields([job('2026-01-01', '2026-06-14')], TODAY);
    expect(d.has_active_employee_job).toBe(false);
    expect(d.has_active_or_future_employee_job).toBe(false);
  });

  it('a job starting today is active (current, not future)', () => {
    const d = deriveJobFields([job(TODAY, null)], TODAY);
    expect(d.has_active_employee_job).toBe(true);
    expect(d.current_employee_job_from).toBe(TODAY);
  });

  it('a one-day job on today is active', () => {
    expect(deriveJobFields([job(TODAY, TODAY)], TODAY).has_active_employee_job).toBe(true);
  });

  it('a job starting tomorrow is future only', () => {
    const d = deriveJobFields([job('2026-06-16', null)], TODAY);
    expect(d.has_active_employee_job).toBe(false);
    expect(d.has_active_or_future_employee_job).toBe(true);
  });

  it('the derivation moves with today, without any change to the jobs', () => {
    const jobs = [
      job('2026-07-01', '2026-07-31', { location_id: 'summer' }),
      job('2026-01-01', '2026-06-30', { location_id: 'spring' }),
    ];
    expect(deriveJobFields(jobs, '2026-06-30').location_id).toBe('spring');
    expect(deriveJobFields(jobs, '2026-07-01').location_id).toBe('summer');
    expect(deriveJobFields(jobs, '2026-08-01')).toMatchObject({
      has_active_employee_job: false,
      location_id: 'summer',
    });
  });

  describe('ties on from go to the job created later', () => {
    const a = { id: 'a', from: '2026-01-01', supervisor_id: null, location_id: null, department_id: null };

    it('for current (both active) regardless of input order', () => {
      const older: JobSpan = { ...a, id: 'older', seq: 1, to: '2026-12-31', location_id: 'older' };
      const newer: JobSpan = { ...a, id: 'newer', seq: 2, to: null, location_id: 'newer' };
      for (const jobs of [
        [older, newer],
        [newer, older],
      ]) {
        const d = deriveJobFields(jobs, TODAY);
        expect(d.current_employee_job_to).toBeNull();
        expect(d.location_id).toBe('newer');
      }
    });

    it('for last (both in the past) and for first', () => {
      const older: JobSpan = { ...a, id: 'older', seq: 7, to: '2026-02-01', department_id: 'x' };
      const newer: JobSpan = { ...a, id: 'newer', seq: 9, to: '2026-03-01', department_id: 'y' };
      for (const jobs of [
        [older, newer],
        [newer, older],
      ]) {
        const d = deriveJobFields(jobs, TODAY);
        expect(d.first_employee_job_to).toBe('2026-03-01');
        expect(d.last_employee_job_to).toBe('2026-03-01');
        expect(d.current_or_last_employee_job_to).toBe('2026-03-01');
        expect(d.department_id).toBe('y');
      }
    });

    it('for first when the earliest from is shared but the latest is not', () => {
      const jobs: JobSpan[] = [
        { ...a, id: 'p', seq: 3, from: '2020-01-01', to: '2020-05-01' },
        { ...a, id: 'q', seq: 2, from: '2020-01-01', to: '2020-09-01' },
        { ...a, id: 'r', seq: 1, from: '2024-01-01', to: null },
      ];
      const d = deriveJobFields(jobs, TODAY);
      expect(d.first_employee_job_to).toBe('2020-05-01');
      expect(d.last_employee_job_from).toBe('2024-01-01');
    });

    it('seq decides, not the position in the input', () => {
      const jobs: JobSpan[] = [
        { ...a, id: 'b', seq: 10, to: null, supervisor_id: 'ten' },
        { ...a, id: 'c', seq: 2, to: null, supervisor_id: 'two' },
        { ...a, id: 'd', seq: 5, to: null, supervisor_id: 'five' },
      ];
      expect(deriveJobFields(jobs, TODAY).supervisor_id).toBe('ten');
    });
  });

  it('a later from wins over a later creation', () => {
    const d = deriveJobFields(
      [
        job('2025-06-01', null, { supervisor_id: 'late-start' }),
        job('2024-01-01', null, { supervisor_id: 'created-later' }),
      ],
      TODAY,
    );
    expect(d.supervisor_id).toBe('late-start');
  });

  it('current-or-last takes null references from the chosen job, not from another one', () => {
    const d = deriveJobFields([job('2020-01-01', null, { supervisor_id: 's' }), job('2026-01-01', null)], TODAY);
    expect(d.supervisor_id).toBeNull();
  });

  it('an active past-started job beats a later future job for current-or-last', () => {
    const d = deriveJobFields(
      [job('2020-01-01', null, { location_id: 'now' }), job('2030-01-01', null, { location_id: 'later' })],
      TODAY,
    );
    expect(d.current_or_last_employee_job_from).toBe('2020-01-01');
    expect(d.last_employee_job_from).toBe('2030-01-01');
    expect(d.location_id).toBe('now');
  });

  it('does not modify its input', () => {
    const jobs = Object.freeze([Object.freeze(job('2020-01-01', null)), Object.freeze(job('2021-01-01', null))]);
    expect(() => deriveJobFields(jobs, TODAY)).not.toThrow();
  });
});

describe('todayIn', () => {
  // Kiritimati is UTC+14 and Pago Pago UTC-11 all year: at one instant they are 25 hours apart.
  it('Pacific/Kiritimati is already on the next day from 10:00 UTC', () => {
    expect(todayIn('Pacific/Kiritimati', new Date('2026-03-01T09:59:59.999Z'))).toBe('2026-03-01');
    expect(todayIn('Pacific/Kiritimati', new Date('2026-03-01T10:00:00.000Z'))).toBe('2026-03-02');
  });

  it('Pacific/Pago_Pago is still on the previous day until 11:00 UTC', () => {
    expect(todayIn('Pacific/Pago_Pago', new Date('2026-03-01T10:59:59.999Z'))).toBe('2026-02-28');
    expect(todayIn('Pacific/Pago_Pago', new Date('2026-03-01T11:00:00.000Z'))).toBe('2026-03-01');
  });

  it('the same instant is two different dates on either side of the date line', () => {
    const now = new Date('2026-12-31T10:30:00Z');
    expect(todayIn('Pacific/Kiritimati', now)).toBe('2027-01-01');
    expect(todayIn('Pacific/Pago_Pago', now)).toBe('2026-12-30');
    expect(todayIn('UTC', now)).toBe('2026-12-31');
  });

  it('follows DST: Europe/Rome midnight is 23:00 UTC in winter and 22:00 UTC in summer', () => {
    expect(todayIn('Europe/Rome', new Date('2026-01-10T22:59:59Z'))).toBe('2026-01-10');
    expect(todayIn('Europe/Rome', new Date('2026-01-10T23:00:00Z'))).toBe('2026-01-11');
    expect(todayIn('Europe/Rome', new Date('2026-07-10T21:59:59Z'))).toBe('2026-07-10');
    expect(todayIn('Europe/Rome', new Date('2026-07-10T22:00:00Z'))).toBe('2026-07-11');
  });

  it('handles a leap day', () => {
    expect(todayIn('Pacific/Kiritimati', new Date('2028-02-28T12:00:00Z'))).toBe('2028-02-29');
  });

  it('defaults to now and always answers YYYY-MM-DD', () => {
    const today = todayIn('Europe/Rome');
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const utc = new Date().toISOString().slice(0, 10);
    const diffDays = Math.abs(Date.parse(today) - Date.parse(utc)) / 86_400_000;
    expect(diffDays).toBeLessThanOrEqual(1);
  });

  it('repeated calls (cached formatter) keep answering for each zone', () => {
    const now = new Date('2026-03-01T10:30:00Z');
    for (let i = 0; i < 3; i++) {
      expect(todayIn('Pacific/Kiritimati', now)).toBe('2026-03-02');
      expect(todayIn('Pacific/Pago_Pago', now)).toBe('2026-02-28');
    }
  });

  it('throws for an unknown zone', () => {
    expect(() => todayIn('Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('isValidTimezone', () => {
  it.each(['Europe/Rome', 'America/New_York', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC', 'Asia/Kolkata'])(
    'accepts %s',
    (tz) => expect(isValidTimezone(tz)).toBe(true),
  );
  it.each(['', 'Mars/Olympus_Mons', 'Europe/Atlantis', '+01:00', '-05:00', 'Europe/Rome ', ' ', '123'])(
    'rejects %p',
    (tz) => expect(isValidTimezone(tz)).toBe(false),
  );
  it('rejects a non-string', () => expect(isValidTimezone(undefined as unknown as string)).toBe(false));
});

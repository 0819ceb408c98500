import { sinceOf } from '../../src/domain/application-pages';
import { application } from '../../src/data/entities/application';

describe('since parameters', () => {
  it.each([
    ['2026-11-22', '2026-11-22T00:00:00.000Z'],
    ['2026-11-22T08:15:30Z', '2026-11-22T08:15:30.000Z'],
    ['2026-11-22T08:15:30.1Z', '2026-11-22T08:15:30.100Z'],
    ['2026-11-22T08:15:30.123Z', '2026-11-22T08:15:30.123Z'],
    ['2026-11-22T08:15:30.1230Z', '2026-11-22T08:15:30.123Z'],
    ['2026-11-22T08:15:30.1231Z', '2026-11-22T08:15:30.124Z'],
    ['2026-11-22T10:15:30+02:00', '2026-11-22T08:15:30.000Z'],
    ['2026-11-22T10:15:30.5+0200', '2026-11-22T08:15:30.500Z'],
  ])('%s -> %s', (input, expected) => {
    expect(sinceOf(input)).toBe(expected);
  });

  it.each(['yesterday', '2026-13-01', '2026-02-30', '2026-11-22T08:15:30', '2026-11-22T25:00:00Z', '', '12345'])(
    '%s is malformed',
    (input) => {
      expect(sinceOf(input)).toBeUndefined();
    },
  );
});

describe('job list names', () => {
  it('keeps speculative applications apart from any job id, even "null"', () => {
    expect(application.lists.ofJob(null)).not.toBe(application.lists.ofJob('null'));
    expect(application.lists.ofJob('cook')).toBe('applications-of-job:cook');
  });
});

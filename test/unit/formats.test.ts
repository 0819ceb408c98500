import {
  isBic,
  isCountryCode,
  isDate,
  isHttpUrl,
  isIban,
  normalizeIban,
  parseTimestamp,
} from '../../src/domain/formats';

describe('isDate', () => {
  it.each(['2024-02-29', '2023-12-31', '2026-01-01'])('accepts %s', (d) => expect(isDate(d)).toBe(true));
  it.each(['2023-02-29', '2023-02-30', '2023-13-01', '2023-00-10', '2023-1-1', '20230101', '2023-04-31', ''])(
    'rejects %s',
    (d) => expect(isDate(d)).toBe(false),
  );
});

describe('parseTimestamp (query parameters, contract §2)', () => {
  it('a bare date is its start in UTC', () => expect(parseTimestamp('2026-11-22')).toBe(Date.UTC(2026, 10, 22)));
  it('Z with and without fraction', () => {
    expect(parseTimestamp('2026-11-22T08:15:30Z')).toBe(Date.UTC(2026, 10, 22, 8, 15, 30));
    expect(parseTimestamp('2026-11-22T08:15:30.123Z')).toBe(Date.UTC(2026, 10, 22, 8, 15, 30, 123));
  });
  it('offsets are applied', () => {
    expect(parseTimestamp('2026-11-22T09:15:30+01:00')).toBe(Date.UTC(2026, 10, 22, 8, 15, 30));
    expect(parseTimestamp('2026-11-22T09:15:30+0100')).toBe(Date.UTC(2026, 10, 22, 8, 15, 30));
  });
  it.each([
    '2026-11-22T08:15:30',
    'yesterday',
    '2026-02-30T00:00:00Z',
    '2026-11-22T25:00:00Z',
    '2026-11-22 08:15:30Z',
    '',
  ])('rejects %s', (v) => expect(parseTimestamp(v)).toBeUndefined());
});

describe('IBAN, BIC, country, URL', () => {
  it('checks the IBAN checksum, spaces and case allowed', () => {
    expect(isIban('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(isIban('it60x0542811101000000123456')).toBe(true);
    expect(isIban('DE89 3704 0044 0532 0130 01')).toBe(false);
    expect(isIban('XX89370400440532013000')).toBe(false);
    expect(normalizeIban('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
  });
  it('BIC has 8 or 11 characters with a real country', () => {
    expect(isBic('DEUTDEFF')).toBe(true);
    expect(isBic('DEUTDEFF500')).toBe(true);
    expect(isBic('DEUTDEF')).toBe(false);
    expect(isBic('DEUTXXFF')).toBe(false);
  });
  it('country codes are ISO 3166-1 alpha-2 upper case', () => {
    expect(isCountryCode('IT')).toBe(true);
    expect(isCountryCode('it')).toBe(false);
    expect(isCountryCode('ZZ')).toBe(false);
  });
  it('photo URLs are absolute http(s)', () => {
    expect(isHttpUrl('https://cdn.example.com/a.png')).toBe(true);
    expect(isHttpUrl('ftp://example.com/a.png')).toBe(false);
    expect(isHttpUrl('/relative.png')).toBe(false);
    expect(isHttpUrl('javascript:alert(1)')).toBe(false);
  });
});

import demo from '../../fixtures/demo.json';
import { buildBusiness } from '../../src/domain/fixture';
import Ajv2020 from 'ajv/dist/2020';
import { LOCALES } from '../../src/domain/business';
import { fixtureSchema, parseFixture } from '../../src/schemas/fixture';

const base = { business: { id: 'b', name: 'B', locales: ['de', 'en'], timezone: 'Europe/Vienna' } };

describe('parseFixture', () => {
  it('compiles a schema that is valid JSON Schema 2020-12 (parseFixture skips the meta-schema check)', () => {
    const meta = new Ajv2020({ strict: true, allowUnionTypes: true });
    for (const locales of [['en'], ['de', 'it'], [...LOCALES]] as const)
      expect(meta.validateSchema(fixtureSchema(locales))).toBe(true);
    expect(meta.validateSchema({ type: 'objet' })).toBe(false);
  });

  it('accepts the demo fixture', () => expect(parseFixture(demo)).toMatchObject({ ok: true }));

  it('takes application_retention_days (whole days, or null = keep) into the business config', () => {
    for (const days of [30, null]) {
      const result = parseFixture({ ...base, business: { ...base.business, application_retention_days: days } });
      if (!result.ok) throw new Error(result.problems.join('; '));
      expect(buildBusiness(result.fixture).config.application_retention_days).toBe(days);
    }
    for (const days of [0, 1.5, '30', 36_501]) {
      const result = parseFixture({ ...base, business: { ...base.business, application_retention_days: days } });
      expect(result.ok).toBe(false);
    }
  });

  it('takes token_rate_limit and rate_limit (N 1..100000 per W 10..3600 s) into the config, refuses anything else (contract §18)', () => {
    const limit = { requests: 100_000, window_seconds: 3600 };
    const result = parseFixture({
      ...base,
      business: { ...base.business, token_rate_limit: limit, rate_limit: limit },
    });
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(buildBusiness(result.fixture).config).toMatchObject({ token_rate_limit: limit, rate_limit: limit });
    for (const key of ['token_rate_limit', 'rate_limit'])
      for (const bad of [
        { requests: 0, window_seconds: 60 },
        { requests: 100_001, window_seconds: 60 },
        { requests: 10, window_seconds: 0 },
        { requests: 10, window_seconds: 9 },
        { requests: 10, window_seconds: 3601 },
        { requests: 1.5, window_seconds: 60 },
        { requests: 10 },
        { requests: 10, window_seconds: 60, burst: 5 },
        '600/60',
      ]) {
        const refused = parseFixture({ ...base, business: { ...base.business, [key]: bad } });
        expect({ key, bad, ok: refused.ok }).toEqual({ key, bad, ok: false });
        if (!refused.ok) expect(refused.problems.join('\n')).toContain(key);
      }
  });

  it('a fixture with only a business is complete (lists default to empty)', () => {
    const result = parseFixture(base);
    expect(result.ok).toBe(true);
  });

  it.each([
    [{ ...base, locations: [{ id: 'l', name_it: 'x' }] }, 'locations[0] (id "l"): unknown key "name_it"'],
    [{ ...base, departments: [{ id: 'd', colour: 'red' }] }, 'departments[0] (id "d"): unknown key "colour"'],
    [
      { ...base, business: { ...base.business, timezone: 'Mars/Base' } },
      'business: timezone "Mars/Base" is not an IANA time zone',
    ],
    [{ ...base, employee_fields: [{ id: 'abc', type_of: 'text' }] }, 'employee_fields[0] (id "abc") id'],
    [
      { ...base, employee_fields: [{ id: '1', type_of: 'select_single' }] },
      'employee_fields[0] (id "1"): a select field needs',
    ],
    [{ ...base, employee_payout_fields: [{ id: 'x', type_of: 'currency' }] }, 'needs a numeric id'],
    [
      {
        ...base,
        locations: [
          { id: 'a', parent_id: 'b' },
          { id: 'b', parent_id: 'a' },
        ],
      },
      'cycle',
    ],
    [{ business: { id: 'b', name: 'B', locales: [], timezone: 'UTC' } }, 'business.locales'],
  ])('refuses %j naming the entry', (fixture, expected) => {
    const result = parseFixture(fixture);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.join('\n')).toContain(expected);
  });
});

describe('buildBusiness', () => {
  it('precomputes the location tree and payout accessors; default statuses', () => {
    const parsed = parseFixture(demo);
    if (!parsed.ok) throw new Error('demo fixture invalid');
    const { config, records } = buildBusiness(parsed.fixture);
    expect(config.default_employee_status_id).toBe('active');
    expect(config.location_ids).toEqual(['hq', 'restaurant', 'terrace', 'spa']);
    const spa = records.find((r) => r.kind === 'location' && r.id === 'spa');
    expect(spa?.fields).toMatchObject({ depth: 1, ancestor_ids: ['hq'], has_public_name: true, is_sub_business: true });
    const gross = records.find((r) => r.kind === 'payout_field' && r.id === '42');
    expect(gross?.fields).toMatchObject({ accessor: 'gross', values: null });
  });
});

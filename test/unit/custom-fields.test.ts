import fc from 'fast-check';
import {
  CUSTOM_FIELD_TYPES,
  accessorOf,
  coerceCustomValue,
  isCustomKey,
  renderCustomFields,
  roundCurrency,
  validateCustomFields,
  type CustomFieldDefinition,
  type CustomFieldType,
} from '../../src/domain/custom-fields';

const OPTIONS = [
  { id: 'a', label_de: 'A' },
  { id: 'b', label_de: 'B' },
  { id: 'c', label_de: null },
];

function def(id: string, type_of: CustomFieldType, required = false): CustomFieldDefinition {
  const select = type_of.startsWith('select_');
  return { id, type_of, required, values: select ? OPTIONS : null, accessor: `cf_${id}`, name_de: `Feld ${id}` };
}

const ok = (value: unknown) => ({ ok: true, value });
const INVALID = { ok: false, message: 'is invalid' };
const NOT_INCLUDED = { ok: false, message: 'is not included in the list' };

describe('keys', () => {
  it('accessorOf', () => expect(accessorOf('12')).toBe('cf_12'));
  it.each(['cf_1', 'cf_12', 'cf_007'])('%s is a custom key', (k) => expect(isCustomKey(k)).toBe(true));
  it.each(['cf_', 'cf_a', 'cf_1a', 'xcf_1', 'cf_1 ', 'CF_1', 'cf_-1', 'first_name'])('%p is not', (k) =>
    expect(isCustomKey(k)).toBe(false),
  );
  it('lists the ten types', () =>
    expect([...CUSTOM_FIELD_TYPES].sort()).toEqual([
      'checkbox',
      'currency',
      'date',
      'datetime',
      'float',
      'integer',
      'select_multiple',
      'select_radio',
      'select_single',
      'text',
    ]));
});

describe('coerceCustomValue', () => {
  it.each(CUSTOM_FIELD_TYPES)('null clears a %s field', (type) =>
    expect(coerceCustomValue(def('1', type), null)).toEqual(ok(null)),
  );

  describe('text', () => {
    const d = def('1', 'text');
    it('accepts strings, the empty one included', () => {
      expect(coerceCustomValue(d, 'hello')).toEqual(ok('hello'));
      expect(coerceCustomValue(d, '')).toEqual(ok(''));
    });
    it('accepts exactly 10,000 characters, counting an emoji as one', () => {
      expect(coerceCustomValue(d, 'x'.repeat(10_000))).toEqual(ok('x'.repeat(10_000)));
      const emoji = '😀'.repeat(10_000); // 20,000 UTF-16 units
      expect(coerceCustomValue(d, emoji).ok).toBe(true);
    });
    it('rejects 10,001 characters', () => {
      expect(coerceCustomValue(d, 'x'.repeat(10_001))).toEqual(INVALID);
      expect(coerceCustomValue(d, '😀'.repeat(10_001))).toEqual(INVALID);
    });
    it.each([42, true, ['a'], { a: 1 }])('rejects %p', (v) => expect(coerceCustomValue(d, v)).toEqual(INVALID));
  });

  describe('currency', () => {
    const d = def('1', 'currency');
    it.each([
      [12, 12],
      [12.5, 12.5],
      [1.005, 1.01],
      [1.004, 1],
      [1.015, 1.02],
      [2.675, 2.68],
      [8.345, 8.35],
      [-1.005, -1.01],
      [-2.5, -2.5],
      [0.125, 0.13],
      [-0.125, -0.13],
      [0.005, 0.01],
      [-0.004, 0],
      [1234567.895, 1234567.9],
      [0.1 + 0.2, 0.3],
      [1e-7, 0],
      [1e-200, 0],
      [999999999999999.8, 999999999999999.8],
      [-999999999999999.8, -999999999999999.8],
    ])('%p is stored as %p', (input, expected) => expect(coerceCustomValue(d, input)).toEqual(ok(expected)));
    it('never returns -0', () => {
      const r = coerceCustomValue(d, -0.001);
      expect(r.ok && Object.is(r.value, 0)).toBe(true);
    });
    it.each(['12.50', NaN, Infinity, -Infinity, true, [1], {}, 1e15, -1e15, 1e20, 1e21])('rejects %p', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(INVALID),
    );
    it('accepts exactly the numbers below 10^15 and stores what reads back: at most 2 decimals, stable', () => {
      fc.assert(
        fc.property(fc.double(), (x) => {
          const r = coerceCustomValue(d, x);
          expect(r.ok).toBe(Number.isFinite(x) && Math.abs(x) < 1e15);
          if (!r.ok) return;
          const stored = r.value as number;
          expect(Math.abs(stored)).toBeLessThan(1e15);
          expect(Number(stored.toFixed(2))).toBe(stored);
          expect(JSON.parse(JSON.stringify(stored))).toBe(stored);
          expect(coerceCustomValue(d, stored)).toEqual(ok(stored));
        }),
        { numRuns: 2000 },
      );
    });
  });

  describe('roundCurrency', () => {
    it('rounds half away from zero on the decimal written', () => {
      expect(roundCurrency(10.235)).toBe(10.24);
      expect(roundCurrency(-10.235)).toBe(-10.24);
      expect(roundCurrency(1.45)).toBe(1.45);
      expect(roundCurrency(99.999)).toBe(100);
    });
    it('matches exact decimal rounding for any amount written with 3 decimals', () => {
      // The reference works on the digits as an integer, so it has no float artefacts to hide.
      fc.assert(
        fc.property(fc.integer({ min: -9_999_999_999, max: 9_999_999_999 }), (thousandths) => {
          const sign = thousandths < 0 ? '-' : '';
          const abs = Math.abs(thousandths);
          const written = `${sign}${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, '0')}`;
          const cents = Math.floor(abs / 10) + (abs % 10 >= 5 ? 1 : 0);
          const expected = Number(`${sign}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`) || 0;
          expect(roundCurrency(Number(written))).toBe(expected);
        }),
        { numRuns: 2000 },
      );
    });
    it('is idempotent', () => {
      fc.assert(
        fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), (x) => {
          const once = roundCurrency(x);
          expect(roundCurrency(once)).toBe(once);
        }),
      );
    });
    it('leaves numbers beyond 2^52 alone', () => expect(roundCurrency(2 ** 53)).toBe(2 ** 53));
    it('handles numbers printed in exponent form', () => {
      expect(roundCurrency(1.5e-3)).toBe(0);
      expect(roundCurrency(5e-3)).toBe(0.01);
      expect(roundCurrency(1.23456e15)).toBe(1.23456e15);
    });
  });

  describe('integer', () => {
    const d = def('1', 'integer');
    it.each([0, -3, 42, 2 ** 53 - 1, -(2 ** 53 - 1), 5.0])('accepts %p', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(ok(v)),
    );
    it.each([1.5, 2 ** 53, -(2 ** 53), 2 ** 60, 1e300, NaN, Infinity, '3', true])('rejects %p', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(INVALID),
    );
    it('accepts exactly the whole numbers of magnitude up to 2^53 - 1, unchanged', () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger(), fc.constantFrom(2 ** 53, 2 ** 60)),
          (x) => {
            const r = coerceCustomValue(d, x);
            expect(r).toEqual(Number.isInteger(x) && Math.abs(x) <= 2 ** 53 - 1 ? ok(x) : INVALID);
          },
        ),
        { numRuns: 2000 },
      );
    });
  });

  describe('float', () => {
    const d = def('1', 'float');
    it.each([0, -3, 1.234567, 0.000001, 123456789012345.6, -999999999999999.9])('accepts %p unchanged', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(ok(v)),
    );
    it.each([NaN, Infinity, '1.5', false, [], 1.2345678, 1e-7, 1e-200, 1e15, -1e15, 1e300])('rejects %p', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(INVALID),
    );
    it('accepts every decimal below 10^15 written with at most 6 places, unchanged', () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: -(10n ** 21n) + 1n, max: 10n ** 21n - 1n }),
          fc.integer({ min: 0, max: 6 }),
          (units, places) => {
            // units / 10^places, written as a decimal the way a client would.
            const sign = units < 0n ? '-' : '';
            const digits = (units < 0n ? -units : units).toString().padStart(places + 1, '0');
            const written = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
            const x = Number(`${sign}${written}`);
            fc.pre(Math.abs(x) < 1e15);
            expect(coerceCustomValue(d, x)).toEqual(ok(x));
          },
        ),
        { numRuns: 2000 },
      );
    });
    it('rejects decimals with a 7th significant place and anything DynamoDB could not store', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 7, max: 300 }), (mantissa, places) => {
          fc.pre(mantissa % 10 !== 0);
          expect(coerceCustomValue(d, Number(`${mantissa}e-${places}`))).toEqual(INVALID);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe.each(['select_single', 'select_radio'] as const)('%s', (type) => {
    const d = def('1', type);
    it('accepts a value id', () => expect(coerceCustomValue(d, 'b')).toEqual(ok('b')));
    it('a string that is no value id is not included in the list', () => {
      expect(coerceCustomValue(d, 'z')).toEqual(NOT_INCLUDED);
      expect(coerceCustomValue(d, '')).toEqual(NOT_INCLUDED);
      expect(coerceCustomValue(d, 'A')).toEqual(NOT_INCLUDED); // a label is not an id
    });
    it.each([1, true, ['a'], { id: 'a' }])('a non-string %p is invalid', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(INVALID),
    );
    it('a definition without values accepts nothing', () =>
      expect(coerceCustomValue({ ...d, values: null }, 'a')).toEqual(NOT_INCLUDED));
  });

  describe('select_multiple', () => {
    const d = def('1', 'select_multiple');
    it('accepts distinct ids, keeping their order', () => {
      expect(coerceCustomValue(d, ['c', 'a'])).toEqual(ok(['c', 'a']));
      expect(coerceCustomValue(d, ['a'])).toEqual(ok(['a']));
    });
    it('accepts an empty array', () => expect(coerceCustomValue(d, [])).toEqual(ok([])));
    it('returns a copy, not the input array', () => {
      const input = ['a', 'b'];
      const r = coerceCustomValue(d, input);
      expect(r.ok && r.value).not.toBe(input);
    });
    it('an unknown id is not included in the list', () =>
      expect(coerceCustomValue(d, ['a', 'zz'])).toEqual(NOT_INCLUDED));
    it('a repeated id is invalid', () => expect(coerceCustomValue(d, ['a', 'b', 'a'])).toEqual(INVALID));
    it.each(['a', ['a', 1], [null], [['a']], { 0: 'a' }, true])('%p is invalid', (v) =>
      expect(coerceCustomValue(d, v)).toEqual(INVALID),
    );
  });

  describe('checkbox', () => {
    const d = def('1', 'checkbox');
    it.each([true, false])('accepts %p', (v) => expect(coerceCustomValue(d, v)).toEqual(ok(v)));
    it.each(['true', 1, 0, 'yes'])('rejects %p', (v) => expect(coerceCustomValue(d, v)).toEqual(INVALID));
  });

  describe('date', () => {
    const d = def('1', 'date');
    it.each(['2024-02-29', '2026-12-31'])('accepts %s', (v) => expect(coerceCustomValue(d, v)).toEqual(ok(v)));
    it.each(['2023-02-29', '2023-02-30', '2026-13-01', '2026-1-1', '2026-11-22T00:00:00Z', '', 20260101])(
      'rejects %p',
      (v) => expect(coerceCustomValue(d, v)).toEqual(INVALID),
    );
  });

  describe('datetime', () => {
    const d = def('1', 'datetime');
    it.each([
      ['2026-11-22T08:15:30.123Z', '2026-11-22T08:15:30.123Z'],
      ['2026-11-22T08:15:30Z', '2026-11-22T08:15:30.000Z'],
      ['2026-11-22T08:15Z', '2026-11-22T08:15:00.000Z'],
      ['2026-11-22T09:15:30+01:00', '2026-11-22T08:15:30.000Z'],
      ['2026-11-22T09:15:30+0100', '2026-11-22T08:15:30.000Z'],
      ['2026-11-22T01:00:00-08:00', '2026-11-22T09:00:00.000Z'],
      ['2026-11-23T00:30:00+14:00', '2026-11-22T10:30:00.000Z'],
      ['2026-11-22T08:15:30.123456Z', '2026-11-22T08:15:30.123Z'],
      ['2026-11-22t08:15:30z', '2026-11-22T08:15:30.000Z'],
    ])('%s is stored as %s', (input, expected) => expect(coerceCustomValue(d, input)).toEqual(ok(expected)));
    it.each([
      '2026-11-22', // a bare date is a query convenience, not a datetime value
      '2026-11-22T08:15:30', // no offset
      '2026-02-30T08:15:30Z',
      '2026-11-22T24:00:00Z',
      '2026-11-22 08:15:30Z',
      'yesterday',
      '',
      1764000000000,
    ])('rejects %p', (v) => expect(coerceCustomValue(d, v)).toEqual(INVALID));
  });

  it('a definition of an unknown type accepts nothing but null', () => {
    const odd = { ...def('1', 'text'), type_of: 'color' as CustomFieldType };
    expect(coerceCustomValue(odd, '#fff')).toEqual(INVALID);
    expect(coerceCustomValue(odd, null)).toEqual(ok(null));
  });
});

describe('validateCustomFields', () => {
  const defs = [
    def('1', 'text'),
    def('2', 'currency', true),
    def('3', 'select_single'),
    def('4', 'select_multiple', true),
  ];

  function run(input: Record<string, unknown>, mode: 'create' | 'update', list = defs) {
    const errors: Record<string, string[]> = {};
    const values = validateCustomFields(list, input, mode, (field, message) => (errors[field] ??= []).push(message));
    return { values, errors };
  }

  it('create: normalizes valid values and returns only the keys sent', () => {
    expect(run({ cf_2: 1.005, cf_4: ['b', 'a'], cf_3: null }, 'create')).toEqual({
      values: { cf_2: 1.01, cf_4: ['b', 'a'], cf_3: null },
      errors: {},
    });
  });

  it('create: every required field that is absent is blank', () => {
    expect(run({ cf_1: 'x' }, 'create')).toEqual({
      values: { cf_1: 'x' },
      errors: { cf_2: ["can't be blank"], cf_4: ["can't be blank"] },
    });
  });

  it('create: required fields sent as null, empty, whitespace or [] are blank', () => {
    expect(run({ cf_2: null, cf_4: [] }, 'create').errors).toEqual({
      cf_2: ["can't be blank"],
      cf_4: ["can't be blank"],
    });
    const textRequired = [def('9', 'text', true)];
    expect(run({ cf_9: '' }, 'create', textRequired).errors).toEqual({ cf_9: ["can't be blank"] });
    expect(run({ cf_9: '  \n' }, 'create', textRequired).errors).toEqual({ cf_9: ["can't be blank"] });
    expect(run({ cf_9: undefined }, 'create', textRequired).errors).toEqual({ cf_9: ["can't be blank"] });
  });

  it('create: a required field with a wrong value is invalid, reported once, not also blank', () => {
    expect(run({ cf_2: 'ten', cf_4: ['a'] }, 'create').errors).toEqual({ cf_2: ['is invalid'] });
  });

  it('reports every failing key at once, each with its message', () => {
    const { values, errors } = run({ cf_1: 5, cf_2: 3, cf_3: 'zz', cf_4: ['a', 'a'], cf_99: 'x' }, 'create');
    expect(errors).toEqual({
      cf_1: ['is invalid'],
      cf_3: ['is not included in the list'],
      cf_4: ['is invalid'],
      cf_99: ['is not a known field'],
    });
    expect(values).toEqual({ cf_2: 3 });
  });

  it('a cf_ key without a definition is not a known field, in either mode', () => {
    expect(run({ cf_5: null }, 'update').errors).toEqual({ cf_5: ['is not a known field'] });
    expect(run({ cf_01: 'x' }, 'update').errors).toEqual({ cf_01: ['is not a known field'] });
  });

  it('keys that are not of the cf_{digits} form are left to the caller', () => {
    expect(run({ first_name: 'Ann', cf_abc: 1 }, 'update')).toEqual({ values: {}, errors: {} });
  });

  it('update: absent required fields are left alone', () => {
    expect(run({ cf_1: 'changed' }, 'update')).toEqual({ values: { cf_1: 'changed' }, errors: {} });
    expect(run({}, 'update')).toEqual({ values: {}, errors: {} });
  });

  it('update: a required field sent as null or blank cannot be cleared', () => {
    expect(run({ cf_2: null, cf_4: [] }, 'update').errors).toEqual({
      cf_2: ["can't be blank"],
      cf_4: ["can't be blank"],
    });
  });

  it('update: an optional field can be cleared', () => {
    expect(run({ cf_1: null, cf_3: null }, 'update')).toEqual({ values: { cf_1: null, cf_3: null }, errors: {} });
  });

  it('an optional text may be the empty string', () => {
    expect(run({ cf_1: '' }, 'update')).toEqual({ values: { cf_1: '' }, errors: {} });
  });

  it('a required checkbox may be false (false is a value, not a blank)', () => {
    const list = [def('7', 'checkbox', true), def('8', 'integer', true)];
    expect(run({ cf_7: false, cf_8: 0 }, 'create', list)).toEqual({ values: { cf_7: false, cf_8: 0 }, errors: {} });
  });

  it('an undefined value of an optional field is stored as null', () => {
    expect(run({ cf_1: undefined }, 'update')).toEqual({ values: { cf_1: null }, errors: {} });
  });

  it('without definitions every cf key is unknown and nothing is required', () => {
    expect(run({ cf_1: 'x' }, 'create', [])).toEqual({ values: {}, errors: { cf_1: ['is not a known field'] } });
    expect(run({}, 'create', [])).toEqual({ values: {}, errors: {} });
  });

  it('does not modify its input', () => {
    const input = Object.freeze({ cf_2: 1.005, cf_4: Object.freeze(['a']) });
    expect(() => run(input, 'create')).not.toThrow();
    expect(input.cf_2).toBe(1.005);
  });
});

describe('renderCustomFields', () => {
  const defs = [def('3', 'text'), def('1', 'integer'), def('2', 'select_multiple')];

  it('every defined field in definition order, null where unset', () => {
    const out = renderCustomFields(defs, { cf_1: 4, first_name: 'Ann', cf_99: 'orphan' });
    expect(out).toEqual({ cf_3: null, cf_1: 4, cf_2: null });
    expect(Object.keys(out)).toEqual(['cf_3', 'cf_1', 'cf_2']);
  });

  it('keeps falsy stored values', () => {
    expect(
      renderCustomFields([def('1', 'checkbox'), def('2', 'integer'), def('3', 'text')], {
        cf_1: false,
        cf_2: 0,
        cf_3: '',
      }),
    ).toEqual({
      cf_1: false,
      cf_2: 0,
      cf_3: '',
    });
  });

  it('no definitions: nothing', () => expect(renderCustomFields([], { cf_1: 'x' })).toEqual({}));
});

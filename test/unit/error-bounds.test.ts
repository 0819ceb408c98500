import fc from 'fast-check';
import { boundFieldErrors } from '../../src/domain/error-bounds';
import { clip } from '../../src/domain/quote';
import { MESSAGES, type FieldMessages } from '../../src/domain/errors';

describe('quoting client values (contract §2)', () => {
  it('keeps short values whole and cuts long ones to 100 characters plus …', () => {
    expect(clip('abc')).toBe('abc');
    expect(clip('x'.repeat(100))).toBe('x'.repeat(100));
    expect(clip('x'.repeat(100_000))).toBe(`${'x'.repeat(100)}…`);
  });

  it('never splits a character made of two UTF-16 units', () => {
    const clipped = clip('😀'.repeat(150));
    expect(Array.from(clipped)).toHaveLength(101);
    expect(clipped.endsWith('😀…')).toBe(true);
  });

  it('any value: at most 101 characters, a prefix of the value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const clipped = clip(text);
        expect(Array.from(clipped).length).toBeLessThanOrEqual(101);
        expect(text.startsWith(clipped.replace(/…$/, ''))).toBe(true);
      }),
    );
  });
});

describe('boundFieldErrors', () => {
  const unknownKeys = (n: number, length: number): FieldMessages =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i}`.padEnd(length, 'k'), [MESSAGES.unknownField]]));

  it('passes small maps through', () => {
    expect(boundFieldErrors({ last_name: ["can't be blank"], email: ['is invalid'] })).toEqual({
      last_name: ["can't be blank"],
      email: ['is invalid'],
    });
  });

  it('reports at most 100 fields, the resource fields before unknown keys', () => {
    const fields: FieldMessages = { ...unknownKeys(5000, 3), last_name: ["can't be blank"] };
    const bounded = boundFieldErrors(fields);
    expect(Object.keys(bounded)).toHaveLength(100);
    expect(bounded.last_name).toEqual(["can't be blank"]);
  });

  it('stays under 64 KiB whatever the keys: long, escaped, astral', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', minLength: 90, maxLength: 300 }), { maxLength: 300 }),
        (keys) => {
          const fields: FieldMessages = Object.create(null) as FieldMessages;
          for (const key of keys) fields[key] = [MESSAGES.unknownField, MESSAGES.invalid, MESSAGES.blank];
          const body = JSON.stringify(boundFieldErrors(fields));
          expect(Buffer.byteLength(body)).toBeLessThan(64 * 1024);
        },
      ),
      { numRuns: 50 },
    );
    expect(Buffer.byteLength(JSON.stringify(boundFieldErrors(unknownKeys(20_000, 1000))))).toBeLessThan(64 * 1024);
  });
});

import fc from 'fast-check';
import { loneSurrogateFields } from '../../src/domain/json-shape';

/** Contract §2: a field holding an unpaired UTF-16 half anywhere is named; well-formed Unicode never is. */
const wellFormed = fc.jsonValue({ maxDepth: 3, stringUnit: 'grapheme' });
const key = fc.string({ unit: 'grapheme' });
const half = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

test('well-formed bodies (surrogate pairs included) name no field', () => {
  fc.assert(
    fc.property(fc.dictionary(key, wellFormed), (body) => {
      expect(loneSurrogateFields({ ...body, emoji: ['\ud83d\ude00'] })).toEqual([]);
    }),
  );
});

test('a lone half in a value, deep in an array or object, or in a key names exactly that top-level field', () => {
  fc.assert(
    fc.property(
      fc.dictionary(key, wellFormed),
      half,
      fc.string(),
      fc.constantFrom<(s: string) => unknown>(
        (s) => s,
        (s) => [1, [{ a: s }]],
        (s) => ({ [`k${s}`]: null }),
      ),
      (body, lone, text, place) => {
        const field = 'f\u00e9ld';
        const rest = Object.fromEntries(Object.entries(body).filter(([k]) => k !== field));
        expect(loneSurrogateFields({ ...rest, [field]: place(`${text}${lone}`) })).toEqual([field]);
      },
    ),
  );
  expect(loneSurrogateFields({ [`x\udc00`]: 1 })).toEqual(['x\udc00']);
  expect(loneSurrogateFields(['\ud800'])).toEqual([]);
});

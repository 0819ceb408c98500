/**
 * The schemas tell a generic JSON Schema validator (no custom keywords or
 * formats, as in a validating proxy) what the server enforces: it rejects what
 * the server rejects for shape, blankness, formats and unknown keys, and never
 * rejects what the server accepts.
 */
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { FieldErrorCollector } from '../../src/domain/errors';
import { FORMAT_PATTERNS } from '../../src/schemas/common';
import { FORMATS } from '../../src/schemas/formats-registry';
import { SCHEMAS } from '../../src/schemas';
import { bodyValidator } from '../../src/schemas/validation';
import validateApplicationCreate from '../../src/schemas/generated/validate-application-create';

const generic = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
const accepts = (schema: string, body: unknown): boolean => generic.validate(SCHEMAS[schema]!, body);

describe('a generic validator agrees with the server', () => {
  it('requires accept_terms_and_conditions, and the server says "must be accepted" when it is missing', () => {
    const applicant = { first_name: 'A', last_name: 'B', email: 'a@example.com' };
    expect(accepts('ApplicationCreate', applicant)).toBe(false);
    expect(accepts('ApplicationCreate', { ...applicant, accept_terms_and_conditions: true })).toBe(true);
    const errors = new FieldErrorCollector();
    bodyValidator(validateApplicationCreate as never)(applicant, errors);
    expect(() => errors.throwIfAny()).toThrow(
      expect.objectContaining({ fields: { accept_terms_and_conditions: ['must be accepted'] } }),
    );
  });

  it.each(['', ' ', '\t\n', '\u00a0\u2003'])('rejects the blank mandatory text %p', (blank) => {
    expect(accepts('EmployeeCreate', { first_name: blank, last_name: 'B' })).toBe(false);
    expect(blank.trim()).toBe('');
  });

  it('rejects unknown keys, accepts cf_{id} keys and read-only fields (ignored by the server)', () => {
    expect(accepts('EmployeeCreate', { first_name: 'A', last_name: 'B', frist_name: 'x' })).toBe(false);
    expect(accepts('EmployeeCreate', { first_name: 'A', last_name: 'B', cf_12: [1], id: 'x' })).toBe(true);
    expect(accepts('EmployeeJobCreate', { employee_id: 'e', name: 'n', from: '2026-01-01', cf_x: 1 })).toBe(false);
    expect(accepts('ApplicationUpdate', { job_id: 'ignored', cf_3: 'x' })).toBe(true);
  });

  it.each([
    ['photo_url', 'ftp://example.com'],
    ['country_code', 'it'],
    ['iban', 'DE89 3704'],
    ['swift', 'DEUTDEF'],
  ])('rejects a malformed %s by pattern', (field, value) => {
    expect(accepts('EmployeeUpdate', { [field]: value })).toBe(false);
  });

  const agree = (name: keyof typeof FORMAT_PATTERNS, arbitrary: fc.Arbitrary<string>): void => {
    const pattern = new RegExp(FORMAT_PATTERNS[name], 'u');
    const format = FORMATS[name] as (value: string) => boolean;
    fc.assert(fc.property(arbitrary, (value) => !format(value) || pattern.test(value)));
  };

  it('never rejects by pattern what the server accepts by format', () => {
    const ibanChars = fc.constantFrom(...'DEIT0123456789 abcxyzGB\t'.split(''));
    agree('iban', fc.oneof(fc.string({ unit: ibanChars, maxLength: 40 }), fc.constant('DE89 3704 0044 0532 0130 00')));
    agree('bic', fc.oneof(fc.string({ unit: fc.constantFrom(...'DEUTDEFF500xX'.split('')), maxLength: 12 })));
    agree('country-code', fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('IT', 'DE', 'AT')));
    agree(
      'http-url',
      fc.oneof(
        fc.webUrl(),
        fc.string().map((s) => `HTTPS://${s}`),
        fc.string(),
      ),
    );
    expect(new RegExp(FORMAT_PATTERNS.iban, 'u').test('DE89 3704 0044 0532 0130 00')).toBe(true);
  });
});

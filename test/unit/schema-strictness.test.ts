/**
 * The schemas tell a generic JSON Schema validator (no custom keywords or
 * formats, as in a validating proxy) what the server enforces: it rejects what
 * the server rejects for shape, blankness, formats and unknown keys (the IBAN
 * checksum aside), and never rejects what the server accepts.
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

  const matches = (name: keyof typeof FORMAT_PATTERNS) => {
    const pattern = new RegExp(FORMAT_PATTERNS[name], 'u');
    return (value: string): boolean => pattern.test(value);
  };
  const format = (name: keyof typeof FORMAT_PATTERNS) => FORMATS[name] as (value: string) => boolean;
  /** Every value `arbitrary` makes that `a` admits, `b` admits too. */
  const within = (a: (v: string) => boolean, b: (v: string) => boolean, arbitrary: fc.Arbitrary<string>): void =>
    fc.assert(fc.property(arbitrary, (value) => !a(value) || b(value)));

  it('patterns admit only what the server accepts, and reject nothing it accepts but the forms they leave out', () => {
    const ibanChars = fc.constantFrom(...'DEIT0123456789 abcxyzGB\t'.split(''));
    const ibans = fc.oneof(fc.string({ unit: ibanChars, maxLength: 40 }), fc.constant('DE89 3704 0044 0532 0130 00'));
    // The IBAN's checksum and country are the format's alone (the document says so): the pattern admits more.
    within(format('iban'), matches('iban'), ibans);
    const bics = fc.string({ unit: fc.constantFrom(...'DEUTDEFF500xXqQ'.split('')), maxLength: 12 });
    within(format('bic'), matches('bic'), bics);
    within(matches('bic'), format('bic'), bics);
    const countries = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('IT', 'DE', 'AT', 'QQ', 'it'));
    within(format('country-code'), matches('country-code'), countries);
    within(matches('country-code'), format('country-code'), countries);
    const urls = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.webUrl({ authoritySettings: { withIPv4: true, withPort: true, withUserInfo: true } }),
      fc.string().map((s) => `HTTPS://${s}`),
      fc.string(),
    );
    within(matches('http-url'), format('http-url'), urls);
    // Web URLs with DNS names: all admitted (a URL parser also takes hosts such as 0x7f.1, [::1] or IDN names, the API not).
    within(format('http-url'), matches('http-url'), fc.webUrl({ withQueryParameters: true, withFragments: true }));
    for (const refused of ['HTtP://', 'http://999.1.1.1/', 'http://a:99999/', 'http:///x'])
      expect([refused, matches('http-url')(refused)]).toEqual([refused, false]);
    expect(new RegExp(FORMAT_PATTERNS.iban, 'u').test('DE89 3704 0044 0532 0130 00')).toBe(true);
  });
});

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isBic, isCountryCode, isDate, isHttpUrl, isIban } from '../domain/formats';

/**
 * Keyword that marks a mandatory text field: null, '' and whitespace-only are
 * "can't be blank" (Rails' presence check), not "is invalid".
 */
export const NOT_BLANK = 'x-not-blank';

function configure(ajv: Ajv2020): Ajv2020 {
  addFormats(ajv, ['email', 'date-time']);
  ajv.addFormat('date', { type: 'string', validate: isDate });
  ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });
  ajv.addFormat('iban', { type: 'string', validate: isIban });
  ajv.addFormat('bic', { type: 'string', validate: (v: string) => isBic(v.toUpperCase()) });
  ajv.addFormat('country-code', { type: 'string', validate: isCountryCode });
  ajv.addKeyword({
    keyword: NOT_BLANK,
    schemaType: 'boolean',
    errors: true,
    validate: function notBlank(enabled: boolean, data: unknown): boolean {
      // Other types are the `type` keyword's business ("is invalid"), not blankness.
      if (!enabled) return true;
      return data !== null && (typeof data !== 'string' || data.trim().length > 0);
    },
  });
  ajv.addKeyword({ keyword: 'x-read-only-fields', schemaType: 'array' });
  return ajv;
}

let bodyAjv: Ajv2020 | undefined;
let queryAjv: Ajv2020 | undefined;

/** Bodies: exact JSON types, every error reported. Created on first use, not at init. */
export const getBodyAjv = (): Ajv2020 =>
  (bodyAjv ??= configure(new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true })));

/** Query strings arrive as text: numbers are coerced, then range-checked. */
export const getQueryAjv = (): Ajv2020 =>
  (queryAjv ??= configure(new Ajv2020({ allErrors: true, verbose: true, strict: true, coerceTypes: true, allowUnionTypes: true })));

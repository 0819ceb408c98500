import { isBic, isCountryCode, isDate, isHttpUrl, isIban } from '../domain/formats';

/**
 * Our own string formats. The compiler (src/schemas/ajv.ts) and the generated
 * validators (src/schemas/generated/) both take them from here, so a format
 * means the same at build time and at run time. ajv-formats' `email` and
 * `date-time` are the compiler's only: a generated validator inlines `email`
 * (a regular expression), and no request schema uses `date-time`
 * (scripts/build-validators.ts refuses a validator that would need one of
 * them at run time), so no bundle carries ajv-formats.
 */
export const FORMATS = {
  date: isDate,
  'http-url': isHttpUrl,
  iban: isIban,
  bic: (value: string): boolean => isBic(value.toUpperCase()),
  'country-code': isCountryCode,
};

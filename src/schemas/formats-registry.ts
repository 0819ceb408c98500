import { fullFormats } from 'ajv-formats/dist/formats';
import { isBic, isCountryCode, isDate, isHttpUrl, isIban } from '../domain/formats';

/**
 * Every string format our schemas use. The compiler (src/schemas/ajv.ts) and
 * the generated validators (src/schemas/generated/) both take them from here,
 * so a format means the same at build time and at run time.
 */
export const FORMATS = {
  email: fullFormats.email,
  'date-time': fullFormats['date-time'],
  date: isDate,
  'http-url': isHttpUrl,
  iban: isIban,
  bic: (value: string): boolean => isBic(value.toUpperCase()),
  'country-code': isCountryCode,
};

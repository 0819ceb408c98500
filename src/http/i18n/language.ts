import type Negotiator from 'negotiator';
import type { FieldMessages, HttpError, LocalizedMessage } from '../../domain/errors';
import { keepAtMost } from '../../domain/bounded-map';
import { CATALOGUES, DEFAULT_LANGUAGE, LANGUAGES, type Language } from './messages';

/** Headers negotiated already (clients send the same one every time): a flood of errors negotiates once. */
const negotiated = new Map<string, Language>();

/**
 * The language of an error response (contract §16): `Accept-Language` with
 * q-values, negotiated by `negotiator` (a regional tag matches its base
 * language: `de-AT` -> `de`); `*`, no header, a malformed header or no match
 * -> en.
 */
export function languageOf(headers: Record<string, string | undefined> | undefined): Language {
  const acceptLanguage = headers?.['accept-language'];
  if (!acceptLanguage) return DEFAULT_LANGUAGE;
  return negotiated.get(acceptLanguage) ?? keepAtMost(negotiated, 256, acceptLanguage, negotiate(acceptLanguage));
}

function negotiate(acceptLanguage: string): Language {
  // A require() here, not an import: the module is evaluated when a request first names a language, not at init
  // (1.2 % of a bare DocumentClient's, `npm run bench:cold -- --parts`).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const NegotiatorOf = require('negotiator') as typeof Negotiator;
  const picked = new NegotiatorOf({ headers: { 'accept-language': acceptLanguage } }).language([...LANGUAGES]);
  return (LANGUAGES as readonly string[]).includes(picked ?? '') ? (picked as Language) : DEFAULT_LANGUAGE;
}

export function translateMessage(message: LocalizedMessage, language: Language): string {
  const render = CATALOGUES[language].errors[message.key] as (params: LocalizedMessage['params']) => string;
  return render(message.params);
}

/** An error body's `message`: the catalogue's text; a text that came without a key is shown as it is. */
export function messageOf(error: HttpError, language: Language): string {
  return error.localized ? translateMessage(error.localized, language) : error.message;
}

/** A field map in the client's language; field keys never change. */
export function translateFields(fields: FieldMessages, language: Language): FieldMessages {
  const texts = CATALOGUES[language].fields as Readonly<Record<string, string>>;
  return Object.fromEntries(
    Object.entries(fields).map(([field, messages]) => [field, messages.map((m) => texts[m] ?? m)]),
  );
}

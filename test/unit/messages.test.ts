import {
  insufficientScope,
  MESSAGES,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  rateLimited,
  type ErrorMessageKey,
} from '../../src/domain/errors';
import { CUSTOM_FIELD_MESSAGES } from '../../src/domain/custom-fields';
import { languageOf, messageOf, translateFields } from '../../src/http/i18n/language';
import { CATALOGUES, LANGUAGES } from '../../src/http/i18n/messages';
import { errorResponse } from '../../src/http/middleware';

describe('message catalogues (contract §16)', () => {
  it('translate every field message the domain can report', () => {
    for (const message of [...Object.values(MESSAGES), ...Object.values(CUSTOM_FIELD_MESSAGES)]) {
      for (const language of LANGUAGES) expect(CATALOGUES[language].fields).toHaveProperty([message]);
    }
  });

  it('say something different in each language, for every key', () => {
    const keys = Object.keys(CATALOGUES.en.errors) as ErrorMessageKey[];
    expect(keys.length).toBeGreaterThanOrEqual(18);
    for (const field of Object.values(MESSAGES)) {
      expect(new Set(LANGUAGES.map((l) => CATALOGUES[l].fields[field])).size).toBe(3);
    }
    const sample = {
      insufficient_scope: { scope: 'employees:write' },
      record_not_found: { record: 'employee', id: 'x' },
      route_not_found: { method: 'GET', path: '/x' },
      method_not_allowed: { allowed: ['GET'] },
      payload_too_large: { limit: 1048576 },
      import_in_progress: { id: 'x', status: 'running' },
      import_finished: { id: 'x', status: 'cancelled' },
    } as Record<string, unknown>;
    for (const key of keys) {
      const texts = LANGUAGES.map((l) => (CATALOGUES[l].errors[key] as (p: unknown) => string)(sample[key] ?? {}));
      expect({ key, distinct: new Set(texts).size }).toEqual({ key, distinct: 3 });
    }
  });

  it('render parameters in the language (numbers, ids, methods)', () => {
    expect(messageOf(payloadTooLarge(1048576), 'de')).toBe('Der Request-Body ist größer als 1.048.576 Bytes');
    expect(messageOf(payloadTooLarge(1048576), 'en')).toBe('Request body exceeds 1,048,576 bytes');
    expect(messageOf(notFound('application', 'a"b'), 'it')).toBe('Candidatura "a\\"b" non trovata');
    expect(messageOf(methodNotAllowed(['GET', 'PUT']), 'de')).toBe(
      'Methode nicht erlaubt; dieser Pfad erlaubt GET, PUT',
    );
    expect(messageOf(insufficientScope('employees:write'), 'it')).toBe('A questo token manca lo scope employees:write');
  });

  it('keep field keys and pass unknown texts through', () => {
    expect(translateFields({ cf_1: [MESSAGES.blank, 'something else'] }, 'it')).toEqual({
      cf_1: ['non può essere lasciato in bianco', 'something else'],
    });
  });
});

describe('errorResponse', () => {
  it('answers in the negotiated language and says which', () => {
    const limited = rateLimited({ limit: 'token', requests: 10000, windowSeconds: 60, retryAfter: 3 });
    const res = errorResponse(limited, 'r1', languageOf({ 'accept-language': 'it-IT,it;q=0.9' }));
    expect(res.statusCode).toBe(429);
    expect(res.headers).toMatchObject({ 'Content-Language': 'it', 'Retry-After': '3' });
    expect(JSON.parse(res.body as string)).toEqual({
      error: 'rate_limited',
      message:
        'Questo token ha superato il limite di 10.000 richieste ogni 60 secondi; non è stato eseguito nulla, riprova tra 3 secondi',
      request_id: 'r1',
    });
  });

  it('keeps a 500 free of internals in every language', () => {
    for (const language of LANGUAGES) {
      const res = errorResponse(new Error('secret stack detail'), 'r', language);
      expect(res.body).not.toContain('secret');
      expect(JSON.parse(res.body as string).message).toBe(CATALOGUES[language].errors.internal_error({}));
    }
  });
});

import type { ErrorObject } from 'ajv';
import { NOT_BLANK } from './keywords';
import { loneSurrogateFields } from '../domain/json-shape';
import { badRequest, FieldError, FieldErrorCollector, MESSAGES, type FieldMessages } from '../domain/errors';

/**
 * A validator generated at build time from a schema in src/schemas
 * (src/schemas/generated/, `npm run build:validators`): no compilation, and no
 * ajv compiler, in a Lambda's init.
 */
export type CompiledValidator = ((data: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
  /** Schema path of a `required` keyword -> its properties that are consents (`const: true`); generated beside it. */
  consents?: Readonly<Record<string, readonly string[]>>;
};

/** The top-level field an ajv error is about: the key of the body or query. */
function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'additionalProperties')
    return String((error.params as { additionalProperty: string }).additionalProperty);
  if (error.keyword === 'propertyNames') return String((error.params as { propertyName: string }).propertyName);
  const first = error.instancePath.split('/')[1] ?? '';
  return first.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Ajv's wording -> the contract's Rails wording (contract §3). A null where a mandatory text is expected fails
 * both `type` ("is invalid") and NOT_BLANK ("can't be blank") of the same schema, at the same field: the
 * collector keeps "can't be blank" alone.
 */
function messageOf(error: ErrorObject, consents: CompiledValidator['consents']): string {
  switch (error.keyword) {
    case 'required':
      // A missing consent (`const: true`) is "must be accepted", like a false one.
      return consents?.[error.schemaPath]?.includes((error.params as { missingProperty: string }).missingProperty)
        ? MESSAGES.accepted
        : MESSAGES.blank;
    case NOT_BLANK:
      return MESSAGES.blank;
    case 'additionalProperties':
    case 'propertyNames':
      return MESSAGES.unknownField;
    case 'enum':
      return MESSAGES.inclusion;
    case 'const':
      return MESSAGES.accepted;
    default:
      return MESSAGES.invalid;
  }
}

function collectAjvErrors(validate: CompiledValidator, into: FieldErrorCollector): void {
  for (const error of validate.errors ?? []) {
    // A union's branch failures say nothing a client can act on beyond the field being invalid.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const field = fieldOf(error);
    if (!field) continue;
    into.add(field, messageOf(error, validate.consents));
  }
}

export interface BodyValidatorOptions {
  /** Read-only fields of the resource: accepted in a body and ignored, so a client can PUT back what it read. */
  readonly ignore?: readonly string[];
}

export type BodyValidator<T> = (body: unknown, collector?: FieldErrorCollector) => T;

/**
 * Validates a parsed JSON body against a request schema. Field errors are
 * collected (not thrown) so the domain can add its own before one 422 goes out.
 * Every body route validates here, so this is where contract §2's rule holds
 * for all of them: a field holding a lone surrogate anywhere (read-only ones
 * included) is `is invalid`, whatever else its schema says.
 */
export function bodyValidator<T>(validate: CompiledValidator, options: BodyValidatorOptions = {}): BodyValidator<T> {
  const ignored = new Set(options.ignore ?? []);
  return (body, collector = new FieldErrorCollector()) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest('body_not_object');
    }
    const input: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if (!ignored.has(key))
        Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
    }
    if (!validate(input)) collectAjvErrors(validate, collector);
    for (const field of loneSurrogateFields(body)) collector.only(field, MESSAGES.invalid);
    return input as T;
  };
}

export type QueryValidator<T> = (query: Record<string, string | undefined>) => T;

/** Validates query parameters; failures are 400 with the field-keyed body. */
export function queryValidator<T>(validate: CompiledValidator): QueryValidator<T> {
  return (query) => {
    const input: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined)
        Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
    }
    const collector = new FieldErrorCollector();
    if (!validate(input)) collectAjvErrors(validate, collector);
    // ajv coerces whatever JavaScript reads as a number ('Infinity', '1e2', '0x10', ' 7');
    // numeric parameters (page, per_page) are plain decimal digits only (contract §7).
    for (const [key, value] of Object.entries(input)) {
      if (typeof value === 'number' && !/^[0-9]+$/.test(query[key] ?? '')) collector.add(key, MESSAGES.invalid);
    }
    collector.throwIfAny(400);
    return input as T;
  };
}

/**
 * Like queryValidator, but hands the field errors back instead of throwing,
 * for a service that checks more parameters against stored state and must
 * answer every failing parameter at once (the change feed's cursor).
 */
export function queryCollector<T>(
  validate: CompiledValidator,
): (query: Record<string, string | undefined>) => { query: T; errors: FieldMessages } {
  const strict = queryValidator<T>(validate);
  return (query) => {
    try {
      return { query: strict(query), errors: {} };
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      return { query: query as T, errors: error.fields };
    }
  };
}

/**
 * Errors as data: every error a client can see is one of these, carrying its
 * HTTP meaning (status, code, headers, whether the message may be shown) the
 * way middy's http-error-handler expects. Any layer may throw them; this module
 * has no imports so domain, data, services and http can all use it. Only
 * src/http (toHttpError in middleware.ts) turns them into responses, so status
 * codes and bodies cannot drift per route.
 */
export type FieldMessages = Record<string, string[]>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** middy/http-errors spelling of `status`. */
  get statusCode(): number {
    return this.status;
  }

  /** Client errors say what went wrong; a server error's message stays in the log. */
  get expose(): boolean {
    return this.status < 500;
  }
}

/** 422 (body) or 400 (query): the spec's field-keyed body, every failing field at once. */
export class FieldError extends Error {
  constructor(
    readonly status: 400 | 422,
    readonly fields: FieldMessages,
  ) {
    super(`invalid fields: ${Object.keys(fields).join(', ')}`);
    this.name = 'FieldError';
  }

  get statusCode(): number {
    return this.status;
  }

  readonly expose = true;
}

export const MESSAGES = {
  blank: "can't be blank",
  invalid: 'is invalid',
  inclusion: 'is not included in the list',
  missingReference: 'does not exist',
  taken: 'has already been taken',
  accepted: 'must be accepted',
  toBeforeFrom: 'must be on or after from',
  unknownField: 'is not a known field',
  notAllowed: 'is not allowed',
} as const;

export const notFound = (message: string): HttpError => new HttpError(404, 'not_found', message);
export const badRequest = (message: string): HttpError => new HttpError(400, 'bad_request', message);
export const unauthorized = (message: string): HttpError =>
  new HttpError(401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="api"' });
export const methodNotAllowed = (allowed: readonly string[]): HttpError =>
  new HttpError(405, 'method_not_allowed', `Method not allowed; this path allows ${allowed.join(', ')}`, {
    Allow: allowed.join(', '),
  });
export const payloadTooLarge = (limit: number): HttpError =>
  new HttpError(413, 'payload_too_large', `Request body exceeds ${limit} bytes`);
export const unsupportedMediaType = (): HttpError =>
  new HttpError(415, 'unsupported_media_type', 'Request body must be sent as Content-Type: application/json');
export const preconditionFailed = (): HttpError =>
  new HttpError(
    412,
    'precondition_failed',
    'If-Match does not match the current ETag of the record; nothing was written',
  );
export const idempotencyKeyReused = (): HttpError =>
  new HttpError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request body');
export const serviceUnavailable = (retryAfterSeconds = 1): HttpError =>
  new HttpError(503, 'service_unavailable', 'The data store is temporarily unavailable; retry later', {
    'Retry-After': String(retryAfterSeconds),
  });

/** Collects field messages so a validator can report all failing fields at once. */
export class FieldErrorCollector {
  // No prototype: a body key such as `constructor` or `__proto__` is just another field name.
  private readonly fields: FieldMessages = Object.create(null) as FieldMessages;

  add(field: string, message: string): void {
    const list = (this.fields[field] ??= []);
    // "can't be blank" says everything about an empty value; "is invalid" beside it is noise.
    if (message === MESSAGES.blank) {
      const i = list.indexOf(MESSAGES.invalid);
      if (i >= 0) list.splice(i, 1);
    } else if (message === MESSAGES.invalid && list.includes(MESSAGES.blank)) return;
    if (!list.includes(message)) list.push(message);
  }

  has(field: string): boolean {
    return field in this.fields;
  }

  get empty(): boolean {
    return Object.keys(this.fields).length === 0;
  }

  merge(other: FieldMessages): void {
    for (const [field, messages] of Object.entries(other)) for (const m of messages) this.add(field, m);
  }

  /** Throws when anything was collected; a rejected request must not reach the write. */
  throwIfAny(status: 400 | 422 = 422): void {
    if (!this.empty) throw new FieldError(status, { ...this.fields });
  }
}

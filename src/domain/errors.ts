/**
 * Errors as data: every error a client can see is one of these, carrying its
 * HTTP meaning (status, code, headers, whether the message may be shown) the
 * way middy's http-error-handler expects. Any layer may throw them; this module
 * has no imports so domain, data, services and http can all use it. Only
 * src/http (toHttpError in middleware.ts) turns them into responses, so status
 * codes and bodies cannot drift per route.
 *
 * Texts are chosen by key where the error is thrown and put into the client's
 * language (contract §16) only at response time, from the catalogues in
 * src/http/i18n/messages.ts: an HttpError carries a message key and its
 * parameters; field messages are the Rails wording ids of MESSAGES.
 */

/** A field message id: the Rails (en) wording, which the catalogues translate (contract §3, §16). */
export type FieldMessage = (typeof MESSAGES)[keyof typeof MESSAGES];
export type FieldMessages = Record<string, string[]>;

/** A record a 404 can be about; the catalogues name it in each language. */
export type RecordName =
  | 'employee'
  | 'employee_job'
  | 'application'
  | 'location'
  | 'payout_field'
  | 'employee_field'
  | 'employee_job_field'
  | 'application_field'
  | 'webhook_subscription'
  | 'attachment'
  | 'export'
  | 'import';

/** Every `message` of an error body, by key, with the parameters its text needs. */
export interface ErrorMessageParams {
  invalid_json: Record<string, never>;
  body_not_object: Record<string, never>;
  body_too_deep: { levels: number };
  body_too_wide: { keys: number };
  idempotency_key_invalid: Record<string, never>;
  business_not_set_up: Record<string, never>;
  missing_authorization: Record<string, never>;
  malformed_authorization: Record<string, never>;
  unknown_token: Record<string, never>;
  expired_token: Record<string, never>;
  insufficient_scope: { scope: string };
  fields_withheld: { type: string };
  record_not_found: { record: RecordName; id: string };
  route_not_found: { method: string; path: string };
  not_acceptable: { available: string };
  method_not_allowed: { allowed: readonly string[] };
  idempotency_key_reused: Record<string, never>;
  application_erased: Record<string, never>;
  subscription_deleted: Record<string, never>;
  precondition_failed: Record<string, never>;
  cursor_expired: { days: number };
  payload_too_large: { limit: number };
  headers_too_large: Record<string, never>;
  malformed_request: Record<string, never>;
  unsupported_media_type: Record<string, never>;
  rate_limited: { limit: 'token' | 'business'; requests: number; windowSeconds: number; retryAfter: number };
  internal_error: Record<string, never>;
  service_unavailable: Record<string, never>;
  import_in_progress: { id: string; status: string };
  import_finished: { id: string; status: string };
}
export type ErrorMessageKey = keyof ErrorMessageParams;

/** A message by key, with its parameters (discriminated by key, so parameters are checked). */
export type LocalizedMessage = {
  [K in ErrorMessageKey]: { readonly key: K; readonly params: ErrorMessageParams[K] };
}[ErrorMessageKey];

const NO_PARAMS: Record<string, never> = {};
const byKey = <K extends ErrorMessageKey>(key: K, params: ErrorMessageParams[K]): LocalizedMessage =>
  ({ key, params }) as LocalizedMessage;

export class HttpError extends Error {
  /** The message by key; absent only for texts that come from elsewhere (shown as they are). */
  readonly localized: LocalizedMessage | undefined;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string | LocalizedMessage,
    readonly headers: Record<string, string> = {},
  ) {
    // The key and parameters go to the log; the client reads the catalogue's text.
    super(typeof message === 'string' ? message : `${message.key} ${JSON.stringify(message.params)}`);
    this.name = 'HttpError';
    this.localized = typeof message === 'string' ? undefined : message;
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
  /** A field outside the token's field grant (contract §25). */
  notPermitted: 'is not permitted',
  /** rails-i18n `less_than_or_equal_to` with count 20: the webhook subscriptions of a business (contract §14). */
  atMostTwenty: 'must be less than or equal to 20',
} as const;

export const notFound = (record: RecordName, id: string): HttpError =>
  new HttpError(404, 'not_found', byKey('record_not_found', { record, id }));
export const routeNotFound = (method: string, path: string): HttpError =>
  new HttpError(404, 'not_found', byKey('route_not_found', { method, path }));
export type BadRequestKey = 'invalid_json' | 'body_not_object' | 'idempotency_key_invalid' | 'business_not_set_up';
export const badRequest = (key: BadRequestKey): HttpError => new HttpError(400, 'bad_request', byKey(key, NO_PARAMS));
/** 400 for a body beyond the shape limits of contract §2 (nesting depth, keys in one object). */
export const bodyTooComplex = (problem: { tooDeep: number } | { tooWide: number }): HttpError =>
  new HttpError(
    400,
    'bad_request',
    'tooDeep' in problem
      ? byKey('body_too_deep', { levels: problem.tooDeep })
      : byKey('body_too_wide', { keys: problem.tooWide }),
  );
export type UnauthorizedKey = 'missing_authorization' | 'malformed_authorization' | 'unknown_token' | 'expired_token';
/** The RFC 6750 challenge per case: no error code when no token was sent, `invalid_token` for one we refuse. */
const BEARER_CHALLENGES: Record<UnauthorizedKey, string> = {
  missing_authorization: 'Bearer realm="api"',
  malformed_authorization: 'Bearer realm="api", error="invalid_request"',
  unknown_token: 'Bearer realm="api", error="invalid_token"',
  expired_token: 'Bearer realm="api", error="invalid_token", error_description="The access token expired"',
};
export const unauthorized = (key: UnauthorizedKey): HttpError =>
  new HttpError(401, 'unauthorized', byKey(key, NO_PARAMS), { 'WWW-Authenticate': BEARER_CHALLENGES[key] });
/** 403: the token lacks the scope the route needs (contract §15, RFC 6750 §3.1). */
export const insufficientScope = (scope: string): HttpError =>
  new HttpError(403, 'insufficient_scope', byKey('insufficient_scope', { scope }), {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  });
/** 403: the token's field grant withholds fields of `type` that what it asks for holds (contract §25). */
export const fieldsWithheld = (type: string): HttpError =>
  new HttpError(403, 'insufficient_scope', byKey('fields_withheld', { type }), {
    'WWW-Authenticate': 'Bearer error="insufficient_scope"',
  });
export const methodNotAllowed = (allowed: readonly string[]): HttpError =>
  new HttpError(405, 'method_not_allowed', byKey('method_not_allowed', { allowed }), {
    Allow: allowed.join(', '),
  });
/** 406: the client accepts none of the media types the route can send. */
export const notAcceptable = (available: string): HttpError =>
  new HttpError(406, 'not_acceptable', byKey('not_acceptable', { available }));
export const payloadTooLarge = (limit: number): HttpError =>
  new HttpError(413, 'payload_too_large', byKey('payload_too_large', { limit }));
/** The local server's own answers to what never reaches a function (HTTP parser errors). */
export const headersTooLarge = (): HttpError =>
  new HttpError(431, 'request_header_fields_too_large', byKey('headers_too_large', NO_PARAMS));
export const malformedRequest = (): HttpError =>
  new HttpError(400, 'bad_request', byKey('malformed_request', NO_PARAMS));
export const unsupportedMediaType = (): HttpError =>
  new HttpError(415, 'unsupported_media_type', byKey('unsupported_media_type', NO_PARAMS));
export const preconditionFailed = (): HttpError =>
  new HttpError(412, 'precondition_failed', byKey('precondition_failed', NO_PARAMS));
/** 410: a change-feed cursor older than the feed's retention (contract §13). */
export const cursorExpired = (days = 30): HttpError =>
  new HttpError(410, 'cursor_expired', byKey('cursor_expired', { days }));
/** 410: the Idempotency-Key created an application that has since been erased (contract §11, §17). */
export const applicationErased = (): HttpError =>
  new HttpError(410, 'application_erased', byKey('application_erased', NO_PARAMS));
/** 410: the Idempotency-Key created a webhook subscription that has since been deleted (contract §14). */
export const subscriptionDeleted = (): HttpError =>
  new HttpError(410, 'subscription_deleted', byKey('subscription_deleted', NO_PARAMS));
/** Contract §22: one import per business at a time; the body names the one in progress. */
export const importInProgress = (id: string, status: string): HttpError =>
  new HttpError(409, 'import_in_progress', byKey('import_in_progress', { id, status }));
/** An import that ended cannot be cancelled any more. */
export const importFinished = (id: string, status: string): HttpError =>
  new HttpError(409, 'import_finished', byKey('import_finished', { id, status }));
export const idempotencyKeyReused = (): HttpError =>
  new HttpError(409, 'idempotency_key_reused', byKey('idempotency_key_reused', NO_PARAMS));
/** 429 (contract §18): over the token's or the business's rate limit; nothing was done. */
export const rateLimited = (
  params: ErrorMessageParams['rate_limited'],
  headers: Record<string, string> = {},
): HttpError =>
  new HttpError(429, 'rate_limited', byKey('rate_limited', params), {
    ...headers,
    'Retry-After': String(params.retryAfter),
  });
export const internalError = (): HttpError => new HttpError(500, 'internal_error', byKey('internal_error', NO_PARAMS));
export const serviceUnavailable = (retryAfterSeconds = 1): HttpError =>
  new HttpError(503, 'service_unavailable', byKey('service_unavailable', NO_PARAMS), {
    'Retry-After': String(retryAfterSeconds),
  });

/** Collects field messages so a validator can report all failing fields at once. */
export class FieldErrorCollector {
  // No prototype: a body key such as `constructor` or `__proto__` is just another field name.
  private readonly fields: FieldMessages = Object.create(null) as FieldMessages;
  private readonly settled = new Set<string>();

  add(field: string, message: string): void {
    if (this.settled.has(field)) return;
    const list = (this.fields[field] ??= []);
    // "can't be blank" says everything about an empty value; "is invalid" beside it is noise.
    if (message === MESSAGES.blank) {
      const i = list.indexOf(MESSAGES.invalid);
      if (i >= 0) list.splice(i, 1);
    } else if (message === MESSAGES.invalid && list.includes(MESSAGES.blank)) return;
    if (!list.includes(message)) list.push(message);
  }

  /** The field's one message, whatever was collected for it before or is after (a value that is not Unicode). */
  only(field: string, message: string): void {
    this.fields[field] = [message];
    this.settled.add(field);
  }

  has(field: string): boolean {
    return field in this.fields;
  }

  get empty(): boolean {
    return Object.keys(this.fields).length === 0;
  }

  /** A collector holding what this one holds: a check that may run again (a re-run write) starts from a copy. */
  copy(): FieldErrorCollector {
    const c = new FieldErrorCollector();
    for (const [field, messages] of Object.entries(this.fields)) c.fields[field] = [...messages];
    for (const field of this.settled) c.settled.add(field);
    return c;
  }

  merge(other: FieldMessages): void {
    for (const [field, messages] of Object.entries(other)) for (const m of messages) this.add(field, m);
  }

  /** Throws when anything was collected; a rejected request must not reach the write. */
  throwIfAny(status: 400 | 422 = 422): void {
    if (!this.empty) throw new FieldError(status, { ...this.fields });
  }
}

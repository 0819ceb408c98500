/**
 * The HR API client (contract §23): one method per operation of the served OpenAPI document, typed from it
 * (schema.ts, operations.ts: generated), with idempotent writes, retries that wait as the service asks, paging,
 * the change feed and webhook verification. Only `fetch`, `crypto` and timers: Node 20+, browsers, edge runtimes.
 */
import type { components, operations } from './schema.js';
import { OPERATIONS } from './operations.js';
import { parseRetryAfter, rateLimitWaitMs, retryWaitMs, RETRY_STATUSES } from './timing.js';

export { verifyWebhook, WebhookVerificationError } from './webhook.js';
export type { ApiGatewayEvent, WebhookEvent, WebhookRequest } from './webhook.js';
export type { components, operations, paths } from './schema.js';

export type OperationId = keyof typeof OPERATIONS;
const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];
type Operation<K extends OperationId> = operations[K];

type Present<T> = [T] extends [undefined] ? unknown : NonNullable<T>;
type BodyOf<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? { body: B } : unknown;
type Params<K extends OperationId> = Present<Operation<K>['parameters']['path']> &
  Present<Operation<K>['parameters']['query']> &
  BodyOf<Operation<K>>;
/** The one argument of an operation: its path and query parameters by name, its request body as `body`. */
export type Input<K extends OperationId> = keyof Params<K> extends never ? Record<string, never> : Params<K>;

type ContentOf<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer J }
    ? J
    : C[keyof C]
  : undefined;
type SuccessOf<R> = ContentOf<R[Extract<keyof R, 200 | 201 | 202 | 204>]>;
/** What an operation resolves to: the parsed body of its success answer (`undefined` for a 204). */
export type Result<K extends OperationId> = SuccessOf<Operation<K>['responses']>;

/** The operations whose answer is a page envelope (contract §7). */
export type ListOperationId = {
  [K in OperationId]: Result<K> extends { entries: unknown[]; total_entries: number } ? K : never;
}[OperationId];
type EntryOf<K extends ListOperationId> = Result<K> extends { entries: (infer E)[] } ? E : never;

export type ChangeEntry = components['schemas']['ChangeEntry'];
export type ChangeType = ChangeEntry['type'];
export type Attachment = components['schemas']['Attachment'];
export type Import = components['schemas']['Import'];

/** One line of an import's results file (contract §22). */
export interface ImportResult {
  row: number;
  external_id: string | null;
  result: 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed';
  id: string | null;
  errors: Record<string, string[]> | null;
}

/** How long a helper polls for the service's verdict, and how often. */
export type WaitOptions = RequestOptions & { intervalMs?: number; waitMs?: number };

export interface RequestOptions {
  /** Ends the request, or a wait before a retry, at once (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Sent on POST, PUT and DELETE (default: one generated per call); every retry of the call reuses it. */
  idempotencyKey?: string;
  /** PUT only: the ETag the update expects (412 `precondition_failed` when the record changed). */
  ifMatch?: string;
}

export interface ClientOptions {
  /** Where the document's paths start, e.g. `http://localhost:3000` (the paths include `/services/api/v1`). */
  baseUrl: string;
  token: string;
  /** Language of error messages (`de`, `it`, `en`; Accept-Language). */
  language?: string;
  /** Per attempt (default 30 s): an attempt that takes longer is abandoned and retried. */
  timeoutMs?: number;
  /** Retries of a 429, 502, 503, 504, timeout or dropped connection (default 2); never of another answer. */
  maxRetries?: number;
  fetch?: typeof fetch;
}

type Args<K extends OperationId> =
  Record<string, never> extends Input<K>
    ? [input?: Input<K>, options?: RequestOptions]
    : [input: Input<K>, options?: RequestOptions];

/** One method per operation of the document, named by its `operationId`. */
export type Methods = { [K in OperationId]: Method<K> };
type Method<K extends OperationId> = (...args: Args<K>) => Promise<Result<K>>;

export type Client = Methods & {
  /**
   * The fields the last answered request withheld from this token (its `Restricted-Fields`, sorted), or null when
   * that answer named none: the token has no field grant of that record type (feed entries carry theirs as
   * `restricted_fields`). A withheld field is absent from the record; a null field has no value.
   */
  readonly lastRestrictedFields: string[] | null;
  /** Every record of every page of a list operation, each once, in the list's order (100 per request). */
  paginate<K extends ListOperationId>(
    operationId: K,
    params?: Omit<Input<K>, 'page'>,
    options?: RequestOptions,
  ): AsyncIterableIterator<EntryOf<K>>;
  /**
   * Change-feed entries after `cursor` (omitted: the oldest retained), each with the `cursor` to store once it is
   * handled. Ends at the head, or with `follow` polls every `intervalMs` (default 1 s) until `signal` aborts.
   */
  changes(options?: {
    cursor?: string;
    types?: ChangeType[];
    follow?: boolean;
    intervalMs?: number;
    signal?: AbortSignal;
  }): AsyncIterableIterator<ChangeEntry>;
  /**
   * Adds a file to an application (contract §19): declares it, uploads it to the presigned form, and waits until
   * the service checked it: resolves with the record, `available` or `rejected` (see `rejection_reason`).
   */
  uploadAttachment(
    applicationId: string,
    file: { name: string; type: components['schemas']['AttachmentCreate']['content_type']; bytes: Blob | Uint8Array },
    options?: WaitOptions,
  ): Promise<Attachment>;
  /**
   * A bulk import (contract §22): creates it, uploads the file, waits until it is `completed` or `failed`; resolves
   * with the import record and its results (one per row, in row order; none unless completed).
   */
  runImport(
    params: Omit<components['schemas']['ImportCreate'], 'size'>,
    file: Blob | Uint8Array | string,
    options?: WaitOptions,
  ): Promise<{ import: Import; results: AsyncIterableIterator<ImportResult> }>;
};

/** What an `ApiError` carries (contract §23): the answer's status, `error` code, message and details. */
export interface ApiErrorOptions {
  /** The HTTP status; 0 when no answer came (`code` `timeout` or `connection_failed`). */
  status: number;
  code: string;
  message: string;
  /** The field map of a 400 or 422, else null. */
  fields?: Record<string, string[]> | null;
  /** The answer's `X-Request-Id`, to quote when reporting a problem. */
  requestId?: string | null;
  /** `Retry-After` in seconds, or null. */
  retryAfter?: number | null;
  cause?: unknown;
}

/**
 * A non-2xx answer, or no answer after the retries (`status` 0, `code` `timeout` or `connection_failed`). The
 * answers a caller handles apart are subclasses: `ValidationError`, `AuthError`, `NotFoundError`, `ConflictError`,
 * `RateLimitError`.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string[]> | null;
  readonly requestId: string | null;
  readonly retryAfter: number | null;
  constructor(options: ApiErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.fields = options.fields ?? null;
    this.requestId = options.requestId ?? null;
    this.retryAfter = options.retryAfter ?? null;
  }
}

/** 400 or 422 with a field map: every failing field at once, `fields` never null. Nothing was written. */
export class ValidationError extends ApiError {
  override readonly name: string = 'ValidationError';
  declare readonly fields: Record<string, string[]>;
}

/** 401 (the token is missing, unknown, revoked or expired) or 403 (it lacks the operation's scope). */
export class AuthError extends ApiError {
  override readonly name: string = 'AuthError';
}

/** 404: no such record in the token's business (or a record the body names does not exist). */
export class NotFoundError extends ApiError {
  override readonly name: string = 'NotFoundError';
}

/** 409 (an Idempotency-Key reused for another request, an import in progress) or 412 (the record changed). */
export class ConflictError extends ApiError {
  override readonly name: string = 'ConflictError';
}

/** 429 after the retries: over the token's or the business's rate limit; `retryAfter` says when to send again. */
export class RateLimitError extends ApiError {
  override readonly name: string = 'RateLimitError';
}

/** The class of an answer's error, by its status (and a field map's presence). */
function errorClassOf(status: number, hasFields: boolean): typeof ApiError {
  if (hasFields) return ValidationError;
  if (status === 401 || status === 403) return AuthError;
  if (status === 404) return NotFoundError;
  if (status === 409 || status === 412) return ConflictError;
  if (status === 429) return RateLimitError;
  return ApiError;
}

/** Whether `methods` holds a method for every operation (what `createClient` builds, checked). */
const hasEveryMethod = (methods: Record<string, unknown>): methods is Methods =>
  OPERATION_IDS.every((operationId) => typeof methods[operationId] === 'function');

const WRITES = new Set(['POST', 'PUT', 'DELETE']);

const abortError = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function errorOf(status: number, body: unknown, headers: Headers, now: number): ApiError {
  const details = {
    status,
    requestId: headers.get('x-request-id'),
    retryAfter: parseRetryAfter(headers.get('retry-after'), now),
  };
  const record = isRecord(body) ? body : {};
  if (typeof record.error === 'string') {
    const message = typeof record.message === 'string' ? record.message : record.error;
    return new (errorClassOf(status, false))({ ...details, code: record.error, message });
  }
  const isFieldMap = Object.values(record).length > 0 && Object.values(record).every(Array.isArray);
  if ((status === 400 || status === 422) && isFieldMap) {
    const fields = record as Record<string, string[]>;
    const message = Object.entries(fields)
      .map(([field, messages]) => `${field} ${messages.join(', ')}`)
      .join('; ');
    const code = status === 400 ? 'bad_request' : 'unprocessable_entity';
    return new ValidationError({ ...details, code, message, fields });
  }
  return new (errorClassOf(status, false))({ ...details, code: `http_${status}`, message: `HTTP ${status}` });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function urlOf(baseUrl: string, template: string, input: Record<string, unknown>): string {
  const used = new Set<string>(['body']);
  const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    used.add(name);
    return encodeURIComponent(String(input[name]));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input))
    if (!used.has(name) && value !== undefined) query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  const search = query.toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${search ? `?${search}` : ''}`;
}

export function createClient(options: ClientOptions): Client {
  const maxRetries = options.maxRetries ?? 2;
  const timeoutMs = options.timeoutMs ?? 30_000;
  /** No request of this client starts before this time: a `RateLimit` field said `r=0`. */
  let notBefore = 0;
  let lastRestricted: string[] | null = null;

  async function attempt(method: string, url: string, init: RequestInit, signal?: AbortSignal) {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort(abortError(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await (options.fetch ?? fetch)(url, { ...init, method, signal: controller.signal });
      const text = await res.text();
      return { res, text };
    } catch (cause) {
      if (signal?.aborted) throw abortError(signal);
      const code = timedOut ? 'timeout' : 'connection_failed';
      const message = timedOut ? `no answer within ${timeoutMs} ms` : 'the connection failed';
      return { failure: new ApiError({ status: 0, code, message, cause }) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function call(operationId: OperationId, input?: unknown, opts: RequestOptions = {}): Promise<unknown> {
    const fields = isRecord(input) ? input : {};
    const [method, template] = OPERATIONS[operationId];
    const url = urlOf(options.baseUrl, template, fields);
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
    if (options.language) headers['accept-language'] = options.language;
    if (WRITES.has(method)) headers['idempotency-key'] = opts.idempotencyKey ?? crypto.randomUUID();
    if (opts.ifMatch) headers['if-match'] = opts.ifMatch;
    let body: string | undefined;
    if (fields.body !== undefined) {
      body = JSON.stringify(fields.body);
      headers['content-type'] = 'application/json';
    }
    for (let n = 0; ; n++) {
      const wait = notBefore - Date.now();
      if (wait > 0) await sleep(wait, opts.signal);
      if (opts.signal?.aborted) throw abortError(opts.signal); // aborted before this attempt: nothing is sent
      const outcome = await attempt(method, url, { headers, body }, opts.signal);
      let error: ApiError;
      if ('failure' in outcome) error = outcome.failure!;
      else {
        const { res, text } = outcome;
        const limitWait = rateLimitWaitMs(res.headers.get('ratelimit'));
        if (limitWait > 0) notBefore = Math.max(notBefore, Date.now() + limitWait);
        const isJson = /json/i.test(res.headers.get('content-type') ?? '');
        let parsed: unknown = text;
        if (isJson && text) {
          try {
            parsed = JSON.parse(text);
          } catch {
            /* a gateway's answer that says JSON and is not: keep the text */
          }
        }
        const restricted = res.headers.get('restricted-fields');
        lastRestricted =
          restricted === null
            ? null
            : restricted
                .split(',')
                .map((f) => f.trim())
                .filter(Boolean);
        if (res.ok) return res.status === 204 ? undefined : parsed;
        error = errorOf(res.status, parsed, res.headers, Date.now());
        if (!RETRY_STATUSES.has(res.status)) throw error;
      }
      if (n >= maxRetries) throw error;
      await sleep(retryWaitMs(error.retryAfter, n, Math.random()), opts.signal);
    }
  }

  /** `call` as the document types it: the operation's input in, its success answer out. */
  const request = <K extends OperationId>(operationId: K, input?: Input<K>, opts?: RequestOptions) =>
    call(operationId, input, opts) as Promise<Result<K>>;

  const method =
    <K extends OperationId>(operationId: K): Method<K> =>
    (...[input, opts]: Args<K>) =>
      request(operationId, input, opts);
  const methods: Record<string, unknown> = Object.fromEntries(OPERATION_IDS.map((id) => [id, method(id)]));
  if (!hasEveryMethod(methods)) throw new Error('hr-api-client: an operation has no method');

  async function* paginate<K extends ListOperationId>(
    operationId: K,
    params?: Omit<Input<K>, 'page'>,
    opts?: RequestOptions,
  ): AsyncIterableIterator<EntryOf<K>> {
    const given: unknown = params;
    const perPage = isRecord(given) && typeof given.per_page === 'number' ? given.per_page : 100;
    for (let page = 1; ; page++) {
      const result = (await call(operationId, { ...params, page, per_page: perPage }, opts)) as {
        entries: EntryOf<K>[];
        total_entries: number;
      };
      yield* result.entries;
      if (result.entries.length < perPage || page * perPage >= result.total_entries) return;
    }
  }

  async function* changes(opts: Parameters<Client['changes']>[0] = {}): AsyncIterableIterator<ChangeEntry> {
    const { follow = false, intervalMs = 1000, signal } = opts;
    let after = opts.cursor;
    for (;;) {
      let page: Result<'listChanges'>;
      try {
        page = (await call('listChanges', { after, types: opts.types }, { signal })) as Result<'listChanges'>;
      } catch (error) {
        if (follow && signal?.aborted) return;
        throw error;
      }
      yield* page.entries;
      // The head: nothing new and the cursor did not move (a page of only other types moves it on, empty).
      const atHead = page.entries.length === 0 && page.next_cursor === after;
      after = page.next_cursor;
      if (!atHead) continue;
      if (!follow) return;
      try {
        await sleep(intervalMs, signal);
      } catch {
        return; // aborted: following ends
      }
    }
  }

  /** The upload step of contract §19 and §22: every pair of the form's fields, then the file as the part `file`. */
  async function upload(
    form: { url: string; fields: Record<string, string> },
    blob: Blob,
    name: string,
    signal?: AbortSignal,
  ) {
    const body = new FormData();
    for (const [field, value] of Object.entries(form.fields)) body.append(field, value);
    body.append('file', blob, name);
    const answer = await (options.fetch ?? fetch)(form.url, { method: 'POST', body, signal });
    const text = await answer.text();
    if (!answer.ok)
      throw new ApiError({
        status: answer.status,
        code: 'upload_failed',
        message: `the upload answered ${answer.status}: ${text.slice(0, 200)}`,
      });
  }

  /** Reads the record until `done` says the service has decided, every `intervalMs`, for at most `waitMs`. */
  async function until<T>(
    read: () => Promise<T>,
    done: (record: T) => boolean,
    what: string,
    opts: WaitOptions,
  ): Promise<T> {
    const deadline = Date.now() + (opts.waitMs ?? 120_000);
    for (;;) {
      const record = await read();
      if (done(record)) return record;
      if (Date.now() > deadline) throw new ApiError({ status: 0, code: 'timeout', message: `${what} still not done` });
      await sleep(opts.intervalMs ?? 500, opts.signal);
    }
  }

  const blobOf = (bytes: Blob | Uint8Array | string): Blob =>
    bytes instanceof Blob ? bytes : new Blob([bytes as string | Uint8Array<ArrayBuffer>]);

  const uploadAttachment: Client['uploadAttachment'] = async (applicationId, file, opts = {}) => {
    const blob = blobOf(file.bytes);
    const body = { file_name: file.name, content_type: file.type, size: blob.size };
    const created = await request('createAttachment', { id: applicationId, body }, opts);
    await upload(created.upload, blob, file.name, opts.signal);
    const read = () => request('getAttachment', { id: applicationId, attachment_id: created.id }, opts);
    return until(read, (record) => record.status !== 'pending', `attachment ${created.id}`, opts);
  };

  const runImport: Client['runImport'] = async (params, file, opts = {}) => {
    const blob = blobOf(file);
    const created = await request('createImport', { body: { ...params, size: blob.size } }, opts);
    await upload(created.upload, blob, `import.${params.format}`, opts.signal);
    const read = () => request('getImport', { id: created.id }, opts);
    const done = await until(
      read,
      (record) => record.status === 'completed' || record.status === 'failed',
      `import ${created.id}`,
      opts,
    );
    async function* results(): AsyncIterableIterator<ImportResult> {
      if (!done.results_url) return;
      const answer = await (options.fetch ?? fetch)(done.results_url, { signal: opts.signal });
      if (!answer.ok)
        throw new ApiError({
          status: answer.status,
          code: 'results_unavailable',
          message: `the results answered ${answer.status}`,
        });
      // Streamed line by line: a results file has a line per row (up to 200,000).
      const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        const lines = (rest + value).split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line.trim()) yield JSON.parse(line) as ImportResult;
      }
      if (rest.trim()) yield JSON.parse(rest) as ImportResult;
    }
    return { import: done, results: results() };
  };

  return {
    ...methods,
    get lastRestrictedFields() {
      return lastRestricted;
    },
    paginate,
    changes,
    uploadAttachment,
    runImport,
  };
}

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

export type Client = { [K in OperationId]: (...args: Args<K>) => Promise<Result<K>> } & {
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

/** A non-2xx answer, or no answer after the retries (`status` 0, `code` `timeout` or `connection_failed`). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The field map of a 400 or 422, else null. */
    readonly fields: Record<string, string[]> | null,
    readonly requestId: string | null,
    /** `Retry-After` in seconds, or null. */
    readonly retryAfter: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

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
  const requestId = headers.get('x-request-id');
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  if (typeof record.error === 'string') {
    const message = typeof record.message === 'string' ? record.message : record.error;
    return new ApiError(status, record.error, message, null, requestId, retryAfter);
  }
  const isFieldMap = Object.values(record).length > 0 && Object.values(record).every(Array.isArray);
  if ((status === 400 || status === 422) && isFieldMap) {
    const fields = record as Record<string, string[]>;
    const message = Object.entries(fields)
      .map(([field, messages]) => `${field} ${messages.join(', ')}`)
      .join('; ');
    return new ApiError(
      status,
      status === 400 ? 'bad_request' : 'unprocessable_entity',
      message,
      fields,
      requestId,
      retryAfter,
    );
  }
  return new ApiError(status, `http_${status}`, `HTTP ${status}`, null, requestId, retryAfter);
}

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
      return { failure: new ApiError(0, code, message, null, null, null, { cause }) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function call(operationId: OperationId, input: Record<string, unknown> = {}, opts: RequestOptions = {}) {
    const [method, template] = OPERATIONS[operationId];
    const url = urlOf(options.baseUrl, template, input);
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
    if (options.language) headers['accept-language'] = options.language;
    if (WRITES.has(method)) headers['idempotency-key'] = opts.idempotencyKey ?? crypto.randomUUID();
    if (opts.ifMatch) headers['if-match'] = opts.ifMatch;
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
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

  const client: Record<string, unknown> = {};
  Object.defineProperty(client, 'lastRestrictedFields', { get: () => lastRestricted, enumerable: true });
  for (const operationId of Object.keys(OPERATIONS) as OperationId[])
    client[operationId] = (input?: Record<string, unknown>, opts?: RequestOptions) => call(operationId, input, opts);

  client.paginate = async function* (
    operationId: OperationId,
    params: Record<string, unknown> = {},
    opts?: RequestOptions,
  ) {
    const perPage = (params.per_page as number | undefined) ?? 100;
    for (let page = 1; ; page++) {
      const result = (await call(operationId, { ...params, page, per_page: perPage }, opts)) as {
        entries: unknown[];
        total_entries: number;
      };
      yield* result.entries;
      if (result.entries.length < perPage || page * perPage >= result.total_entries) return;
    }
  };

  client.changes = async function* (
    opts: { cursor?: string; types?: string[]; follow?: boolean; intervalMs?: number; signal?: AbortSignal } = {},
  ) {
    const { follow = false, intervalMs = 1000, signal } = opts;
    let after = opts.cursor;
    for (;;) {
      let page: { entries: ChangeEntry[]; next_cursor: string };
      try {
        page = (await call('listChanges', { after, types: opts.types }, { signal })) as typeof page;
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
  };

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
      throw new ApiError(
        answer.status,
        'upload_failed',
        `the upload answered ${answer.status}: ${text.slice(0, 200)}`,
        null,
        null,
        null,
      );
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
      if (Date.now() > deadline) throw new ApiError(0, 'timeout', `${what} still not done`, null, null, null);
      await sleep(opts.intervalMs ?? 500, opts.signal);
    }
  }

  const blobOf = (bytes: Blob | Uint8Array | string): Blob =>
    bytes instanceof Blob ? bytes : new Blob([bytes as string | Uint8Array<ArrayBuffer>]);

  client.uploadAttachment = async (
    applicationId: string,
    file: { name: string; type: string; bytes: Blob | Uint8Array },
    opts: WaitOptions = {},
  ) => {
    const blob = blobOf(file.bytes);
    const body = { file_name: file.name, content_type: file.type, size: blob.size };
    const created = (await call('createAttachment', { id: applicationId, body }, opts)) as Result<'createAttachment'>;
    await upload(created.upload, blob, file.name, opts.signal);
    const read = () =>
      call('getAttachment', { id: applicationId, attachment_id: created.id }, opts) as Promise<Attachment>;
    return until(read, (record) => record.status !== 'pending', `attachment ${created.id}`, opts);
  };

  client.runImport = async (
    params: { type: string; format: string },
    file: Blob | Uint8Array | string,
    opts: WaitOptions = {},
  ) => {
    const blob = blobOf(file);
    const created = (await call(
      'createImport',
      { body: { ...params, size: blob.size } },
      opts,
    )) as Result<'createImport'>;
    await upload(created.upload, blob, `import.${params.format}`, opts.signal);
    const read = () => call('getImport', { id: created.id }, opts) as Promise<Import>;
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
        throw new ApiError(
          answer.status,
          'results_unavailable',
          `the results answered ${answer.status}`,
          null,
          null,
          null,
        );
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

  return client as unknown as Client;
}

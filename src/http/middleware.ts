import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  FieldError,
  HttpError,
  payloadTooLarge,
  serviceUnavailable,
  unsupportedMediaType,
  badRequest,
  bodyTooComplex,
  internalError,
} from '../domain/errors';
import { boundFieldErrors } from '../domain/error-bounds';
import { jsonShapeProblem } from '../domain/json-shape';
import { languageOf, messageOf, translateFields } from './i18n/language';
import type { Language } from './i18n/messages';
import { logger } from './logger';
import { recordRequest } from './metrics';

export const MAX_BODY_BYTES = 1024 * 1024;

type Event = APIGatewayProxyEventV2 & { body?: unknown };
type Result = APIGatewayProxyStructuredResultV2;

export interface Request {
  event: Event;
  response: Result | undefined | null;
  error: unknown;
  internal: Record<string, unknown>;
  context: { awsRequestId?: string };
}

const ANSWER_HEADERS = Symbol('answer headers');

/**
 * Headers an inner middleware adds to the answer, whatever it is (the RateLimit
 * fields of src/http/auth.ts); an error's own headers win over them.
 */
export function setAnswerHeaders(request: { internal: object }, headers: Record<string, string>): void {
  (request.internal as { [ANSWER_HEADERS]?: Record<string, string> })[ANSWER_HEADERS] = headers;
}
const answerHeadersOf = (request: { internal: object }): Record<string, string> =>
  (request.internal as { [ANSWER_HEADERS]?: Record<string, string> })[ANSWER_HEADERS] ?? {};

/** Headers every response carries, errors included (contract §2, §3). */
function baseHeaders(requestId: string): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': requestId,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}

export const requestIdOf = (event: APIGatewayProxyEventV2): string => event.requestContext?.requestId ?? 'unknown';

const DYNAMO_UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'TransactionInProgressException',
  'TransactionConflictException',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

/** An error from elsewhere that declares its HTTP meaning the http-errors way (statusCode or status, expose). */
interface DeclaredHttpError {
  statusCode?: unknown;
  status?: unknown;
  expose?: unknown;
  code?: unknown;
  message?: unknown;
  headers?: unknown;
}

function fromDeclared(e: DeclaredHttpError): HttpError | undefined {
  const status = typeof e.statusCode === 'number' ? e.statusCode : e.status;
  if (typeof e.expose !== 'boolean' || typeof status !== 'number' || status < 400 || status > 599) return undefined;
  const code = typeof e.code === 'string' ? e.code : status < 500 ? 'bad_request' : 'internal_error';
  if (!e.expose) return new HttpError(status, code, { key: 'internal_error', params: {} });
  const headers = typeof e.headers === 'object' && e.headers !== null ? (e.headers as Record<string, string>) : {};
  return new HttpError(status, code, String(e.message ?? ''), headers);
}

/**
 * The error as the client sees it: our errors as they are, any error that
 * declares statusCode/expose as declared, DynamoDB and network faults as 503;
 * anything we did not anticipate is a 500 without internals.
 */
export function toHttpError(error: unknown): HttpError | FieldError {
  if (error instanceof HttpError || error instanceof FieldError) return error;
  const e = error as { name?: string; code?: string; $metadata?: unknown; cause?: { package?: string } };
  if (e?.cause?.package === '@middy/http-json-body-parser') return badRequest('invalid_json');
  if (e?.name && DYNAMO_UNAVAILABLE.has(e.name)) return serviceUnavailable();
  if (e?.code && NETWORK_CODES.has(e.code)) return serviceUnavailable();
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return serviceUnavailable();
  // The SDK's retry wraps a transport failure that is not an Error of this realm (jest's sandbox) this way.
  if ((error as Error)?.message?.startsWith('AWS SDK error wrapper for ')) return serviceUnavailable();
  return (e && fromDeclared(e as DeclaredHttpError)) ?? internalError();
}

/** An error as a response, its texts in `language` (contract §16); field keys and codes never change. */
export function errorResponse(error: unknown, requestId: string, language: Language = 'en'): Result {
  const http = toHttpError(error);
  const headers = { ...baseHeaders(requestId), 'Content-Language': language };
  if (http instanceof FieldError) {
    const fields = translateFields(boundFieldErrors(http.fields), language);
    return { statusCode: http.status, headers, body: JSON.stringify(fields) };
  }
  if (http.status >= 500) logger.error('request failed', { error: error as Error, status: http.status });
  return {
    statusCode: http.status,
    headers: { ...headers, ...http.headers },
    // Messages quote client values clipped already (domain/quote.ts); this caps any that do not.
    body: JSON.stringify({
      error: http.code,
      message: messageOf(http, language).slice(0, 1000),
      request_id: requestId,
    }),
  };
}

/**
 * Outermost middleware: request id and log context in, common headers out,
 * and the only place where thrown errors become responses.
 */
export const responseMiddleware = (route: string): MiddlewareObj => {
  // Per request, not per middleware: the local server runs requests of one handler concurrently.
  const startedAt = (request: { internal: object }): number =>
    Number((request.internal as { startedAt?: number }).startedAt ?? Date.now());
  const finish = (request: { internal: object }, status: number): void => {
    const started = startedAt(request);
    recordRequest(route, status, started);
    logger.debug('request done', { status, duration_ms: Date.now() - started });
    // Keys appended for this request (business, route, request id) must not label the next one's logs.
    logger.resetKeys();
  };
  return {
    before: (request) => {
      (request.internal as { startedAt?: number }).startedAt = Date.now();
      const event = request.event as Event;
      // A warm container's logger still holds the keys of the previous request if it ended abruptly.
      logger.resetKeys();
      logger.addContext(request.context as never);
      logger.appendKeys({ request_id: requestIdOf(event), route: event.routeKey });
    },
    after: (request) => {
      const requestId = requestIdOf(request.event as Event);
      const response = request.response as Result;
      request.response = {
        ...response,
        headers: { ...baseHeaders(requestId), ...answerHeadersOf(request), ...(response.headers ?? {}) },
      };
      finish(request, response.statusCode ?? 200);
    },
    onError: (request) => {
      const event = request.event as Event;
      const response = errorResponse(request.error, requestIdOf(event), languageOf(event.headers));
      response.headers = { ...answerHeadersOf(request), ...response.headers };
      request.response = response;
      finish(request, response.statusCode ?? 500);
    },
  };
};

/** Rejects oversized and non-JSON bodies before anything parses them. */
export const bodyGuardMiddleware = (): MiddlewareObj => ({
  before: (request) => {
    const event = request.event as Event;
    const raw = typeof event.body === 'string' ? event.body : '';
    const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
    if (bytes > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
    const headers = event.headers ?? {};
    const contentType = (headers['content-type'] ?? '').toLowerCase();
    if (raw.trim() === '') throw badRequest('body_not_object');
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/.test(contentType)) throw unsupportedMediaType();
    // The JSON parser middleware matches a lower-case media type only.
    event.headers = { ...headers, 'content-type': contentType };
  },
});

/** Right after JSON parsing: too deep or too wide bodies are 400 before anything recursive sees them (contract §2). */
export const bodyShapeMiddleware = (): MiddlewareObj => ({
  before: (request) => {
    const problem = jsonShapeProblem((request.event as Event).body);
    if (problem) throw bodyTooComplex(problem);
  },
});

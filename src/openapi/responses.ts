/**
 * The responses and headers operations share: errors in the contract's shapes, the rate-limit and stage-throttle
 * 429s, and the statuses only some routes have.
 */
import { LANGUAGES } from '../http/i18n/messages';
import type { RouteDefinition } from '../http/routes';
import { RATE_LIMIT_BOUNDS } from '../domain/rate-window';
import { proseSections } from './prose';
import type { JsonObject, OpenApiResponse } from './types';

/** The ranges of a rate limit, stated in the rate-limit texts. */
const { requests: REQUESTS, windowSeconds: WINDOW } = RATE_LIMIT_BOUNDS;

/** Response headers, referenced from every response that carries them; their texts in prose/headers.md. */
const HEADER_TEXT = proseSections('headers', {
  'requests.min': REQUESTS.min,
  'requests.max': REQUESTS.max,
  'window.min': WINDOW.min,
  'window.max': WINDOW.max,
});
const header = (name: string, rest: JsonObject): JsonObject => {
  const description = HEADER_TEXT[name];
  if (!description) throw new Error(`Header ${name} has no section in src/openapi/prose/headers.md`);
  return { description, ...rest };
};

export const HEADERS: Record<string, JsonObject> = {
  XRequestId: header('XRequestId', { required: true, schema: { type: 'string' } }),
  ETag: header('ETag', { required: true, schema: { type: 'string' } }),
  Location: header('Location', { required: true, schema: { type: 'string' } }),
  RestrictedFields: header('RestrictedFields', { schema: { type: 'string' } }),
  Link: header('Link', { schema: { type: 'string' } }),
  RetryAfter: header('RetryAfter', { required: true, schema: { type: 'integer', minimum: 0 } }),
  WWWAuthenticate: header('WWWAuthenticate', { required: true, schema: { type: 'string' } }),
  RateLimitPolicy: header('RateLimitPolicy', {
    schema: { type: 'string', pattern: '^"token";q=\\d+;w=\\d+, "business";q=\\d+;w=\\d+$' },
    example: '"token";q=600;w=60, "business";q=3000;w=60',
  }),
  RateLimit: header('RateLimit', {
    schema: { type: 'string', pattern: '^"token";r=\\d+;t=\\d+, "business";r=\\d+;t=\\d+$' },
    example: '"token";r=598;t=57, "business";r=2911;t=12',
  }),
  ContentLanguage: header('ContentLanguage', { required: true, schema: { type: 'string', enum: [...LANGUAGES] } }),
};

/** Statuses only some routes have (RouteDefinition.extraStatuses), described once. */
export const EXTRA_STATUS_RESPONSES: Record<string, (route: RouteDefinition) => OpenApiResponse> = {
  '410': (route) =>
    route.name === 'create-webhook-subscription'
      ? errorResponse(
          'The subscription this Idempotency-Key created has been deleted since; it is not created again and its secret is not shown: send a new key to subscribe again (`subscription_deleted`)',
          'subscription_deleted',
        )
      : route.method === 'POST'
        ? errorResponse(
            'The application this Idempotency-Key created was erased since (DELETE or retention); it is not created again: send a new key to create a new one (`application_erased`)',
            'application_erased',
          )
        : errorResponse(
            'The cursor is older than the change feed’s retention (30 days); start again without `after` (`cursor_expired`)',
            'cursor_expired',
          ),
};

export const headerRef = (name: keyof typeof HEADERS & string): JsonObject => ({
  $ref: `#/components/headers/${name}`,
});
export const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: JsonObject, example?: unknown): OpenApiResponse['content'] => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

export function response(
  description: string,
  content?: OpenApiResponse['content'],
  headers: Record<string, JsonObject> = {},
): OpenApiResponse {
  return {
    description,
    headers: { 'X-Request-Id': headerRef('XRequestId'), ...headers },
    ...(content ? { content } : {}),
  };
}

/** Every error response says which language its texts are in (contract §16). */
export const errorHeaders = (headers: Record<string, JsonObject> = {}): Record<string, JsonObject> => ({
  'Content-Language': headerRef('ContentLanguage'),
  ...headers,
});

export const errorResponse = (
  description: string,
  code: string,
  headers: Record<string, JsonObject> = {},
): OpenApiResponse =>
  response(
    description,
    json(schemaRef('ErrorBody'), {
      error: code,
      message: description.replace(/ \(`.*$/, ''),
      request_id: 'c0ffee00-0000-4000-8000-000000000000',
    }),
    errorHeaders(headers),
  );

/** API Gateway's own body when the stage throttle refuses a request before any function runs. */
const STAGE_THROTTLE_BODY = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };

/**
 * Stage throttling: API Gateway answers before any function runs, with its own
 * body and none of our headers (the only 429 of the routes without a token).
 */
export const THROTTLED: OpenApiResponse = {
  description:
    'Too many requests: the deployment’s rate limit (API Gateway stage throttling) was exceeded; nothing was done. Retry with backoff.',
  content: { 'application/json': { schema: STAGE_THROTTLE_BODY, example: { message: 'Too Many Requests' } } },
};

/** Contract §18: over the token's or the business's limit (or, rarely, the stage throttle above). */
export const RATE_LIMITED: OpenApiResponse = {
  description:
    'Over the rate limit of this token or of its business (`rate_limited`, `message` in the client\'s language): nothing was done, and an `Idempotency-Key` it carried is not used. `Retry-After` says when to send again; `RateLimit` shows `r=0` for the exhausted limit. Rarely the deployment\'s stage throttle answers instead, with API Gateway\'s body `{"message": "Too Many Requests"}` and none of these headers.',
  headers: {
    'X-Request-Id': headerRef('XRequestId'),
    'Content-Language': headerRef('ContentLanguage'),
    'Retry-After': {
      description: `Whole seconds until the exhausted limit's window admits again: 1 to W + 1, W being that limit's \`w\` (${WINDOW.min} to ${WINDOW.max}). Absent when the stage throttle answers.`,
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: WINDOW.max + 1 },
    },
  },
  content: {
    'application/json': {
      schema: { anyOf: [schemaRef('ErrorBody'), STAGE_THROTTLE_BODY] },
      example: {
        error: 'rate_limited',
        message:
          'This token exceeded its rate limit of 600 requests per 60 seconds; nothing was done, retry in 12 seconds',
        request_id: 'c0ffee00-0000-4000-8000-000000000000',
      },
    },
  },
};

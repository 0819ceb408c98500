import { RECORD_SCHEMAS } from '../domain/token-view';
import { MAX_BODY_BYTES } from '../http/middleware';
import { scopesOf, type RouteDefinition } from '../http/routes';
import {
  errorHeaders,
  errorResponse,
  EXTRA_STATUS_RESPONSES,
  headerRef,
  json,
  RATE_LIMITED,
  response,
  schemaRef,
  THROTTLED,
} from './responses';
import type { OpenApiResponse } from './types';

/**
 * What an operation answers, by status (src/openapi/build-document.ts lists the rules): its success with its
 * headers, the errors its request may meet, and those of any request.
 */

/** The `{name}` parameters of a route's path. */
export const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');

/** The body limit the runtime enforces, as the document states it. */
const MAX_BODY_MIB = MAX_BODY_BYTES / (1024 * 1024);

function successOf(route: RouteDefinition, response_: string | undefined): [string, OpenApiResponse] {
  if (route.method === 'DELETE') return ['204', response('Deleted; the id answers 404 from now on')];
  if (route.responseMediaType) {
    return ['200', response(route.summary, { [route.responseMediaType]: { schema: { type: 'string' } } })];
  }
  if (!response_) {
    return [
      '200',
      response(route.summary, json({ type: 'object', description: 'An OpenAPI 3.1 document' }), {
        ETag: headerRef('ETag'),
      }),
    ];
  }
  if (route.list) {
    return [
      '200',
      response('A page of records (an empty `entries` past the last page)', json(schemaRef(`${response_}Page`)), {
        Link: headerRef('Link'),
      }),
    ];
  }
  if (route.accepted) {
    return [
      '202',
      response('Accepted: the work runs on; poll the Location', json(schemaRef(response_)), {
        Location: headerRef('Location'),
      }),
    ];
  }
  if (route.acts) {
    return ['200', response('The record as it is now', json(schemaRef(response_)), { ETag: headerRef('ETag') })];
  }
  if (route.method === 'POST') {
    return [
      '201',
      response('Created; an idempotent replay answers the same', json(schemaRef(response_)), {
        Location: headerRef('Location'),
        ETag: headerRef('ETag'),
      }),
    ];
  }
  if (route.etag === false) return ['200', response(route.summary, json(schemaRef(response_)))];
  return [
    '200',
    response(route.method === 'PUT' ? 'Updated record' : 'The record', json(schemaRef(response_)), {
      ETag: headerRef('ETag'),
    }),
  ];
}

/** Every answer of a route by status: its success, the errors its request may meet, the errors of any request. */
export function responsesOf(
  route: RouteDefinition,
  hasBody: boolean,
  responseName: string | undefined,
): Record<string, OpenApiResponse> {
  const usesTable = route.access !== 'none' || route.auth;
  const responses: Record<string, OpenApiResponse> = {};
  const [successStatus, success] = successOf(route, responseName);
  responses[successStatus] = success;
  // Records a field grant may narrow: the answer names what it withheld; bodies and filters naming a withheld
  // field are refused.
  const granted = responseName !== undefined && RECORD_SCHEMAS[responseName] !== undefined;
  if (granted)
    responses[successStatus] = {
      ...success,
      headers: { ...success.headers, 'Restricted-Fields': headerRef('RestrictedFields') },
    };
  Object.assign(responses, badRequestResponses(route, hasBody, granted));
  if (route.auth) Object.assign(responses, authResponses(route));
  Object.assign(responses, targetResponses(route));
  if (hasBody) Object.assign(responses, bodyResponses(granted));
  const extra = new Set<number>(route.extraStatuses ?? []);
  for (const status of extra) {
    const key = String(status);
    responses[key] ??= EXTRA_STATUS_RESPONSES[key]?.(route) ?? errorResponse(`Error ${key}`, 'error');
  }
  responses['429'] = route.auth ? RATE_LIMITED : THROTTLED;
  responses['500'] = errorResponse(
    'Unexpected error, logged; never a stack trace (`internal_error`)',
    'internal_error',
  );
  if (usesTable) {
    responses['503'] = errorResponse(
      'The data store is throttled or unavailable; retry later (`service_unavailable`)',
      'service_unavailable',
      {
        'Retry-After': headerRef('RetryAfter'),
      },
    );
  }
  return route.auth ? withRateLimitHeaders(responses) : responses;
}

/** The 400 of a route's body or query, if it has either. */
function badRequestResponses(
  route: RouteDefinition,
  hasBody: boolean,
  granted: boolean,
): Record<string, OpenApiResponse> {
  const responses: Record<string, OpenApiResponse> = {};
  const hasQuery = route.query !== undefined;
  if (hasBody && hasQuery) {
    responses['400'] = response(
      'Body is not valid JSON or not a JSON object (`bad_request`), or query parameter errors',
      json({ oneOf: [schemaRef('ErrorBody'), schemaRef('FieldErrors')] }),
      errorHeaders(),
    );
  } else if (hasBody) {
    responses['400'] = errorResponse('Body is not valid JSON or not a JSON object (`bad_request`)', 'bad_request');
  } else if (hasQuery) {
    responses['400'] = response(
      granted
        ? 'Query parameter errors, keyed by parameter name; a filter on a field outside the token’s field grant is `is not permitted`'
        : 'Query parameter errors, keyed by parameter name',
      json(schemaRef('FieldErrors'), { per_page: ['is invalid'] }),
      errorHeaders(),
    );
  }
  return responses;
}

/** The 401 and 403 of a route that takes a token. */
function authResponses(route: RouteDefinition): Record<string, OpenApiResponse> {
  const responses: Record<string, OpenApiResponse> = {};
  responses['401'] = errorResponse(
    'Missing, malformed, unknown, revoked or expired bearer token (`unauthorized`)',
    'unauthorized',
    {
      'WWW-Authenticate': headerRef('WWWAuthenticate'),
    },
  );
  responses['403'] = errorResponse(
    `This token lacks the scope ${scopesOf(route).join(' or ')}${route.orScopes ? ' (or the one of the type concerned)' : ''} (\`insufficient_scope\`); nothing was read or changed`,
    'insufficient_scope',
    { 'WWW-Authenticate': headerRef('WWWAuthenticate') },
  );
  return responses;
}

/** What a route's target may answer: no such record, a refused media type, a reused key, a stale ETag. */
function targetResponses(route: RouteDefinition): Record<string, OpenApiResponse> {
  const responses: Record<string, OpenApiResponse> = {};
  const extra = new Set<number>(route.extraStatuses ?? []);
  if (pathParamsOf(route.path).length > 0 || extra.has(404)) {
    const description =
      pathParamsOf(route.path).length > 0
        ? 'No record with this id in your business (`not_found`)'
        : 'A record the body refers to does not exist in your business (`not_found`); the message names the id';
    responses['404'] = errorResponse(description, 'not_found');
  }
  if (!route.auth) {
    responses['406'] = errorResponse(
      'The `Accept` header excludes the media type of this resource (`not_acceptable`)',
      'not_acceptable',
    );
  }
  if (route.method === 'POST') {
    responses['409'] = errorResponse(
      'This Idempotency-Key was already used for another request: another method, path or body (`idempotency_key_reused`)',
      'idempotency_key_reused',
    );
  }
  if (route.method === 'PUT') {
    responses['412'] = errorResponse(
      'If-Match does not match the current ETag; nothing was written (`precondition_failed`)',
      'precondition_failed',
    );
  }
  return responses;
}

/** The errors of a request body: too large, not JSON, failing fields. */
function bodyResponses(granted: boolean): Record<string, OpenApiResponse> {
  const responses: Record<string, OpenApiResponse> = {};
  responses['413'] = errorResponse(`Body larger than ${MAX_BODY_MIB} MiB (\`payload_too_large\`)`, 'payload_too_large');
  responses['415'] = errorResponse(
    'Body not sent as `Content-Type: application/json` (`unsupported_media_type`)',
    'unsupported_media_type',
  );
  responses['422'] = response(
    granted
      ? 'Field errors: every failing field at once, Rails wording; nothing was written. A field outside the token’s field grant (or, creating, a mandatory field it lacks) is `is not permitted`'
      : 'Field errors: every failing field at once, Rails wording; nothing was written',
    json(schemaRef('FieldErrors'), { last_name: ["can't be blank"], email: ['is invalid'] }),
    errorHeaders(),
  );
  return responses;
}

/** Contract §18: every answer to a request with a valid token carries the RateLimit fields (not a 401). */
function withRateLimitHeaders(responses: Record<string, OpenApiResponse>): Record<string, OpenApiResponse> {
  for (const [status, r] of Object.entries(responses))
    if (status !== '401')
      responses[status] = {
        ...r,
        headers: {
          ...r.headers,
          'RateLimit-Policy': headerRef('RateLimitPolicy'),
          RateLimit: headerRef('RateLimit'),
        },
      };
  return responses;
}

import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES, scopesOf, type RouteDefinition, type RouteName } from './routes';
import { FieldErrorCollector, MESSAGES } from '../domain/errors';
import { authMiddleware, knownRefusalAnswer, tokenViewOf, type AuthContext } from './auth';
import {
  checkFilters,
  deniedBodyFields,
  projectResult,
  RECORD_SCHEMAS,
  ungrantedAsNotPermitted,
} from '../services/token-view';
import { bodyGuardMiddleware, bodyShapeMiddleware, responseMiddleware } from './middleware';
import type { ApiResult } from '../domain/result';
import { requestContextOf, withinRequest, type RequestContext, type RequestSource } from './request-context';
import type { BodyValidator, QueryValidator } from '../schemas/validation';
import type { GrantType, TokenView } from '../domain/token-view';

export interface ApiRequest<Q, B> {
  /** What the request is (business, token, origin, deadline, idempotency), for the services it calls. */
  readonly context: RequestContext;
  readonly requestId: string;
  /** Empty business id on the public routes only. */
  readonly auth: AuthContext;
  readonly params: Record<string, string>;
  readonly query: Q;
  /** The body after schema validation; `fieldErrors` holds what failed, for the domain to add to and throw. */
  readonly body: B;
  readonly fieldErrors: FieldErrorCollector;
  /** Lower-case header names. */
  readonly headers: Record<string, string | undefined>;
  readonly method: string;
  readonly path: string;
  /** Query parameters as sent, for links that keep the client's filters. */
  readonly rawQuery: Record<string, string>;
}

export interface HandlerSpec<Q, B> {
  readonly route: RouteName;
  readonly query?: QueryValidator<Q>;
  readonly body?: BodyValidator<B>;
}

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export function routeOf(name: RouteName): RouteDefinition {
  const route: RouteDefinition | undefined = ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`No route named ${name}`);
  return route;
}

const rawQueryOf = (event: APIGatewayProxyEventV2): Record<string, string> =>
  Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;

/**
 * The one way an endpoint is built: authenticate and check the route's scope, guard and parse the body,
 * validate query and body against the route's schemas, call the domain,
 * serialize. Errors thrown anywhere are mapped by responseMiddleware only.
 */
export function apiHandler<Q = Record<string, never>, B = undefined>(
  spec: HandlerSpec<Q, B>,
  run: (request: ApiRequest<Q, B>) => Promise<ApiResult>,
): LambdaHandler {
  const route = routeOf(spec.route);
  // Routes answering employees, jobs or applications: what they answer passes the projection step (contract §25).
  const recordType = route.response === undefined ? undefined : RECORD_SCHEMAS[route.response];
  const middlewares: MiddlewareObj[] = [responseMiddleware(route.name)];
  if (route.auth) middlewares.push(authMiddleware(scopesOf(route), route.method === 'GET', route.tokenAlong === true));
  if (spec.body) middlewares.push(bodyGuardMiddleware(), httpJsonBodyParser() as MiddlewareObj, bodyShapeMiddleware());

  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(middlewares)
    .handler(async (event, context) => {
      const auth = (context as { auth?: AuthContext }).auth;
      if (!auth?.verified) return respond(event, auth, await answer(event, context));
      // The token is still being looked up (a read, src/http/auth.ts): its refusal outranks whatever the read
      // answered or threw, and nothing read leaves before the token is admitted.
      // A token to be read along that the handler did not take (it failed before its read) is read on its own.
      const answered = answer(event, context).finally(() => auth.readTokenUnlessTaken?.());
      const [outcome, verified] = await Promise.allSettled([answered, auth.verified]);
      if (verified.status === 'rejected') throw verified.reason;
      if (outcome.status === 'rejected') throw outcome.reason;
      return respond(event, auth, outcome.value);
    });

  /** The response step: what the route answered, as the token may see it (contract §25), serialized. */
  async function respond(
    event: APIGatewayProxyEventV2,
    auth: AuthContext | undefined,
    answered: ApiResult,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    let result = answered;
    if (recordType && auth) {
      const view = await tokenViewOf(auth);
      if (route.list) checkFilters(view, recordType, rawQueryOf(event));
      result = projectResult(view, recordType, route.list === true, result);
    }
    const isText = typeof result.body === 'string';
    return {
      statusCode: result.status,
      headers: result.headers,
      body: isText ? (result.body as string) : JSON.stringify(result.body),
    };
  }

  async function answer(event: APIGatewayProxyEventV2, context: Context): Promise<ApiResult> {
    const fieldErrors = new FieldErrorCollector();
    const auth = (context as { auth?: AuthContext }).auth;
    const request = requestOf<Q, B>(spec, event, { event, auth, endsAt: endsAtOf(context) }, fieldErrors);
    const view = recordType && spec.body && auth ? await tokenViewOf(auth) : undefined;
    if (recordType && view) refuseUngrantedBody(view, recordType, event, route.method === 'POST', fieldErrors);
    const answered = run(request);
    // A create missing a mandatory field the token may not send (a required custom field) says so (contract §25).
    if (!recordType || !view || route.method !== 'POST') return answered;
    return answered.catch((error: unknown) => {
      throw ungrantedAsNotPermitted(view, recordType, error);
    });
  }
  // A token this instance counts full is refused before anything else (src/http/auth.ts knownRefusalAnswer).
  return (async (event, context) =>
    (route.auth ? knownRefusalAnswer(event, route.name) : undefined) ??
    withinRequest(route.name, context.getRemainingTimeInMillis(), (endsAt) =>
      handler(event, Object.assign(context, { [ENDS_AT]: endsAt })),
    )) as LambdaHandler;
}

/** Where the request's deadline rides on the Lambda context from withinRequest to the request built. */
const ENDS_AT = Symbol('endsAt');
const endsAtOf = (context: Context): number => (context as { [ENDS_AT]?: number })[ENDS_AT] ?? Infinity;

/** The request a route's function gets: its context, and query and body validated. */
function requestOf<Q, B>(
  spec: HandlerSpec<Q, B>,
  event: APIGatewayProxyEventV2,
  source: RequestSource,
  fieldErrors: FieldErrorCollector,
): ApiRequest<Q, B> {
  const rawQuery = rawQueryOf(event);
  const context = requestContextOf(source);
  return {
    context,
    requestId: context.requestId,
    auth: context.auth,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: spec.query ? spec.query(rawQuery) : ({} as Q),
    body: spec.body ? (spec.body((event as { body?: unknown }).body, fieldErrors) as B) : (undefined as B),
    fieldErrors,
    headers: event.headers ?? {},
    method: event.requestContext.http.method,
    path: event.rawPath,
    rawQuery,
  };
}

/** A body naming a field outside the token's grant is refused before anything is written (contract §25). */
function refuseUngrantedBody(
  view: TokenView,
  recordType: GrantType,
  event: APIGatewayProxyEventV2,
  create: boolean,
  fieldErrors: FieldErrorCollector,
): void {
  const denied = deniedBodyFields(view, recordType, (event as { body?: unknown }).body, create);
  for (const field of denied) fieldErrors.only(field, MESSAGES.notPermitted);
  if (denied.length > 0) fieldErrors.throwIfAny();
}

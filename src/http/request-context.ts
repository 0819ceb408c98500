import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { requestBudgetMs, requestHardBudgetMs, runWithDeadline } from '../data/deadline';
import { inCallScope } from '../data/dynamo/call-scope';
import { idempotencyOf } from '../data/idempotency';
import { currentOrigin, runWithOrigin } from '../data/write-origin';
import { ADMIN_ORIGIN } from '../domain/audit';
import type { RequestContext as ServiceContext } from '../services/request-context';
import type { AuthContext } from './auth';
import { idempotencyKeyOf } from './idempotency-key';
import { requestIdOf } from './middleware';

/**
 * What a request is (src/services/request-context.ts), built once by the http
 * layer (apiHandler) and handed to the route's function, which passes on what
 * its service needs. Its token is the auth step's (scopes, field grants, hash,
 * the read that rides along). The data layer keeps its own view of deadline,
 * origin and route in the request scope (src/data/request-scope.ts), entered
 * here once (withinRequest).
 */
export interface RequestContext extends ServiceContext {
  readonly auth: AuthContext;
  readonly requestId: string;
}

export interface RequestSource {
  readonly event: APIGatewayProxyEventV2;
  readonly auth: AuthContext | undefined;
  readonly endsAt: number;
}

export function requestContextOf({ event, auth, endsAt }: RequestSource): RequestContext {
  const businessId = auth?.businessId ?? '';
  const target = { method: event.requestContext.http.method, path: event.rawPath };
  return {
    businessId,
    auth: auth ?? { businessId },
    requestId: requestIdOf(event),
    endsAt,
    origin: currentOrigin,
    idempotency: (body) => idempotencyOf(businessId, idempotencyKeyOf(event.headers ?? {}), body, target),
  };
}

/**
 * Runs `fn` as the request of `route`: within the request's deadline (from
 * the function's time left), its DynamoDB calls attributed to the route (its
 * IAM grant is checked against them in the tests), its writes made as the
 * admin tool until the auth step names its verified token.
 */
export function withinRequest<T>(
  route: string,
  remainingInFunctionMs: number,
  fn: (endsAt: number) => Promise<T>,
): Promise<T> {
  const budgetMs = requestBudgetMs(remainingInFunctionMs);
  const endsAt = Date.now() + budgetMs;
  return runWithDeadline(
    budgetMs,
    () => inCallScope(route, () => runWithOrigin(ADMIN_ORIGIN, () => fn(endsAt))),
    requestHardBudgetMs(remainingInFunctionMs),
  );
}

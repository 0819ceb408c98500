import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { requestBudgetMs, requestHardBudgetMs, runWithDeadline } from '../data/deadline';
import { inCallScope } from '../data/dynamo/call-scope';
import { idempotencyOf, type Idempotency } from '../data/idempotency';
import { currentOrigin, runWithOrigin } from '../data/write-origin';
import { ADMIN_ORIGIN, type WriteOrigin } from '../domain/audit';
import type { AuthContext } from './auth';
import { idempotencyKeyOf } from './idempotency-key';
import { requestIdOf } from './middleware';

/**
 * What a request is, built once by the http layer (apiHandler) and handed to
 * the route's function, which passes on what its service needs: the business
 * and token (scopes, field grants, hash), who it writes as, its deadline and
 * its idempotency. The data layer keeps its own view of deadline, origin and
 * route in the request scope (src/data/request-scope.ts), entered here once.
 */
export interface RequestContext {
  /** The verified token's business; empty on the public routes only. */
  readonly businessId: string;
  /** The token: scopes, field grants, hash, the read that rides along (src/http/auth.ts). */
  readonly auth: AuthContext;
  readonly requestId: string;
  /** When the request's data work must be over (epoch ms). */
  readonly endsAt: number;
  /** Who the request's writes are made by (contract §20): its token once the auth step has verified it. */
  origin(): WriteOrigin;
  /** The create's idempotency (contract §11) from the Idempotency-Key header, bound to `body`; none without one. */
  idempotency(body: unknown): Idempotency | undefined;
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

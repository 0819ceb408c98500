import { idempotencyOf, type Idempotency, type RequestTarget } from '../data/idempotency';
import { currentOrigin } from '../data/write-origin';
import type { WriteOrigin } from '../domain/audit';
import type { Scope } from '../domain/scopes';
import type { FieldGrants } from '../domain/token-view';

/** The token a request is made with, as services need it (src/http/auth.ts AuthContext is one). */
export interface RequestToken {
  /** The verified token's business; empty on the public routes only. */
  readonly businessId: string;
  readonly scopes?: readonly Scope[];
  /** The token's field grants (contract §25); undefined = every field. */
  readonly grants?: FieldGrants;
  /** The token's hash: what a subscription, export or import keeps of the token that created it. */
  readonly tokenHash?: string;
}

/**
 * What a request is, handed to the services that need it as an argument: the
 * http layer builds it once per request (src/http/request-context.ts); the
 * admin tool, benchmarks and tests build one with `adminContext`.
 */
export interface RequestContext {
  readonly businessId: string;
  readonly auth: RequestToken;
  readonly requestId: string | null;
  /** When the request's data work must be over (epoch ms; Infinity outside a request). */
  readonly endsAt: number;
  /** Who the request's writes are made by (contract §20). */
  origin(): WriteOrigin;
  /** A create's idempotency (contract §11), bound to `body`; undefined without an Idempotency-Key. */
  idempotency(body: unknown): Idempotency | undefined;
}

/**
 * A context for writes outside an API request (the admin tool, benchmarks,
 * tests): made as whoever the running operation writes as (the admin tool
 * unless named), idempotent under `idempotencyKey` when one is given.
 */
export function adminContext(
  businessId: string,
  request: Partial<RequestTarget> & { readonly idempotencyKey?: string } = {},
): RequestContext {
  const target = { method: request.method ?? 'POST', path: request.path ?? '' };
  return {
    businessId,
    auth: { businessId },
    requestId: null,
    endsAt: Infinity,
    origin: currentOrigin,
    idempotency: (body) => idempotencyOf(businessId, request.idempotencyKey, body, target),
  };
}

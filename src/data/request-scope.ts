import { AsyncLocalStorage } from 'node:async_hooks';
import type { WriteOrigin } from '../domain/audit';
import type { OperationState } from './dynamo/operation-state';

/**
 * What the data layer knows of the operation its calls run for, in one place:
 * - `deadline`: when the request's data work must be over, and when a write
 *   already sent must be (src/data/deadline.ts);
 * - `origin`: who its writes are made by, for the change-feed entries they
 *   append (src/data/write-origin.ts); a holder, so the http layer can name the
 *   token once its auth step has verified it;
 * - `route`: which function (route) its DynamoDB calls are made for
 *   (src/data/dynamo/call-scope.ts);
 * - `operation`: the optimistic operation (withRetries) it runs in
 *   (src/data/dynamo/operation-state.ts);
 * - `background`, `beside`: calls left out of, or counted apart from, the
 *   request's own statistics (src/data/dynamo/client.ts).
 * Kept per operation in the one AsyncLocalStorage of src/, so concurrent
 * requests of one process never see each other's; outside any (admin tool,
 * tests calling the data layer) every part is absent.
 */
export interface RequestScope {
  readonly deadline?: { readonly endsAt: number; readonly hardEndsAt: number };
  readonly origin?: { origin: WriteOrigin };
  readonly route?: string;
  readonly operation?: OperationState;
  readonly background?: true;
  readonly beside?: true;
}

const NONE: RequestScope = {};
const store = new AsyncLocalStorage<RequestScope>();

/** The scope the caller runs in (every part absent outside one). */
export const currentScope = (): RequestScope => store.getStore() ?? NONE;

/** Runs `fn` in the caller's scope with the parts of `change` replaced. */
export const withinScope = <T>(change: RequestScope, fn: () => T): T =>
  store.run({ ...store.getStore(), ...change }, fn);

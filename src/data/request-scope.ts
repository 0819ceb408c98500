import { AsyncLocalStorage } from 'node:async_hooks';
import type { WriteOrigin } from '../domain/audit';

type Item = Record<string, unknown>;

/**
 * What the attempts of one optimistic operation (withRetries) share:
 * - `kept`: what they read once, the business config, which only an import
 *   changes, so a re-run after a refusal reads again only what concurrent
 *   writers move (counters, lanes, records). Under contention most re-runs are
 *   such refusals, and the config is the largest item most writes read.
 * - `ended`: aborted when the operation ends, however it ends (committed,
 *   an error, out of attempts or time), for whatever its calls leave behind
 *   that must not outlive it (the local server's turns, scripts/lib/process-turns.ts).
 * withRetries (src/data/dynamo/with-retries.ts) makes one per operation.
 */
export interface OperationState {
  readonly kept: Map<string, Item>;
  readonly ended: AbortSignal;
}

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

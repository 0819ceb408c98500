import { currentScope } from '../request-scope';

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
 */
export interface OperationState {
  readonly kept: Map<string, Item>;
  readonly ended: AbortSignal;
}

/** The optimistic operation the caller runs in, if any (part of its request scope, src/data/request-scope.ts). */
export const currentOperation = (): OperationState | undefined => currentScope().operation;

/** Thrown inside an optimistic operation to re-run it from its read (withRetries, src/data/dynamo/with-retries.ts). */
export class RetryOperation extends Error {
  /**
   * `retryAfterMs`: how long to pause before the re-run, when whoever saw the refusal knows better than the
   * retry pause (retryPauseMs): 0 once it has already waited for what refused the operation.
   */
  constructor(readonly retryAfterMs?: number) {
    super('retry');
    this.name = 'RetryOperation';
  }
}

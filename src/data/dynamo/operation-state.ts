import { currentScope, type OperationState } from '../request-scope';

export type { OperationState };

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

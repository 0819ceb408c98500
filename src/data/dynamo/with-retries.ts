import { serviceUnavailable } from '../../domain/errors';
import { remainingMs, sleepWithin } from '../deadline';
import { writeStats } from './write-stats';
import { retryPauseMs } from './retry-pause';
import { currentOperation, RetryOperation, type OperationState } from './operation-state';
import { withinScope } from '../request-scope';

/**
 * Optimistic operations (read, decide, conditional write) re-run from the read
 * (all of it but the business config: OperationState) when a concurrent writer
 * got there first, after a pause scaled to the refused attempt that shrinks as
 * refusals add up (retryPauseMs), or as long as the refusal says
 * (RetryOperation.retryAfterMs: a client middleware that already waited).
 * Bounded in attempts and by the request's deadline; then 503.
 */
export async function withRetries<T>(operation: () => Promise<T>, attempts = 40): Promise<T> {
  const outer = currentOperation();
  if (outer) return retrying(operation, attempts);
  const ended = new AbortController();
  const state: OperationState = { kept: new Map(), ended: ended.signal };
  try {
    return await withinScope({ operation: state }, () => retrying(operation, attempts));
  } finally {
    ended.abort();
  }
}

async function retrying<T>(operation: () => Promise<T>, attempts: number): Promise<T> {
  const began = performance.now();
  let attempt = 0;
  let refusals = 0;
  try {
    for (; ; attempt++) {
      const started = performance.now();
      try {
        return await operation();
      } catch (error) {
        if (!(error instanceof RetryOperation)) throw error;
        refusals += 1;
        if (attempt + 1 >= attempts) {
          writeStats.exhausted += 1;
          throw serviceUnavailable();
        }
        writeStats.retries += 1;
        // Within the request's deadline: 503 + Retry-After rather than a function timeout. The re-run reads
        // again (docs/decisions/003-write-contention.md).
        if (error.retryAfterMs === 0) continue;
        const pauseStarted = performance.now();
        const pauseMs =
          error.retryAfterMs ?? retryPauseMs(pauseStarted - started, attempt + 1, Math.random(), remainingMs());
        try {
          await sleepWithin(pauseMs);
        } catch (e) {
          writeStats.exhausted += 1;
          throw e;
        }
        writeStats.pauseMs += performance.now() - pauseStarted;
      }
    }
  } finally {
    writeStats.attempts[attempt + 1] = (writeStats.attempts[attempt + 1] ?? 0) + 1;
    writeStats.refusals[refusals] = (writeStats.refusals[refusals] ?? 0) + 1;
    writeStats.operationMs += performance.now() - began;
  }
}

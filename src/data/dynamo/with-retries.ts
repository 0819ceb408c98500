import { serviceUnavailable } from '../../domain/errors';
import { remainingMs, sleepWithin } from '../deadline';
import { writeStats } from './write-stats';
import { retryPauseMs } from './retry-pause';
import {
  currentOperation,
  RetryOperation,
  turnsOfProcess,
  type OperationState,
  type WriterTurns,
} from './operation-state';
import { withinScope } from '../request-scope';

/**
 * The turn on the items a refusal named, with those the operation holds
 * already (all released and taken again in order, so no two writers wait for
 * each other). `'waited'`: another writer of this process had it, and has
 * finished with it; the re-run can start at once.
 */
async function takeTurnOn(
  turns: WriterTurns,
  contended: readonly string[],
  state: OperationState,
): Promise<'free' | 'waited' | 'held'> {
  if (contended.every((key) => state.held.has(key))) return 'held';
  const wanted = new Set([...state.held, ...contended]);
  turns.releaseTurns(state.held, state.owner);
  state.held = new Set();
  const turn = await turns.takeTurns(wanted, state.owner, remainingMs());
  if (turn === 'timeout') {
    writeStats.exhausted += 1;
    throw serviceUnavailable();
  }
  state.held = wanted;
  if (turn === 'waited') writeStats.turnWaits += 1;
  return turn;
}

/**
 * Optimistic operations (read, decide, conditional write) re-run from the read
 * (all of it but the business config: OperationState) when a concurrent writer
 * got there first. Where the process takes turns (the local server:
 * WriterTurns, src/data/dynamo/operation-state.ts), a writer refused on items that
 * other writers of this process were refused on too waits for its turn on
 * them and re-runs when it comes; otherwise it pauses for a time scaled to
 * the refused attempt that shrinks as refusals add up (retryPauseMs). Bounded
 * in attempts and by the request's deadline; then 503.
 */
export async function withRetries<T>(operation: () => Promise<T>, attempts = 40): Promise<T> {
  const outer = currentOperation();
  if (outer) return retrying(operation, attempts, outer);
  const state: OperationState = { kept: new Map(), owner: Symbol('writer'), held: new Set() };
  try {
    return await withinScope({ operation: state }, () => retrying(operation, attempts, state));
  } finally {
    turnsOfProcess()?.releaseTurns(state.held, state.owner);
  }
}

async function retrying<T>(operation: () => Promise<T>, attempts: number, state: OperationState): Promise<T> {
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
        if (error.refused) refusals += 1;
        if (attempt + 1 >= attempts) {
          writeStats.exhausted += 1;
          throw serviceUnavailable();
        }
        writeStats.retries += 1;
        // Within the request's deadline: 503 + Retry-After rather than a function timeout. The re-run reads
        // again (docs/decisions/003-write-contention.md).
        const pauseStarted = performance.now();
        // Pausing spaces a refused writer from its rivals; one that waited for its turn, or was not refused
        // (it yielded to a holder that has since finished), has none left in this process.
        const turns = turnsOfProcess();
        const turn = turns ? await takeTurnOn(turns, error.contended, state) : undefined;
        if (turn === 'waited' || !error.refused) {
          writeStats.pauseMs += performance.now() - pauseStarted;
          continue;
        }
        const pause = sleepWithin(retryPauseMs(pauseStarted - started, attempt + 1, Math.random(), remainingMs()));
        const wanted = turns?.untilWanted(state.owner);
        try {
          await (wanted ? Promise.race([pause, wanted.wanted]) : pause);
        } catch (e) {
          writeStats.exhausted += 1;
          throw e;
        } finally {
          wanted?.stop();
          pause.catch(() => undefined);
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

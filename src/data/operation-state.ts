import { AsyncLocalStorage } from 'node:async_hooks';
import { heldByOthers } from './process-turns';

type Item = Record<string, unknown>;

/**
 * What the attempts of one optimistic operation (withRetries) share:
 * - `kept`: what they read once, the business config, which only an import
 *   changes, so a re-run after a refusal reads again only what concurrent
 *   writers move (counters, lanes, records). Under contention most re-runs are
 *   such refusals, and the config is the largest item most writes read.
 * - `owner` and `held`: the operation's turns on the items it was refused on
 *   (src/data/process-turns.ts).
 */
export interface OperationState {
  readonly kept: Map<string, Item>;
  readonly owner: symbol;
  held: Set<string>;
}

export const operationState = new AsyncLocalStorage<OperationState>();

/** The optimistic operation the caller runs in, if any. */
export const currentOperation = (): OperationState | undefined => operationState.getStore();

/**
 * An attempt about to read or write an item another writer of this process
 * holds the turn on would race it through the store: it waits for its turn
 * instead (a re-run, nothing sent).
 */
export function yieldToHolders(ids: readonly string[], state: OperationState): void {
  const held = heldByOthers(ids, state.owner);
  if (held.length > 0) throw new RetryOperation(held, false);
}

/** Thrown inside an optimistic operation to re-run it from its read (withRetries, src/data/with-retries.ts). */
export class RetryOperation extends Error {
  /**
   * `contended`: the items (keyId) whose refusal or holder made the operation re-run; `refused`: whether
   * the store refused a transaction (or the attempt yielded before sending anything).
   */
  constructor(
    readonly contended: readonly string[] = [],
    readonly refused = true,
  ) {
    super('retry');
    this.name = 'RetryOperation';
  }
}

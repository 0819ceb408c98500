import { currentScope } from '../request-scope';

type Item = Record<string, unknown>;

/**
 * What the attempts of one optimistic operation (withRetries) share:
 * - `kept`: what they read once, the business config, which only an import
 *   changes, so a re-run after a refusal reads again only what concurrent
 *   writers move (counters, lanes, records). Under contention most re-runs are
 *   such refusals, and the config is the largest item most writes read.
 * - `owner` and `held`: the operation's turns on the items it was refused on,
 *   when the process takes turns (WriterTurns).
 */
export interface OperationState {
  readonly kept: Map<string, Item>;
  readonly owner: symbol;
  held: Set<string>;
}

/** The optimistic operation the caller runs in, if any (part of its request scope, src/data/request-scope.ts). */
export const currentOperation = (): OperationState | undefined => currentScope().operation;

/**
 * Turns of the writers of one process on the items they were refused on: a
 * refused writer waits behind the other writers of its process refused on the
 * same item instead of racing them again through the store. Only a process
 * that serves many requests at once needs them: the local server injects them
 * (scripts/lib/process-turns.ts, through `takeWriterTurns`); a Lambda
 * instance serves one request at a time and has none, so there reads and
 * transactions never look for holders and a refused writer only pauses.
 */
export interface WriterTurns {
  /** The keys of `keys` another writer of this process holds or queues for. */
  heldByOthers(keys: Iterable<string>, owner: symbol): string[];
  /** Takes the turn on every key, waiting at most `withinMs` in all ('timeout': holds none). */
  takeTurns(keys: Iterable<string>, owner: symbol, withinMs: number): Promise<'free' | 'waited' | 'timeout'>;
  /** Hands each key `owner` holds to the next writer waiting for it, or frees it. */
  releaseTurns(keys: Iterable<string>, owner: symbol): void;
  /** Resolves when another writer of this process starts waiting for a turn `owner` holds. */
  untilWanted(owner: symbol): { readonly wanted: Promise<void>; readonly stop: () => void };
}

let writerTurns: WriterTurns | undefined;

/** From now on the writers of this process take turns (the local server calls it once). */
export function takeWriterTurns(turns: WriterTurns): void {
  writerTurns = turns;
}

/** The turns writers of this process take, if any. */
export const turnsOfProcess = (): WriterTurns | undefined => writerTurns;

/**
 * An attempt about to read or write an item another writer of this process
 * holds the turn on would race it through the store: it waits for its turn
 * instead (a re-run, nothing sent).
 */
export function yieldToHolders(ids: readonly string[], state: OperationState): void {
  if (!writerTurns) return;
  const held = writerTurns.heldByOthers(ids, state.owner);
  if (held.length > 0) throw new RetryOperation(held, false);
}

/** Thrown inside an optimistic operation to re-run it from its read (withRetries, src/data/dynamo/with-retries.ts). */
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

import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Re-runs of an optimistic operation without re-reading (docs/pagination.md,
 * "Concurrent writers").
 *
 * An operation (read, decide, conditional TransactWriteItems) re-runs from its
 * read when a concurrent writer got there first. When the refusal says exactly
 * what changed (every refused item's condition failed, and DynamoDB returned
 * that item's current value: ReturnValuesOnConditionCheckFailure ALL_OLD), the
 * re-run takes those values instead of reading again: one round trip less per
 * conflict, and the window in which yet another writer can get in between
 * shrinks to the transaction itself. Items whose conditions held are as they
 * were read (their conditions still guard them); a refusal that does not name
 * its cause (TransactionConflict, throttling) makes the re-run read everything.
 */
type Stored = Record<string, unknown> | undefined;

interface Operation {
  /** Everything this operation read, by key id, patched with what refusals reported. */
  readonly items: Map<string, Stored>;
  /** Whether `items` is as current as a fresh read would be (the last refusal named every change). */
  current: boolean;
  /** How long this operation's last read took: a re-run that waits longer than this reads again instead. */
  readMs: number;
}

const scope = new AsyncLocalStorage<Operation>();

/** No read answers sooner than this, however fast the last one was. */
const A_ROUND_TRIP_MS = 10;

/** Runs `fn` (all attempts of one operation) with its own memory of what was read. */
export function withReadMemory<T>(fn: () => Promise<T>): Promise<T> {
  return scope.run({ items: new Map(), current: false, readMs: 0 }, fn);
}

/** The items of `ids` as a fresh read would return them, if a refusal told us; undefined = read them. */
export function knownItems(ids: readonly string[]): Stored[] | undefined {
  const op = scope.getStore();
  if (!op?.current || !ids.every((id) => op.items.has(id))) return undefined;
  return ids.map((id) => op.items.get(id));
}

/** Remembers what a read returned and how long it took (inside an operation; a no-op elsewhere). */
export function rememberRead(ids: readonly string[], items: readonly Stored[], tookMs: number): void {
  const op = scope.getStore();
  if (!op) return;
  ids.forEach((id, i) => op.items.set(id, items[i]));
  op.readMs = tookMs;
}

/**
 * What a refusal said before the operation re-runs after `pauseMs`: the
 * current value of every item whose condition failed (by key id), or
 * undefined when the refusal does not name every cause. Values age while the
 * operation waits (other writers go on committing), so they replace a read
 * only when the pause is shorter than a read: the re-run is then both sooner
 * and fresher than one that reads. After a longer pause it reads again.
 */
export function learnRefusal(changed: ReadonlyMap<string, Stored> | undefined, pauseMs: number): boolean {
  const op = scope.getStore();
  if (!op) return false;
  if (!changed || pauseMs > Math.max(op.readMs, A_ROUND_TRIP_MS)) {
    op.current = false;
    return false;
  }
  for (const [id, item] of changed) op.items.set(id, item);
  op.current = true;
  return true;
}

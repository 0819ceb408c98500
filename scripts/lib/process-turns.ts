/**
 * Turns within one process on the items optimistic writers were refused on
 * (src/data/dynamo/with-retries.ts; docs/pagination.md, consistency notes).
 *
 * A writer refused on an item (a list counter, a feed lane, a record) waits
 * for its turn on that item behind the other writers of this process that
 * were refused on it, first come first served, and re-runs when its turn
 * comes; a writer that finds an item it is about to read or write held by
 * another writer of this process joins the queue instead of racing the holder
 * through the store. So writers of one process never race each other more than
 * once: the local server serves many requests in one process, and on DynamoDB
 * Local, which works on one thread, every lost race costs the other writers
 * as much store time as a commit. The local server injects them
 * (`processTurns`, taken by createLocalServer through takeWriterTurns of
 * src/data/dynamo/operation-state.ts). A Lambda instance serves one request at a
 * time and has none: writers of different instances race through conditions
 * (with the pauses of src/data/dynamo/retry-pause.ts).
 *
 * Nothing is stored: a turn is a promise in this process's memory, released
 * when its operation ends however it ends. Keys are taken in sorted order and
 * a writer never waits for a key while holding one it took out of order, so
 * writers cannot wait for each other in a circle.
 */

import type { WriterTurns } from '../../src/data/dynamo/operation-state';

interface Queue {
  holder: symbol;
  readonly waiters: { readonly owner: symbol; readonly granted: () => void }[];
}

const queues = new Map<string, Queue>();
/** Holders pausing between attempts, woken when a writer of this process starts waiting for their turn. */
const pausing = new Map<symbol, () => void>();

/** Whether another writer of this process holds or queues for one of `keys`: the ones it holds. */
export function heldByOthers(keys: Iterable<string>, owner: symbol): string[] {
  const held: string[] = [];
  for (const key of keys) {
    const queue = queues.get(key);
    if (queue && queue.holder !== owner) held.push(key);
  }
  return held;
}

/**
 * Takes the turn on every key of `keys` for `owner`, in sorted order, waiting
 * at most `withinMs` in all. Resolves whether it had to wait for another
 * writer (`'waited'`), got every turn at once (`'free'`), or ran out of time
 * (`'timeout'`: then it holds none of them).
 */
export async function takeTurns(
  keys: Iterable<string>,
  owner: symbol,
  withinMs: number,
): Promise<'free' | 'waited' | 'timeout'> {
  const sorted = [...new Set(keys)].sort();
  const endsAt = Date.now() + withinMs;
  let waited = false;
  const taken: string[] = [];
  for (const key of sorted) {
    const queue = queues.get(key);
    if (!queue) {
      queues.set(key, { holder: owner, waiters: [] });
      taken.push(key);
      continue;
    }
    if (queue.holder === owner) continue;
    waited = true;
    if (!(await waitForTurn(queue, owner, endsAt - Date.now()))) {
      releaseTurns(taken, owner);
      return 'timeout';
    }
    taken.push(key);
  }
  return waited ? 'waited' : 'free';
}

function waitForTurn(queue: Queue, owner: symbol, withinMs: number): Promise<boolean> {
  if (withinMs <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const waiter = {
      owner,
      granted: () => {
        clearTimeout(timer);
        resolve(true);
      },
    };
    // Outside a request (admin tool, tests calling the data layer) there is no deadline.
    if (Number.isFinite(withinMs))
      timer = setTimeout(() => {
        const at = queue.waiters.indexOf(waiter);
        if (at >= 0) queue.waiters.splice(at, 1);
        resolve(false);
      }, withinMs);
    queue.waiters.push(waiter);
    pausing.get(queue.holder)?.();
  });
}

/**
 * Resolves when another writer of this process starts waiting for a turn
 * `owner` holds. A holder pauses after a refusal only so as not to collide
 * again with writers of other processes; once writers of this one queue behind
 * it, its pause only delays them all, so it ends.
 */
export function untilWanted(owner: symbol): { readonly wanted: Promise<void>; readonly stop: () => void } {
  let stop = (): void => undefined;
  const wanted = new Promise<void>((resolve) => {
    pausing.set(owner, resolve);
    stop = () => {
      if (pausing.get(owner) === resolve) pausing.delete(owner);
    };
  });
  return { wanted, stop };
}

/** Hands each of `keys` that `owner` holds to the next writer waiting for it, or frees it. */
export function releaseTurns(keys: Iterable<string>, owner: symbol): void {
  for (const key of keys) {
    const queue = queues.get(key);
    if (!queue || queue.holder !== owner) continue;
    const next = queue.waiters.shift();
    if (!next) {
      queues.delete(key);
      continue;
    }
    queue.holder = next.owner;
    next.granted();
  }
}

/** The keys some writer of this process holds a turn on (tests: nothing is left held). */
export function heldKeys(): string[] {
  return [...queues.keys()];
}

/** What the local server injects into the data layer's retries (src/data/dynamo/operation-state.ts). */
export const processTurns: WriterTurns = { heldByOthers, takeTurns, releaseTurns, untilWanted };

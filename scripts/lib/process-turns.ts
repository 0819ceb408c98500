/**
 * Turns within one process on the items optimistic writers were refused on
 * (docs/decisions/033-turns-as-client-middleware.md; docs/pagination.md,
 * consistency notes), as AWS SDK middleware on the local server's DynamoDB
 * client (`processTurns`, added by createLocalServer through useClientPlugin
 * of src/data/dynamo/client.ts).
 *
 * A writer refused on an item (a list counter, a feed lane, a record) waits
 * for its turn on that item behind the other writers of this process that
 * were refused on it, first come first served, and re-runs when its turn
 * comes; a writer about to read or write an item another writer of this
 * process holds waits for its turn before its call goes out instead of racing
 * the holder through the store. A writer re-runs holding its turn, so the
 * other writers of its process do not refuse it again (one that waited before
 * sending a transaction may be refused once by the write it waited for): the
 * local server serves many requests in one process,
 * and on DynamoDB Local, which works on one thread, every lost race costs the
 * other writers as much store time as a commit. A Lambda instance serves one
 * request at a time and has none: writers of different instances race through
 * conditions (with the pauses of src/data/dynamo/retry-pause.ts).
 *
 * The middleware runs in the caller's request scope, so it knows the
 * optimistic operation (withRetries) a call belongs to (currentOperation); it
 * releases the operation's turns when the operation ends (its `ended`
 * signal), however it ends. A writer refused while nobody of this process
 * held its items pauses here, as withRetries would, but wakes as soon as a
 * writer of this process queues for its turn; either way the refusal leaves
 * with `retryAfterMs: 0`, so withRetries re-runs at once.
 *
 * Nothing is stored: a turn is a promise in this process's memory. Keys are
 * taken in sorted order and a writer never waits for a key while holding one
 * it took out of order, so writers cannot wait for each other in a circle.
 */

import type { ClientPlugin } from '../../src/data/dynamo/client';
import { currentOperation, type OperationState } from '../../src/data/dynamo/operation-state';
import { retryPauseMs } from '../../src/data/dynamo/retry-pause';
import { keyId } from '../../src/data/dynamo/table-io';
import { remainingMs } from '../../src/data/deadline';

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

/** What the turns did in this process (`npm run load` prints them; tests assert on them). */
export const turnStats = {
  /** Calls that waited for their turn behind another writer of this process: before going out, or after a refusal. */
  waits: 0,
  /** Refused writers that paused (nobody of this process held what refused them), and pauses a queued writer cut short. */
  pauses: 0,
  pausesCut: 0,
  /** Time in those waits and pauses (ms). */
  waitMs: 0,
  pauseMs: 0,
  reset(): void {
    this.waits = 0;
    this.pauses = 0;
    this.pausesCut = 0;
    this.waitMs = 0;
    this.pauseMs = 0;
  },
};

/** One optimistic operation as the turns see it. */
interface Writer {
  readonly owner: symbol;
  held: Set<string>;
  /** When the attempt under way made its first call (or last waited for a turn): the refused attempt's length. */
  attemptStarted?: number;
  refusals: number;
  /** Whether it waited for a turn in the attempt under way: no writer of this process is left to space itself from. */
  waited: boolean;
  /** Its turn-taking under way: the calls of one operation (parts of one large read) take turns one after another. */
  taking: Promise<unknown>;
}

const writers = new WeakMap<OperationState, Writer>();

/** The writer of an operation still under way (an ended one's late calls, upkeep beside its request, take no turns). */
function writerOf(operation: OperationState | undefined): Writer | undefined {
  if (!operation || operation.ended.aborted) return undefined;
  let writer = writers.get(operation);
  if (!writer) {
    const created: Writer = {
      owner: Symbol('writer'),
      held: new Set(),
      refusals: 0,
      waited: false,
      taking: Promise.resolve(),
    };
    operation.ended.addEventListener('abort', () => giveBack(created), { once: true });
    writers.set(operation, created);
    writer = created;
  }
  return writer;
}

function giveBack(writer: Writer): void {
  releaseTurns(writer.held, writer.owner);
  writer.held = new Set();
}

/**
 * The turn on `keys`, with those the writer holds already (all released and
 * taken again in order, so no two writers wait for each other in a circle),
 * within the request's deadline.
 */
function takeTurnOn(
  writer: Writer,
  operation: OperationState,
  keys: readonly string[],
): Promise<'free' | 'waited' | 'held' | 'timeout'> {
  const turn = writer.taking.then(() => takeTurnNow(writer, operation, keys));
  writer.taking = turn.catch(() => undefined);
  return turn;
}

async function takeTurnNow(
  writer: Writer,
  operation: OperationState,
  keys: readonly string[],
): Promise<'free' | 'waited' | 'held' | 'timeout'> {
  if (keys.every((key) => writer.held.has(key))) return 'held';
  const wanted = new Set([...writer.held, ...keys]);
  giveBack(writer);
  const started = performance.now();
  const turn = await takeTurns(wanted, writer.owner, remainingMs());
  if (turn === 'timeout') return turn;
  writer.held = wanted;
  // Ended while it waited (a call of it still in flight when another failed): nothing of it will send again.
  if (operation.ended.aborted) giveBack(writer);
  if (turn === 'waited') {
    turnStats.waits += 1;
    turnStats.waitMs += performance.now() - started;
    writer.waited = true;
    writer.attemptStarted = performance.now();
  }
  return turn;
}

/** Sleeps `ms`, less if a writer of this process starts waiting for a turn `owner` holds. */
async function pauseUnlessWanted(owner: symbol, ms: number): Promise<void> {
  const started = performance.now();
  const wanted = untilWanted(owner);
  let timer: NodeJS.Timeout | undefined;
  const slept = new Promise<'slept'>((resolve) => (timer = setTimeout(() => resolve('slept'), ms)));
  const end = await Promise.race([slept, wanted.wanted.then(() => 'cut' as const)]);
  clearTimeout(timer);
  wanted.stop();
  turnStats.pauses += 1;
  if (end === 'cut') turnStats.pausesCut += 1;
  turnStats.pauseMs += performance.now() - started;
}

type Input = Record<string, unknown>;
type TableKey = { PK: unknown; SK: unknown };

/** The items a call names (the document client's input: plain keys), for the two calls an operation races with. */
function keysOf(command: string | undefined, input: Input): string[] {
  if (command === 'BatchGetItemCommand') {
    const requests = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: TableKey[] }>);
    return requests.flatMap((r) => (r.Keys ?? []).map(keyId));
  }
  if (command === 'TransactWriteItemsCommand') return transactItemsOf(input).map(keyId);
  return [];
}

function transactItemsOf(input: Input): TableKey[] {
  type Body = { Item?: TableKey; Key?: TableKey };
  const items = (input.TransactItems ?? []) as Record<string, Body>[];
  return items.map((item) => {
    const body = Object.values(item)[0];
    return (body?.Item ?? body?.Key ?? {}) as TableKey;
  });
}

/** The items a refused transaction failed on (a condition, or another transaction holding them). */
function refusedKeys(error: unknown, input: Input): string[] {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name !== 'TransactionCanceledException' || !e.CancellationReasons) return [];
  const items = transactItemsOf(input);
  return e.CancellationReasons.flatMap((reason, i) => {
    const item = items[i];
    return item && (reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict')
      ? [keyId(item)]
      : [];
  });
}

/**
 * After a refusal on `refused`: the turn on those items, then, unless the
 * writer waited for a turn in this attempt, the pause withRetries would take
 * (retryPauseMs), cut short when a writer of this process queues for its
 * turn. Whether the re-run may start at once ('now'), or the deadline leaves
 * no room for that and withRetries decides ('late': no turn, or no time to pause).
 */
async function afterRefusal(
  writer: Writer,
  operation: OperationState,
  refused: readonly string[],
): Promise<'now' | 'late'> {
  const attemptMs = performance.now() - (writer.attemptStarted ?? performance.now());
  writer.refusals += 1;
  const turn = await takeTurnOn(writer, operation, refused);
  const waited = writer.waited;
  writer.waited = false;
  writer.attemptStarted = undefined;
  if (turn === 'timeout') return 'late';
  if (waited) return 'now';
  const pauseMs = retryPauseMs(attemptMs, writer.refusals, Math.random(), remainingMs());
  // As sleepWithin: a pause that leaves no time for the re-run is left to withRetries, which answers 503.
  if (remainingMs() < pauseMs + 50) return 'late';
  await pauseUnlessWanted(writer.owner, pauseMs);
  return 'now';
}

/**
 * A call through the turns: reads (BatchGetItem) and transactions of an
 * optimistic operation wait for the turn another writer of this process holds
 * on an item they name; a refused transaction takes the turn on the items it
 * failed on.
 */
async function throughTurns<T>(command: string | undefined, input: Input, send: () => Promise<T>): Promise<T> {
  const operation = currentOperation();
  const writer = writerOf(operation);
  const keys = writer ? keysOf(command, input) : [];
  if (!writer || !operation || keys.length === 0) return send();
  writer.attemptStarted ??= performance.now();
  const held = heldByOthers(keys, writer.owner);
  // Out of time for the turn: the call goes out as without turns (the client's deadline check may answer 503).
  if (held.length > 0) await takeTurnOn(writer, operation, held);
  try {
    return await send();
  } catch (error) {
    const refused = refusedKeys(error, input);
    if (refused.length > 0 && (await afterRefusal(writer, operation, refused)) === 'now')
      (error as { retryAfterMs?: number }).retryAfterMs = 0;
    throw error;
  }
}

/** What the local server adds to its DynamoDB client (useClientPlugin of src/data/dynamo/client.ts). */
export const processTurns: ClientPlugin = {
  applyToStack: (stack) =>
    stack.add((next, context) => (args) => throughTurns(context.commandName, args.input as Input, () => next(args)), {
      step: 'initialize',
      priority: 'high',
      name: 'processTurns',
    }),
};

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Key } from './keys';

type Item = Record<string, unknown>;

/**
 * A token check the http layer leaves to the request's first read (contract
 * §15, docs/architecture.md "Authentication"). A token that names its business
 * is read in the same BatchGetItem as that business's first data instead of on
 * its own, which saves a round trip on every request whose token lookup is not
 * cached. What the check decides stays with the http layer (`verify`); this
 * module only guarantees when it runs: before the request's first DynamoDB call
 * returns anything, and before any other call (a Query, a write) is sent.
 */
export interface DeferredTokenCheck<Grant> {
  /** The token's item, read along with the first BatchGetItem. */
  readonly key: Key;
  /** What that item grants, for the business the token names (undefined: refuse). */
  readonly grantOf: (item: Item | undefined) => Grant | undefined;
  /** The token read on its own: before a first call that is not a BatchGetItem, or when the request made none. */
  readonly lookup: () => Promise<Grant | undefined>;
  /** Admits the grant or throws the refusal (401/403) that the request then answers. */
  readonly verify: (grant: Grant | undefined) => void;
}

type State =
  | { readonly kind: 'none' }
  | { readonly kind: 'deferred'; readonly check: DeferredTokenCheck<unknown> }
  | { readonly kind: 'checking'; readonly done: Promise<void> }
  | { readonly kind: 'refused'; readonly error: unknown };

interface Holder {
  state: State;
}

const store = new AsyncLocalStorage<Holder>();
/** What the check's own reads run in: nothing to wait for. */
const CHECKING: Holder = { state: { kind: 'none' } };

/** Runs a request (its handler and middlewares) with room for a deferred token check. */
export const runWithTokenCheck = <T>(fn: () => T): T => store.run({ state: { kind: 'none' } }, fn);

/** Leaves the token check to the request's first read. */
export function deferTokenCheck<Grant>(check: DeferredTokenCheck<Grant>): void {
  const holder = store.getStore();
  if (!holder || holder === CHECKING) throw new Error('deferTokenCheck outside runWithTokenCheck');
  holder.state = { kind: 'deferred', check: check as DeferredTokenCheck<unknown> };
}

/** Whether the next read of this request would carry the token check. */
export const tokenCheckDeferred = (): boolean => store.getStore()?.state.kind === 'deferred';

/**
 * Runs `fetchGrant` (the check's own DynamoDB call) and `verify`. A refusal
 * is final for the request; a failed read (503, deadline) leaves the check
 * deferred, so a later call or the end of the request reads the token again.
 */
function runCheck<Grant>(
  holder: Holder,
  check: DeferredTokenCheck<Grant>,
  fetchGrant: () => Promise<Grant | undefined>,
): Promise<void> {
  const done = (async () => {
    let grant: Grant | undefined;
    try {
      grant = await store.run(CHECKING, fetchGrant);
    } catch (error) {
      holder.state = { kind: 'deferred', check: check as DeferredTokenCheck<unknown> };
      throw error;
    }
    try {
      check.verify(grant);
    } catch (error) {
      holder.state = { kind: 'refused', error };
      throw error;
    }
    holder.state = { kind: 'none' };
  })();
  holder.state = { kind: 'checking', done };
  return done;
}

/**
 * Before a DynamoDB call (src/data/client.ts), and by the http layer when a
 * request ends: the deferred check done on its own if no read carried it yet,
 * awaited if one is carrying it; throws the refusal.
 */
export async function ensureTokenChecked(): Promise<void> {
  const holder = store.getStore();
  if (!holder) return;
  const state = holder.state;
  if (state.kind === 'refused') throw state.error;
  if (state.kind === 'checking') return state.done;
  if (state.kind === 'deferred') return runCheck(holder, state.check, state.check.lookup);
}

/**
 * A BatchGetItem (`read`, results in the order of its keys) that carries the
 * deferred token check: the token's key goes first, its item is verified
 * before any of the other results is handed out, and is never among them.
 */
export async function readWithTokenCheck(
  keys: readonly Key[],
  read: (keys: readonly Key[]) => Promise<(Item | undefined)[]>,
): Promise<(Item | undefined)[]> {
  const holder = store.getStore();
  if (holder?.state.kind !== 'deferred') return read(keys);
  const check = holder.state.check;
  let others: (Item | undefined)[] = [];
  await runCheck(holder, check, async () => {
    const [token, ...rest] = await read([check.key, ...keys]);
    others = rest;
    return check.grantOf(token);
  });
  return others;
}

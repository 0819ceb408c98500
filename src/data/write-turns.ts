/**
 * Turns on contended items, the I/O side (rules: src/domain/write-turns.ts;
 * docs/pagination.md, consistency notes). Everything a turn needs is stored on
 * the contended item, so it works across Lambda instances; the per-request
 * state here only remembers what this request saw and how often it lost.
 *
 * - A transaction item marked `contended` (TxWrite) is guarded by
 *   `guardedByTurn`: it also requires that no other request holds a live turn
 *   on the item, and removes the turn when it succeeds (safe: the condition
 *   says it was absent, expired or this request's).
 * - A read of such an item that shows another request's live turn is honoured
 *   before anything is sent (`blockedWrites`): the write would be refused.
 * - After a refusal (`afterRefusal`), a writer that has lost REFUSALS_BEFORE_TURN
 *   rounds on an item claims the turn there with one conditional UpdateItem;
 *   one blocked by another request's turn pauses until about its end.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  TURN_ATTRIBUTES,
  blocks,
  goesBefore,
  mayClaim,
  turnLengthMs,
  turnOf,
  wantsTurn,
  type Turn,
  type Writer,
} from '../domain/write-turns';
import { db } from './client';
import { tableName } from './config';
import type { Key } from './keys';

const keyId = (k: { PK: unknown; SK: unknown }): string => `${String(k.PK)}\u0000${String(k.SK)}`;

/** A contended item whose condition refused this request's write, with the turn it carried then (if any). */
export interface Refusal {
  readonly key: Key;
  readonly turn: Turn | undefined;
  /** Not sent: the read showed the turn (the writer waits in line; that is no lost round). */
  readonly heldBack?: boolean;
}

interface WriterState {
  readonly me: Writer;
  /** Rounds lost per contended item (keyId). */
  readonly refusals: Map<string, number>;
  /** Turns of other requests seen by this attempt's reads (keyId -> turn). */
  readonly seen: Map<string, Turn>;
  /** Claims in flight (keyId -> what came of it). */
  readonly claims: Map<string, Promise<ClaimOutcome>>;
}

/** A claim's outcome: the item as it is now that this writer holds its turn, or the turn that kept the claim out. */
interface ClaimOutcome {
  readonly item?: Record<string, unknown>;
  readonly keptOutBy?: Turn;
}

const store = new AsyncLocalStorage<WriterState>();

/** Runs `fn` as a new writer (one id, one start time) over all its attempts. */
export const asWriter = <T>(fn: () => Promise<T>, now = Date.now()): Promise<T> =>
  store.run({ me: { by: randomUUID(), since: now }, refusals: new Map(), seen: new Map(), claims: new Map() }, fn);

/** Runs an optimistic operation as the writer already running (an operation within another), else as a new one. */
export const asSameWriter = <T>(fn: () => Promise<T>): Promise<T> => (store.getStore() ? fn() : asWriter(fn));

/** This operation's writer; outside one (admin, seeding) a fresh id that holds no turn. */
const currentWriter = (): Writer => store.getStore()?.me ?? { by: randomUUID(), since: Date.now() };

/** A new attempt reads afresh: forget the turns the last one saw. */
export const beginAttempt = (): void => store.getStore()?.seen.clear();

/** Remembers other requests' live turns among items just read (called by every consistent batch read). */
export function noteRead(items: Iterable<Record<string, unknown>>): void {
  const state = store.getStore();
  if (!state) return;
  const now = Date.now();
  for (const item of items) {
    const turn = turnOf(item);
    if (blocks(turn, state.me, now)) state.seen.set(keyId({ PK: item.PK, SK: item.SK }), turn);
  }
}

/** The contended items of a transaction that another request's live turn, seen by this attempt's read, holds. */
export function blockedWrites(keys: readonly Key[]): Refusal[] {
  const state = store.getStore();
  if (!state) return [];
  const now = Date.now();
  return keys.flatMap((key) => {
    const turn = state.seen.get(keyId(key));
    return blocks(turn, state.me, now) ? [{ key, turn, heldBack: true }] : [];
  });
}

type Update = {
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

const TURN_NAMES = {
  '#turnBy': TURN_ATTRIBUTES.by,
  '#turnUntil': TURN_ATTRIBUTES.until,
  '#turnSince': TURN_ATTRIBUTES.since,
};

/**
 * An Update of a contended item, guarded: it also requires no live turn of
 * another request (`me` = this request's id, `now` its clock) and removes the
 * turn. Pure.
 */
export function guardedByTurn<U extends Update>(
  update: U,
  me: string,
  now: number,
): U & { UpdateExpression: string; ConditionExpression: string } {
  const own = update.ConditionExpression ? `(${update.ConditionExpression}) AND ` : '';
  const removed = '#turnBy, #turnUntil, #turnSince';
  const expression = update.UpdateExpression ?? '';
  return {
    ...update,
    // One REMOVE clause per expression: join the one there is, if any.
    UpdateExpression: /\bREMOVE\b/.test(expression)
      ? expression.replace(/\bREMOVE\b/, `REMOVE ${removed},`)
      : `${expression} REMOVE ${removed}`,
    ConditionExpression: `${own}(attribute_not_exists(#turnBy) OR #turnBy = :turnMe OR #turnUntil < :turnNow)`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...TURN_NAMES },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':turnMe': me, ':turnNow': now },
  };
}

/** guardedByTurn for the request's writer at this moment. */
export const guardForCurrentWriter = <U extends Update>(update: U): U =>
  guardedByTurn(update, currentWriter().by, Date.now());

/**
 * Claims the turn on `key` for `me` until `until`, if mayClaim allows it by
 * what is stored (one conditional UpdateItem). Answers the item as claimed
 * (from then on only this writer may advance it, so that value is current), or
 * the turn that kept it out, if any (a claim that failed otherwise is no worse
 * than none: the transaction's condition still decides).
 */
async function claimTurn(key: Key, me: Writer, until: number): Promise<ClaimOutcome> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #turnBy = :me, #turnUntil = :until, #turnSince = :since',
        ConditionExpression:
          'attribute_not_exists(#turnBy) OR #turnBy = :me OR #turnUntil < :now OR #turnSince > :since OR (#turnSince = :since AND #turnBy > :me)',
        ExpressionAttributeNames: TURN_NAMES,
        ExpressionAttributeValues: { ':me': me.by, ':until': until, ':since': me.since, ':now': Date.now() },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { item: out.Attributes };
  } catch (error) {
    const e = error as { name?: string; Item?: Record<string, AttributeValue> };
    return e.name === 'ConditionalCheckFailedException' && e.Item ? { keptOutBy: turnOf(unmarshall(e.Item)) } : {};
  }
}

/** What a refused writer does next: go again at once (it is claiming the turns it wants), wait for a turn, or back off. */
export type NextStep =
  { readonly kind: 'go' } | { readonly kind: 'wait'; readonly turn: Turn } | { readonly kind: 'backoff' };

/**
 * After a refused attempt (`attemptMs` long): counts the round lost on each
 * refused contended item (held back by an older request's turn it read is no lost
 * round), and says what to do next. Where this writer has lost often enough
 * and may, it claims the turn and goes again at once: the claim is sent
 * alongside the next attempt's read, and that attempt's transaction waits for
 * it (settleClaims), so a turn costs no extra round trip. Claims only happen
 * here, never on the uncontended path.
 */
export function afterRefusal(refusals: readonly Refusal[], attemptMs: number): NextStep {
  const state = store.getStore();
  if (!state || refusals.length === 0) return { kind: 'backoff' };
  let waitFor: Turn | undefined;
  let claiming = false;
  const now = Date.now();
  for (const refusal of new Map(refusals.map((r) => [keyId(r.key), r])).values()) {
    const id = keyId(refusal.key);
    // Held back by an older request's turn is waiting in line, no lost round; by a younger one's it is
    // (that one may hold another item this writer needs, and waits for this writer's turn in turn).
    const inLine = refusal.heldBack && refusal.turn !== undefined && goesBefore(refusal.turn, state.me);
    const lost = (state.refusals.get(id) ?? 0) + (inLine ? 0 : 1);
    state.refusals.set(id, lost);
    if (wantsTurn(lost, now - state.me.since) && mayClaim(refusal.turn, state.me, now)) {
      state.claims.set(id, claimTurn(refusal.key, state.me, now + turnLengthMs(attemptMs)));
      claiming = true;
    } else if (blocks(refusal.turn, state.me, now) && (!waitFor || refusal.turn.until > waitFor.until))
      waitFor = refusal.turn;
  }
  if (waitFor) return { kind: 'wait', turn: waitFor };
  return claiming ? { kind: 'go' } : { kind: 'backoff' };
}

/**
 * Waits for the claims afterRefusal sent; a claim another request's turn kept
 * out makes this attempt's write held back like a turn its read showed.
 */
export async function settleClaims(): Promise<void> {
  const state = store.getStore();
  if (!state || state.claims.size === 0) return;
  const pending = [...state.claims];
  state.claims.clear();
  const now = Date.now();
  for (const [id, claim] of pending) {
    const turn = (await claim).keptOutBy;
    if (blocks(turn, state.me, now)) state.seen.set(id, turn);
  }
}

/**
 * The items this writer just claimed turns on, among `keys` (keyId -> item as
 * claimed): a read sent alongside the claims takes these values, which no
 * other writer can have moved since, instead of what it read (possibly just
 * before the claim).
 */
export async function claimedItems(keys: readonly Key[]): Promise<Map<string, Record<string, unknown>>> {
  const claims = store.getStore()?.claims;
  const out = new Map<string, Record<string, unknown>>();
  if (!claims || claims.size === 0) return out;
  for (const key of keys) {
    const item = (await claims.get(keyId(key)))?.item;
    if (item) out.set(keyId(key), item);
  }
  return out;
}

/**
 * Turns on contended items (docs/pagination.md, consistency notes): the rules,
 * pure. Writers race optimistically for an item many of them advance (a dense
 * list's counter, a change-feed lane's counter); one that has lost
 * REFUSALS_BEFORE_TURN rounds on an item claims a turn on it, stored on the
 * item itself (so it works across Lambda instances): while the turn is live,
 * only its holder may advance the item, and the advance removes it. Among
 * claimants the oldest request wins, so no writer starves and none deadlocks
 * (the oldest waiting request can always proceed). A turn expires by itself:
 * a holder that died or ran out of time blocks the others for a short while only.
 */

/** A request that writes: a random id and when it started (ms since the epoch, its own clock). */
export interface Writer {
  readonly by: string;
  readonly since: number;
}

/** A turn as stored on an item: its holder and until when it holds it (ms, the holder's clock). */
export interface Turn extends Writer {
  readonly until: number;
}

/** The item attributes of a turn. */
export const TURN_ATTRIBUTES = { by: 'turn_by', until: 'turn_until', since: 'turn_since' } as const;

/**
 * A writer claims a turn on an item once it has lost this many rounds there
 * and has been at it for this long (a turn stops the others for a moment, so
 * it is for the few writers at risk of their deadline, not for every loser;
 * the uncontended path never claims).
 */
export const REFUSALS_BEFORE_TURN = 2;
export const TURN_AFTER_MS = 1000;
/** Bounds of a turn's length: long enough for the holder's next read and transaction, short if it died. */
export const MIN_TURN_MS = 50;
export const MAX_TURN_MS = 1000;

/** The turn stored on an item, if it carries a well-formed one. */
export function turnOf(item: Record<string, unknown> | undefined): Turn | undefined {
  const by = item?.[TURN_ATTRIBUTES.by];
  const until = Number(item?.[TURN_ATTRIBUTES.until]);
  const since = Number(item?.[TURN_ATTRIBUTES.since]);
  if (typeof by !== 'string' || !Number.isFinite(until) || !Number.isFinite(since)) return undefined;
  return { by, until, since };
}

/** Whether a turn still holds at `now`. Clocks of instances differ by a few ms: a turn ends a few ms early or late. */
export const isLive = (turn: Turn | undefined, now: number): turn is Turn => turn !== undefined && turn.until > now;

/** Whether `turn` keeps `me` from advancing its item now: live and someone else's. */
export const blocks = (turn: Turn | undefined, me: Writer, now: number): turn is Turn =>
  isLive(turn, now) && turn.by !== me.by;

/** The older request goes first; equal start times are ordered by id, so any two writers are ordered. */
export const goesBefore = (a: Writer, b: Writer): boolean => a.since < b.since || (a.since === b.since && a.by < b.by);

/** Whether `me` may take the turn on an item that carries `turn`: none, expired, mine, or held by a younger request. */
export const mayClaim = (turn: Turn | undefined, me: Writer, now: number): boolean =>
  !blocks(turn, me, now) || goesBefore(me, turn as Turn);

/** Whether a writer refused `refusals` times on an item, busy for `elapsedMs`, claims a turn there (if mayClaim allows it). */
export const wantsTurn = (refusals: number, elapsedMs: number): boolean =>
  refusals >= REFUSALS_BEFORE_TURN && elapsedMs >= TURN_AFTER_MS;

/** How long a turn holds: twice the holder's last attempt (its next read and transaction, with room), bounded. */
export const turnLengthMs = (lastAttemptMs: number): number =>
  Math.min(MAX_TURN_MS, Math.max(MIN_TURN_MS, 2 * Math.max(0, lastAttemptMs)));

/**
 * How long a writer blocked by another request's turn pauses: until the turn
 * ends, but no longer than one attempt as long as its own last one (the holder
 * needs about that to commit, and its commit removes the turn), plus a little
 * jitter so waiters do not read again in lockstep; never so long that one more
 * attempt no longer fits in `leftMs`.
 */
export function turnWaitMs(turn: Turn, now: number, attemptMs: number, random: number, leftMs = Infinity): number {
  const attempt = Math.max(0, attemptMs);
  const wait = Math.min(Math.max(0, turn.until - now), attempt) + random * 0.25 * attempt;
  return Math.max(0, Math.min(wait, leftMs - attempt));
}

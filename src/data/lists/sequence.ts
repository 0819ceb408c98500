/**
 * Positions of the lists with holes (applications, employees, employee jobs),
 * reserved before the write's transaction (docs/pagination.md,
 * docs/decisions/014-positions-reserved-per-business.md).
 *
 * One item per business and kind (the entity's `sequence`) hands out the
 * next positions of the business list (`n`; an application's job list shares
 * it), of the order of writes (`u`, applications only) and the write's time in
 * epoch ms (`t`), in one UpdateItem that is never part of a
 * transaction and carries no condition on the counts: concurrent writers of
 * one business are served one after the other by DynamoDB instead of
 * refusing each other's transactions. Positions and times come from the same
 * item, so position order is time order in every list. A reservation whose
 * write never commits (a rejected request, a re-run, a crash) is a hole, which
 * every list already has after an erasure.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../dynamo/client';
import { tableName } from '../config';
import { keys, type Key } from '../dynamo/keys';
import { updateOf } from '../dynamo/update-expression';

/** What a reservation hands out: the first of each run of positions and times (the rest follow one by one). */
export interface Reservation {
  /** First business (and job) list position; 0 when no creates were reserved. */
  readonly position: number;
  /** First position in the order of writes; 0 when no writes were reserved there. */
  readonly updatePosition: number;
  /** Time of the first write (epoch ms), later than every time reserved before. */
  readonly ms: number;
}

/** When the i-th write of a reservation happens (its created_at or updated_at), as stored. */
export const reservedTime = (reserved: Reservation, i = 0): string => new Date(reserved.ms + i).toISOString();

/**
 * Reserves `creates` business positions and `writes` positions in the order
 * of writes (a kind without one reserves none there), and one millisecond
 * for each of the larger number, after every earlier reservation. The
 * time is `nowMs` unless an earlier reservation already took it (another
 * instance's clock ahead, or the same millisecond): then one more UpdateItem
 * takes the times right after the last one, as created_at/updated_at always
 * did (`max(now, last + 1 ms)`).
 */
export async function reservePositions(
  key: Key,
  creates: number,
  writes: number,
  nowMs = Date.now(),
): Promise<Reservation> {
  const times = Math.max(creates, writes);
  if (!(Number.isInteger(creates) && creates >= 0 && Number.isInteger(writes) && writes >= 0 && times >= 1))
    throw new Error(`reservePositions: ${creates} creates, ${writes} writes`);
  const add: [string, number][] = [
    ...(writes ? [['u', writes] as [string, number]] : []),
    ...(creates ? [['n', creates] as [string, number]] : []),
  ];
  const send = async (parts: ReturnType<typeof updateOf>): Promise<Record<string, unknown>> =>
    (await db().send(new UpdateCommand({ TableName: tableName(), Key: key, ...parts, ReturnValues: 'ALL_NEW' })))
      .Attributes ?? {};
  let stored: Record<string, unknown>;
  try {
    stored = await send(
      updateOf(
        { set: { t: nowMs + times - 1 }, add },
        { expression: 'attribute_not_exists(t) OR t < :now', values: { ':now': nowMs } },
      ),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    stored = await send(updateOf({ add: [...add, ['t', times]] }));
  }
  return {
    position: creates ? Number(stored.n) - creates + 1 : 0,
    updatePosition: writes ? Number(stored.u) - writes + 1 : 0,
    ms: Number(stored.t) - times + 1,
  };
}

/**
 * Reserves positions and times of a business's `sequence` (an entity's
 * `sequence`: the item its kind's positions come from), as reservePositions.
 */
export const reserveEntries = (
  businessId: string,
  sequence: string,
  creates: number,
  writes: number,
): Promise<Reservation> => reservePositions(keys.counter(businessId, sequence), creates, writes);

/**
 * What a dry run (a bulk import's validate mode) holds instead of a
 * reservation, so that it writes nothing: no position taken, after every
 * stored write, the time now. Its transaction is never sent.
 */
export const dryReservation = (nowMs = Date.now()): Reservation => ({
  position: 0,
  updatePosition: Number.MAX_SAFE_INTEGER,
  ms: nowMs,
});

/**
 * Positions of the application lists, reserved before the write's
 * transaction (docs/pagination.md, docs/decisions/014-positions-reserved-per-business.md).
 *
 * One item per business hands out the next positions of the business list
 * (`n`, which job lists share), of the order of writes (`u`) and the write's
 * time in epoch ms (`t`), in one UpdateItem that is never part of a
 * transaction and carries no condition on the counts: concurrent writers of
 * one business are served one after the other by DynamoDB instead of
 * refusing each other's transactions. Positions and times come from the same
 * item, so position order is time order in every list. A reservation whose
 * write never commits (a rejected request, a re-run, a crash) is a hole, which
 * every list already has after an erasure.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { tableName } from './config';
import type { Key } from './keys';
import { updateOf } from './update-expression';

/** What a reservation hands out: the first of each run of positions and times (the rest follow one by one). */
export interface Reservation {
  /** First business (and job) list position; 0 when no creates were reserved. */
  readonly position: number;
  /** First position in the order of writes. */
  readonly updatePosition: number;
  /** Time of the first write (epoch ms), later than every time reserved before. */
  readonly ms: number;
}

/**
 * Reserves `creates` business positions and `writes` positions in the order
 * of writes with one millisecond each, after every earlier reservation. The
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
  if (!(Number.isInteger(creates) && creates >= 0 && Number.isInteger(writes) && writes >= Math.max(1, creates)))
    throw new Error(`reservePositions: ${creates} creates, ${writes} writes`);
  const add: [string, number][] = [['u', writes], ...(creates ? [['n', creates] as [string, number]] : [])];
  const send = async (parts: ReturnType<typeof updateOf>): Promise<Record<string, unknown>> =>
    (await db().send(new UpdateCommand({ TableName: tableName(), Key: key, ...parts, ReturnValues: 'ALL_NEW' })))
      .Attributes ?? {};
  let stored: Record<string, unknown>;
  try {
    stored = await send(
      updateOf(
        { set: { t: nowMs + writes - 1 }, add },
        { expression: 'attribute_not_exists(t) OR t < :now', values: { ':now': nowMs } },
      ),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    stored = await send(updateOf({ add: [...add, ['t', writes]] }));
  }
  return {
    position: creates ? Number(stored.n) - creates + 1 : 0,
    updatePosition: Number(stored.u) - writes + 1,
    ms: Number(stored.t) - writes + 1,
  };
}

/**
 * Redaction of an erased application's earlier change-feed entries (contract
 * §13, §17, docs/change-feed.md): each entry keeps its key, type, id,
 * occurred_at and expiry and loses `data`. Entries are never deleted before
 * their TTL: a missing entry after a cursor reads as 410.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { laneOf } from '../domain/change-feed';
import { redactionPlan, type FeedRef } from '../domain/feed-refs';
import { db } from './dynamo/client';
import { tableName } from './config';
import { IF_PRESENT } from './entities/entity';
import { feedLane } from './entities/feed-lane';
import type { TxWrite } from './dynamo/transact-write';
import { updateOf } from './dynamo/update-expression';

// Never creates an entry (IF_PRESENT): one TTL removed stays removed.
const REDACT = updateOf({ set: { [feedLane.dataAttribute]: null } }, { expression: IF_PRESENT });

/**
 * The redactions of an erasure of application `id` whose record (or whose
 * attachments' records) list `refs`: `before` runs first (entries near expiry,
 * which may be gone: a failed condition there is ignored; entries over the
 * transaction's `cap`), then `writes` go into the delete transaction (entries
 * that surely exist).
 */
export function applicationRedactions(
  businessId: string,
  id: string,
  refs: readonly FeedRef[],
  nowMs = Date.now(),
  cap?: number,
): { before: () => Promise<void>; writes: TxWrite[] } {
  const lane = laneOf('application', id);
  const plan = redactionPlan(refs, nowMs, cap);
  return {
    before: () => redactEach(businessId, lane, plan.before),
    writes: plan.inTransaction.map((seq) => ({
      item: { Update: { Key: feedLane.entryKey(businessId, lane, seq), ...REDACT } },
      onConditionFailed: () => 'retry',
    })),
  };
}

const PARALLEL = 8;

/** One conditional UpdateItem per entry, a few at a time; an entry already gone needs nothing. */
async function redactEach(businessId: string, lane: number, seqs: readonly number[]): Promise<void> {
  for (let i = 0; i < seqs.length; i += PARALLEL)
    await Promise.all(
      seqs.slice(i, i + PARALLEL).map(async (seq) => {
        try {
          await db().send(
            new UpdateCommand({ TableName: tableName(), Key: feedLane.entryKey(businessId, lane, seq), ...REDACT }),
          );
        } catch (error) {
          if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        }
      }),
    );
}

/**
 * Emptying a sandbox business (contract §24, `business sandbox --reset`):
 * every item its records own, found without a Scan (the admin role has
 * none): the record partitions of employees, jobs and applications, the
 * employee_number claims and Idempotency-Key records those records name, the
 * dense lists' counters and position maps, the change-feed entries, the
 * exports, the imports with their results and the webhook subscriptions. The business's config, reference
 * data, tokens and rate counters stay. Plain DeleteItem calls in batches
 * (BatchWriteItem), not a transaction: a reset is an operator's command on a
 * business nobody relies on, and re-running it finishes what a failed run left.
 *
 * The feed is restarted after the records are gone (restartFeed): every
 * lane's counter moves one past its last entry without writing that entry. A cursor issued before the
 * reset then points at or before that gap, and a missing entry after a cursor
 * is what the reader answers `410 cursor_expired` for (docs/change-feed.md,
 * "Sandbox reset").
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dayMarkOf, LANE_COUNT } from '../domain/change-feed';
import { db } from './dynamo/client';
import { tableName } from './config';
import { application } from './entities/application';
import { employee, employeeJob } from './entities/employee';
import { feedLane } from './entities/feed-lane';
import { exportJob } from './entities/export-job';
import { importJob } from './entities/import-job';
import { webhookSubscription } from './entities/webhook-subscription';
import { FEED_SEQ_DIGITS, keys, type Key, type RecordKind } from './dynamo/keys';
import { readLaneCounterItems } from './feed-store';
import { listPartitions } from './lists';
import { batchDelete, batchGet, queryAll, type Item } from './dynamo/table-io';
import { updateOf } from './dynamo/update-expression';

const keyOf = (item: Item): Key => ({ PK: String(item.PK), SK: String(item.SK) });

/** The keys of every item of a table partition (below `before` in sort order, if given). */
async function partitionKeys(pk: string, before?: string): Promise<Key[]> {
  const items = await queryAll({
    KeyConditionExpression: before === undefined ? '#pk = :p' : '#pk = :p AND #sk < :b',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':p': pk, ...(before === undefined ? {} : { ':b': before }) },
    ProjectionExpression: '#pk, #sk',
  });
  return items.map(keyOf);
}

/**
 * Moves every lane's counter one past its last entry, with no entry there, and
 * sets today's day mark after the gap (a reader without a cursor starts there).
 * Conditional on the counter read, so a concurrent append is never overwritten
 * (the writer re-runs after the gap; this re-reads that lane and retries). All
 * counters are read with one Query and moved side by side: two round trips for
 * the 64 lanes, not two per lane. Returns each lane's gap.
 */
export async function restartFeed(businessId: string, now = Date.now()): Promise<number[]> {
  const today = dayMarkOf(new Date(now).toISOString());
  const read = await readLaneCounterItems(businessId);
  return Promise.all(
    Array.from({ length: LANE_COUNT }, (_, lane) => restartLane(businessId, lane, today, read.get(lane))),
  );
}

async function restartLane(businessId: string, lane: number, today: string, read: Item | undefined): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const item = attempt === 0 ? read : (await batchGet([feedLane.counterKey(businessId, lane)]))[0];
    const counter = feedLane.counterOf(item);
    const gap = counter.n + 1;
    const marks = Object.keys(counter.days).filter((m) => m !== today);
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: feedLane.counterKey(businessId, lane),
          ...updateOf(
            { set: { [feedLane.counterAttributes.last]: gap, [today]: gap + 1 }, remove: marks },
            {
              expression: item ? '#n = :read' : 'attribute_not_exists(#n)',
              names: { '#n': feedLane.counterAttributes.last },
              ...(item ? { values: { ':read': counter.n } } : {}),
            },
          ),
        }),
      );
      return gap;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException' || attempt >= 20) throw error;
    }
  }
}

/** Deletes every entry of each lane before its gap, one lane at a time (one lane's keys in memory); returns how many. */
export async function deleteFeedEntries(businessId: string, gaps: readonly number[]): Promise<number> {
  let deleted = 0;
  for (const [lane, gap] of gaps.entries()) {
    const pk = feedLane.entryKey(businessId, lane, 0).PK;
    const entries = await partitionKeys(pk, String(gap).padStart(FEED_SEQ_DIGITS, '0'));
    await batchDelete(entries);
    deleted += entries.length;
  }
  return deleted;
}

/** The records of one kind (whole items: what they name is deleted with them). */
export const readRecords = (businessId: string, kind: RecordKind): Promise<Item[]> =>
  queryAll({
    KeyConditionExpression: '#pk = :p',
    ExpressionAttributeNames: { '#pk': 'PK' },
    ExpressionAttributeValues: { ':p': keys.records(businessId, kind) },
  });

/**
 * Deletes records and what each names apart from its own item: an
 * employee's employee_number claim, an application's Idempotency-Key record.
 */
export async function deleteRecords(businessId: string, items: readonly Item[]): Promise<void> {
  const named: Key[] = [];
  for (const item of items) {
    if (typeof item.employee_number === 'string' && item.PK === keys.records(businessId, 'employee'))
      named.push(employee.numberKey(businessId, item.employee_number));
    if (typeof item.idempotency_pk === 'string')
      named.push({ PK: item.idempotency_pk, SK: keys.idempotency('', '').SK });
  }
  await batchDelete([...items.map(keyOf), ...named]);
}

/**
 * The lists' summaries and position maps (docs/pagination.md): the
 * employees', the jobs', and the applications' (the business's, each job
 * opening's, the speculative ones', the order of writes). Their reservation
 * items stay, so a create racing the reset never takes a position twice: a
 * reset list goes on from the positions reserved before it, with no entries
 * before them.
 */
export async function deleteLists(businessId: string, jobOpeningIds: readonly string[]): Promise<void> {
  const names = [
    employee.list,
    employeeJob.list,
    application.lists.business,
    application.lists.writeOrder,
    application.lists.ofJob(null),
    ...jobOpeningIds.map((id) => application.lists.ofJob(id)),
  ];
  const doomed: Key[] = [];
  for (const name of names)
    for (const pk of listPartitions(businessId, name)) doomed.push(...(await partitionKeys(pk)));
  await batchDelete(doomed);
}

/** The business's exports, imports (with their rows' results) and webhook subscriptions (with their count). */
export async function deleteExportsImportsSubscriptions(businessId: string): Promise<void> {
  const imports = await partitionKeys(importJob.metaKey(businessId).PK);
  const importIds = imports.map((k) => k.SK).filter((sk) => sk !== importJob.metaKey(businessId).SK);
  for (const id of importIds) await batchDelete(await partitionKeys(importJob.rowKey(businessId, id, 0).PK));
  await batchDelete([
    ...imports,
    ...(await partitionKeys(exportJob.key(businessId, '').PK)),
    ...(await partitionKeys(keys.webhookSubscriptions(businessId))),
    webhookSubscription.countKey(businessId),
  ]);
}

/**
 * Every DynamoDB access of applications (docs/pagination.md). Built on the
 * table-io primitives; the service decides, this module only reads and writes.
 *
 * An application item carries its list keys:
 *   L1 (list)       business list,        L1SK = position 1..n (dense)
 *   L2 (sublist)    its job opening list,  L2SK = position in that list (dense)
 *   L3 (statuslist) its status,            L3SK = business position
 *   T1 (created)    business list,         T1SK = created_at   (-> L1SK)
 *   T2 (subcreated) job opening list,      T2SK = created_at   (-> L2SK)
 *   T3 (updated)    business list,         T3SK = updated_at#id (-> L1SK, status, job, created_at)
 */
import type { ApplicationRecord } from '../domain/application-record';
import type { BusinessConfig } from '../domain/business';
import {
  blockBounds,
  blockOf,
  jobListName,
  statusBlocksOf,
  statusCountAttribute,
  type StatusBlock,
} from '../domain/application-pages';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { configOf } from './business-store';
import { db } from './client';
import { tableName } from './config';
import { keys, lists, type Key } from './keys';
import { feedCounterKey, feedLaneStateOf, type FeedLaneState } from './feed-store';
import { batchGet, carries, exists, query, queryAll, type Item, type TxWrite } from './table-io';

const KIND = 'application' as const;
export const BUSINESS_LIST = 'applications';

/** Stored fields of an application (its response fields, custom values under `cf`). */
export type StoredApplication = ApplicationRecord;

/** Where an application sits in its lists; fixed at creation. */
export interface ApplicationPositions {
  /** Position in the business list (1..n). */
  readonly position: number;
  /** Position in its job opening's (or the speculative) list. */
  readonly jobPosition: number;
}

const CAPACITY = { ReturnConsumedCapacity: 'TOTAL' } as const;

export const applicationKey = (businessId: string, id: string): Key => keys.record(businessId, KIND, id);
export const businessListPartition = (businessId: string): string => lists.all(businessId, KIND);
export const jobListPartition = (businessId: string, jobId: string | null): string =>
  lists.applicationsOfJob(businessId, jobId);
export const statusPartition = (businessId: string, statusId: string): string =>
  lists.applicationsWithStatus(businessId, statusId);
export const businessCounterKey = (businessId: string): Key => keys.counter(businessId, BUSINESS_LIST);
export const jobCounterKey = (businessId: string, jobId: string | null): Key =>
  keys.counter(businessId, jobListName(jobId));

/** The full item of an application: its fields plus every list key. Also used by the benchmark seeder. */
export function applicationItem(businessId: string, app: StoredApplication, at: ApplicationPositions): Item {
  const all = businessListPartition(businessId);
  const jobList = jobListPartition(businessId, app.job_id);
  return {
    ...applicationKey(businessId, app.id),
    kind: KIND,
    business_id: businessId,
    ...app,
    L1PK: all,
    L1SK: at.position,
    L2PK: jobList,
    L2SK: at.jobPosition,
    L3PK: statusPartition(businessId, app.application_status_id),
    L3SK: at.position,
    T1PK: all,
    T1SK: app.created_at,
    T2PK: jobList,
    T2SK: app.created_at,
    T3PK: all,
    T3SK: `${app.updated_at}#${app.id}`,
  };
}

/** The stored fields of an item (drops keys and bookkeeping). */
export function storedOf(item: Item): StoredApplication {
  return {
    id: String(item.id),
    job_id: typeof item.job_id === 'string' ? item.job_id : null,
    application_status_id: String(item.application_status_id),
    accept_terms_and_conditions: item.accept_terms_and_conditions === true,
    accept_archivation: item.accept_archivation === true,
    language: String(item.language),
    campaign_id: typeof item.campaign_id === 'string' ? item.campaign_id : null,
    first_name: String(item.first_name),
    last_name: String(item.last_name),
    gender: typeof item.gender === 'string' ? item.gender : null,
    email: String(item.email),
    phone: typeof item.phone === 'string' ? item.phone : null,
    birthday: typeof item.birthday === 'string' ? item.birthday : null,
    cf: (item.cf as Record<string, unknown> | undefined) ?? {},
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
    version: Number(item.version ?? 1),
  };
}

export const positionsOf = (item: Item): ApplicationPositions => ({
  position: Number(item.L1SK),
  jobPosition: Number(item.L2SK),
});

// ---------------------------------------------------------------- writes

/** Counter of a dense list moved from `current` to `current + 1`, only if nobody else moved it. */
function counterStep(key: Key, current: number, extra: Record<string, unknown> = {}): TxWrite {
  const names = Object.keys(extra);
  return {
    item: {
      Update: {
        Key: key,
        UpdateExpression: `SET n = :next${names.map((n, i) => `, #x${i} = :x${i}`).join('')}`,
        ConditionExpression: current === 0 ? 'attribute_not_exists(n) OR n = :current' : 'n = :current',
        ...(names.length ? { ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#x${i}`, n])) } : {}),
        ExpressionAttributeValues: {
          ':next': current + 1,
          ':current': current,
          ...Object.fromEntries(names.map((n, i) => [`:x${i}`, extra[n]])),
        },
      },
    },
    // Another create took this position: re-read the counters and try again.
    onConditionFailed: () => 'retry',
  };
}

/** Moves status counts of one block (ADD creates the item and attributes as needed). */
function blockCounts(
  businessId: string,
  position: number,
  deltas: Record<string, number>,
  createdAt?: string,
): TxWrite {
  const block = blockOf(position);
  const entries = Object.entries(deltas).filter(([, d]) => d !== 0);
  const names: Record<string, string> = { '#block': 'block' };
  const values: Record<string, unknown> = { ':block': block };
  const adds = entries.map(([status, delta], i) => {
    names[`#s${i}`] = statusCountAttribute(status);
    values[`:d${i}`] = delta;
    return `#s${i} :d${i}`;
  });
  const sets = ['#block = :block'];
  if (createdAt) {
    names['#first'] = 'first_created_at';
    values[':first'] = createdAt;
    sets.push('#first = if_not_exists(#first, :first)');
  }
  return {
    item: {
      Update: {
        Key: keys.statusBlock(businessId, block),
        UpdateExpression: `SET ${sets.join(', ')}${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

export interface CreateState {
  readonly config: BusinessConfig | undefined;
  /** Length of the business list and created_at of its last entry. */
  readonly count: number;
  readonly lastCreatedAt: string | null;
  /** Length of the job opening's list. */
  readonly jobCount: number;
  readonly idempotency: Item | undefined;
  /** The new application's lane of the change feed, appended to in the same transaction. */
  readonly feed: FeedLaneState;
}

/** Everything a create decides on, in one BatchGetItem. */
export async function readCreateState(
  businessId: string,
  jobId: string | null,
  id: string,
  idempotencyKey?: Key,
): Promise<CreateState> {
  const [config, counter, jobCounter, feed, idem] = await batchGet([
    keys.business(businessId),
    businessCounterKey(businessId),
    jobCounterKey(businessId, jobId),
    feedCounterKey(businessId, 'application', id),
    ...(idempotencyKey ? [idempotencyKey] : []),
  ]);
  return {
    feed: feedLaneStateOf('application', id, feed),
    config: configOf(config),
    count: Number(counter?.n ?? 0),
    lastCreatedAt: typeof counter?.last_created_at === 'string' ? counter.last_created_at : null,
    jobCount: Number(jobCounter?.n ?? 0),
    idempotency: idempotencyKey ? idem : undefined,
  };
}

/**
 * The writes of a create: the item, both counters (conditioned on the values
 * read, so positions stay dense under concurrency), the status block count.
 * The caller adds the idempotency record and commits them in one transaction.
 */
export function createWrites(businessId: string, app: StoredApplication, state: CreateState): TxWrite[] {
  const at = { position: state.count + 1, jobPosition: state.jobCount + 1 };
  return [
    {
      item: { Put: { Item: applicationItem(businessId, app, at), ConditionExpression: 'attribute_not_exists(PK)' } },
      onConditionFailed: () => 'retry',
      confirms: exists,
    },
    counterStep(businessCounterKey(businessId), state.count, { last_created_at: app.created_at }),
    counterStep(jobCounterKey(businessId, app.job_id), state.jobCount),
    blockCounts(businessId, at.position, { [app.application_status_id]: 1 }, app.created_at),
  ];
}

/**
 * The writes of an update: the whole item replaced if nobody wrote it since
 * it was read (`version`), and, when the status changes, its block's counts
 * moved in the same transaction.
 */
export function updateWrites(
  businessId: string,
  before: StoredApplication,
  after: StoredApplication,
  at: ApplicationPositions,
): TxWrite[] {
  const writes: TxWrite[] = [
    {
      item: {
        Put: {
          Item: applicationItem(businessId, after, at),
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': before.version },
        },
      },
      onConditionFailed: () => 'retry',
      confirms: carries(after.version, after.updated_at),
    },
  ];
  if (before.application_status_id !== after.application_status_id) {
    writes.push(
      blockCounts(businessId, at.position, { [before.application_status_id]: -1, [after.application_status_id]: 1 }),
    );
  }
  return writes;
}

// ---------------------------------------------------------------- reads

/** An application and the business config, one BatchGetItem. */
export async function readApplication(
  businessId: string,
  id: string,
): Promise<{ config: BusinessConfig | undefined; item: Item | undefined }> {
  const [config, item] = await batchGet([keys.business(businessId), applicationKey(businessId, id)]);
  return { config: configOf(config), item };
}

/** What an update reads: the application, the business config and the feed lane, one BatchGetItem. */
export async function readForUpdate(
  businessId: string,
  id: string,
): Promise<{ config: BusinessConfig | undefined; item: Item | undefined; feed: FeedLaneState }> {
  const [config, item, feed] = await batchGet([
    keys.business(businessId),
    applicationKey(businessId, id),
    feedCounterKey(businessId, 'application', id),
  ]);
  return { config: configOf(config), item, feed: feedLaneStateOf('application', id, feed) };
}

/** The business config and list counters (absent = 0), one BatchGetItem. */
export async function readConfigAndCounters(
  businessId: string,
  counterKeys: readonly Key[],
): Promise<{ config: BusinessConfig | undefined; counts: number[] }> {
  const [config, ...counters] = await batchGet([keys.business(businessId), ...counterKeys]);
  return { config: configOf(config), counts: counters.map((c) => Number(c?.n ?? 0)) };
}

/** The business config and some applications by id, one BatchGetItem (in the order of `ids`). */
export async function readConfigAndApplications(
  businessId: string,
  ids: readonly string[],
): Promise<{ config: BusinessConfig | undefined; items: Item[] }> {
  const [config, ...items] = await batchGet([
    keys.business(businessId),
    ...ids.map((id) => applicationKey(businessId, id)),
  ]);
  return { config: configOf(config), items: items.filter((i): i is Item => i !== undefined) };
}

/** Entries first..last of a dense list: one Query whose key range is the page. */
export async function readPositionRange(
  index: 'list' | 'sublist',
  partition: string,
  first: number,
  last: number,
): Promise<Item[]> {
  const [pk, sk] = index === 'list' ? ['L1PK', 'L1SK'] : ['L2PK', 'L2SK'];
  return query({
    IndexName: index,
    KeyConditionExpression: '#pk = :p AND #sk BETWEEN :a AND :b',
    ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
    ExpressionAttributeValues: { ':p': partition, ':a': first, ':b': last },
    ...CAPACITY,
  });
}

/** Position of the first entry created at or after `since` (Limit 1 on T1/T2); undefined = none. */
export async function firstPositionSince(
  index: 'created' | 'subcreated',
  partition: string,
  since: string,
): Promise<number | undefined> {
  const [pk, sk, pos] = index === 'created' ? ['T1PK', 'T1SK', 'L1SK'] : ['T2PK', 'T2SK', 'L2SK'];
  const [first] = await query({
    IndexName: index,
    KeyConditionExpression: '#pk = :p AND #sk >= :since',
    ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
    ExpressionAttributeValues: { ':p': partition, ':since': since },
    Limit: 1,
    ...CAPACITY,
  });
  return first ? Number(first[pos]) : undefined;
}

/** Every status block of the business (consistent: the counts match committed writes). */
export async function readStatusBlocks(businessId: string): Promise<StatusBlock[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :p',
    ExpressionAttributeValues: { ':p': keys.statusBlocks(businessId) },
    ConsistentRead: true,
    ...CAPACITY,
  });
  return statusBlocksOf(items);
}

/** How many applications of a status in one block were created at or after `since` (Select COUNT). */
export async function countStatusInBlockSince(
  businessId: string,
  statusId: string,
  block: number,
  since: string,
): Promise<number> {
  const { first, last } = blockBounds(block);
  const items = await queryAll({
    IndexName: 'statuslist',
    KeyConditionExpression: 'L3PK = :p AND L3SK BETWEEN :a AND :b',
    FilterExpression: 'created_at >= :since',
    ExpressionAttributeValues: {
      ':p': statusPartition(businessId, statusId),
      ':a': first,
      ':b': last,
      ':since': since,
    },
    ProjectionExpression: 'L3SK',
    ...CAPACITY,
  });
  return items.length;
}

/** `limit` entries of a status from business position `from` on. */
export async function readStatusFrom(
  businessId: string,
  statusId: string,
  from: number,
  limit: number,
): Promise<Item[]> {
  return query({
    IndexName: 'statuslist',
    KeyConditionExpression: 'L3PK = :p AND L3SK >= :a',
    ExpressionAttributeValues: { ':p': statusPartition(businessId, statusId), ':a': from },
    Limit: limit,
    ...CAPACITY,
  });
}

/**
 * Every entry of one list partition (job opening list on L2, or status list
 * on L3) passing a filter: the O(matches) fallback for filter combinations
 * without a dense order of their own.
 */
export async function readPartitionFiltered(
  index: 'sublist' | 'statuslist',
  partition: string,
  filter: { statusId?: string; jobId?: string | null; createdSince?: string },
): Promise<Item[]> {
  const pk = index === 'sublist' ? 'L2PK' : 'L3PK';
  const { expression, names, values } = filterExpression(filter);
  return queryAll({
    IndexName: index,
    KeyConditionExpression: '#pk = :p',
    ...(expression ? { FilterExpression: expression } : {}),
    ExpressionAttributeNames: { '#pk': pk, ...names },
    ExpressionAttributeValues: { ':p': partition, ...values },
    ...CAPACITY,
  });
}

/** Index rows (position, status, job, created_at, key) of applications updated at or after `since`. */
export async function readUpdatedSince(
  businessId: string,
  since: string,
  filter: { statusId?: string; jobId?: string | null; createdSince?: string },
): Promise<Item[]> {
  const { expression, names, values } = filterExpression(filter);
  return queryAll({
    IndexName: 'updated',
    KeyConditionExpression: 'T3PK = :p AND T3SK >= :since',
    ...(expression ? { FilterExpression: expression } : {}),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: { ':p': businessListPartition(businessId), ':since': since, ...values },
    ...CAPACITY,
  });
}

function filterExpression(filter: { statusId?: string; jobId?: string | null; createdSince?: string }): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filter.statusId !== undefined) {
    parts.push('#fs = :fs');
    names['#fs'] = 'application_status_id';
    values[':fs'] = filter.statusId;
  }
  if (filter.jobId !== undefined) {
    names['#fj'] = 'job_id';
    if (filter.jobId === null) parts.push('(attribute_not_exists(#fj) OR attribute_type(#fj, :null))');
    else parts.push('#fj = :fj');
    values[filter.jobId === null ? ':null' : ':fj'] = filter.jobId === null ? 'NULL' : filter.jobId;
  }
  if (filter.createdSince !== undefined) {
    parts.push('#fc >= :fc');
    names['#fc'] = 'created_at';
    values[':fc'] = filter.createdSince;
  }
  return { expression: parts.join(' AND '), names, values };
}

// ---------------------------------------------------------------- bulk seeding (benchmark)

/**
 * Every item a sequence of creates would leave behind (records with their
 * positions, list counters, status blocks), for applications given in
 * creation order. Used by the benchmark to seed thousands of applications
 * without thousands of transactions; the result is what the API would write.
 */
export function seedItems(businessId: string, apps: readonly StoredApplication[]): Item[] {
  const items: Item[] = [];
  const jobCounts = new Map<string | null, number>();
  const blocks = new Map<number, Item>();
  apps.forEach((app, i) => {
    const position = i + 1;
    const jobPosition = (jobCounts.get(app.job_id) ?? 0) + 1;
    jobCounts.set(app.job_id, jobPosition);
    items.push(applicationItem(businessId, app, { position, jobPosition }));
    const b = blockOf(position);
    const block = blocks.get(b) ?? { ...keys.statusBlock(businessId, b), block: b, first_created_at: app.created_at };
    const attr = statusCountAttribute(app.application_status_id);
    block[attr] = Number(block[attr] ?? 0) + 1;
    blocks.set(b, block);
  });
  const last = apps[apps.length - 1];
  items.push({
    ...businessCounterKey(businessId),
    n: apps.length,
    ...(last ? { last_created_at: last.created_at } : {}),
  });
  for (const [jobId, n] of jobCounts) items.push({ ...jobCounterKey(businessId, jobId), n });
  items.push(...blocks.values());
  return items;
}

/** Plain puts, 25 per BatchWriteItem, unprocessed ones retried (seeding only: not atomic). */
export async function putAll(items: readonly Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** Math.min(attempt, 6)));
      const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
}

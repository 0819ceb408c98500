import type { BusinessConfig, StoredRatePolicy } from '../domain/business';
import type { ReferenceKind, ReferenceRecord } from '../domain/fixture';
import { business, requireConfig, type RegisteredBusiness } from './entities/business';
import { IF_PRESENT, partitionQuery } from './entities/entity';
import { reference } from './entities/reference';
import { readPositions } from './lists';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './dynamo/client';
import { tableName } from './config';
import { rateCounter } from './entities/rate-counter';
import { updateOf } from './dynamo/update-expression';
import { batchGet, batchPut, queryAll, type Item } from './dynamo/table-io';

const REFERENCE_KINDS: readonly ReferenceKind[] = [
  'location',
  'payout_field',
  'employee_field',
  'employee_job_field',
  'application_field',
];

/** Key-order independent comparison, so a re-import of the same file is recognised as "no change". */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

/** The rendered public form of a reference record. */
export const referenceRecordOf = reference.recordOf;

export const configOf = business.configOf;

export { requireConfig } from './entities/business';

/**
 * The business's entry in the registry partition: the retention job Queries
 * that one partition instead of scanning the whole table for config items, so
 * finding businesses costs O(businesses), not O(table). Import writes it with
 * the config (same setting).
 */
export const registryEntry = business.registryEntry;

/** A business's config alone: one consistent read (a bulk import reads it once per run). */
export async function readBusinessConfig(businessId: string): Promise<BusinessConfig> {
  const [item] = await batchGet([business.configKey(businessId)]);
  return requireConfig(configOf(item), businessId);
}

export type { RegisteredBusiness } from './entities/business';
const registeredOf = business.registeredOf;

/** Every business (one Query of the registry partition, 100 per call), or just `businessId` (one GetItem). */
export async function readRegistry(businessId?: string): Promise<RegisteredBusiness[]> {
  if (businessId !== undefined) {
    const [item] = await batchGet([business.registryKey(businessId)]);
    return item ? [registeredOf(item)] : [];
  }
  const items = await queryAll({ ...partitionQuery(business.patterns.registry, {}), Limit: 100 });
  return items.map(registeredOf);
}

/**
 * Records that every effective-date change of `businessId` up to `day` is written (one conditional UpdateItem of
 * its registry entry). Never backwards: a run that finished an earlier day after another run went further leaves it.
 */
export async function markEffectiveThrough(businessId: string, day: string): Promise<void> {
  const attribute = business.effectiveThroughAttribute;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: business.registryKey(businessId),
        ...updateOf(
          { set: { [attribute]: day } },
          {
            expression: `${IF_PRESENT} AND (attribute_not_exists(${attribute}) OR ${attribute} < :day)`,
            values: { ':day': day },
          },
        ),
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** Every reference record of a business, as an import takes them (a sandbox copies its business's, contract §24). */
export async function readReferenceRecords(businessId: string): Promise<ReferenceRecord[]> {
  const records: ReferenceRecord[] = [];
  for (const kind of REFERENCE_KINDS) {
    const items = await readPositions(reference.patterns.byPosition, { businessId, kind }, { from: 1 });
    for (const item of items) records.push({ kind, id: String(item.id), fields: referenceRecordOf(item) });
  }
  return records;
}

export interface ImportSummary {
  created: boolean;
  written: number;
  unchanged: number;
}

/**
 * Upserts a business and its reference data. Idempotent: records whose content
 * did not change keep their timestamps and are not written; positions in each
 * list follow (created_at, id) so new entries append. Entries missing from the
 * file are kept (records may reference them).
 */
export async function importBusiness(
  fixtureConfig: BusinessConfig,
  records: readonly ReferenceRecord[],
): Promise<ImportSummary> {
  // The limits live on the business's counter item only (contract §18: every instance reads them with its syncs).
  const { rate_limit: limit, token_rate_limit: tokenLimit, ...config } = fixtureConfig;
  const bid = config.id;
  const now = new Date().toISOString();
  const [existingConfigItem, registered, rateItem] = await batchGet([
    business.configKey(bid),
    business.registryKey(bid),
    rateCounter.businessKey(bid),
  ]);
  const writes: Item[] = [];
  let unchanged = 0;

  for (const kind of REFERENCE_KINDS) {
    const existing = await readPositions(reference.patterns.byPosition, { businessId: bid, kind }, { from: 1 });
    const byId = new Map(existing.map((item) => [String(item.id), item]));
    const merged = new Map<string, { item: Item; changed: boolean }>();
    for (const item of existing) merged.set(String(item.id), { item, changed: false });
    for (const record of records.filter((r) => r.kind === kind)) {
      const old = byId.get(record.id);
      if (old && canonical(referenceRecordOf(old)) === canonical(record.fields)) continue;
      merged.set(record.id, {
        changed: true,
        item: reference.item(bid, kind, record.id, record.fields, {
          createdAt: old?.created_at ?? now,
          updatedAt: now,
          version: Number(old?.version ?? 0) + 1,
        }),
      });
    }
    const ordered = [...merged.values()].sort(
      (a, b) =>
        String(a.item.created_at).localeCompare(String(b.item.created_at)) ||
        String(a.item.id).localeCompare(String(b.item.id)),
    );
    ordered.forEach(({ item, changed }, i) => {
      const position = i + 1;
      if (changed || reference.positionOf(item) !== position)
        writes.push({ ...item, ...reference.indexKeys(bid, kind, position) });
      else unchanged += 1;
    });
    const counter = { ...reference.counter(bid, kind), n: ordered.length };
    const counterItems = await batchGet([reference.counter(bid, kind)]);
    if (counterItems[0]?.n !== ordered.length) writes.push(counter);
  }

  const oldConfig = configOf(existingConfigItem);
  if (oldConfig) {
    // A status's code is its index here, stored in every list's summary and maps: the statuses imported before keep
    // theirs, in their order, and new ones are appended (one missing from the file is kept, as its record is).
    const known = oldConfig.application_status_ids;
    config.application_status_ids = [...known, ...config.application_status_ids.filter((id) => !known.includes(id))];
  }
  if (!oldConfig || canonical(oldConfig) !== canonical(config)) {
    // Written last: a business becomes usable only once its reference data is in place.
    writes.push(business.configItem(config, existingConfigItem?.created_at ?? now, now));
  }
  const entry = registryEntry(config, registered);
  if (!registered || canonical(registered) !== canonical(entry)) writes.push(entry);
  const rateChanged = Object.entries({ limit, tokenLimit }).some(
    ([name, value]) =>
      canonical(rateItem?.[rateCounter.limitAttributes[name as 'limit']] ?? null) !== canonical(value ?? null),
  );
  // Before the config: a new business's tokens are usable only once its config is written.
  if (rateChanged) await storeRateLimits(bid, { limit, tokenLimit });
  await batchPut(writes);
  return { created: !existingConfigItem, written: writes.length + (rateChanged ? 1 : 0), unchanged };
}

/** The business's limits on its counter item, absent ones removed (the defaults apply); its counts untouched. */
async function storeRateLimits(
  businessId: string,
  limits: Record<'limit' | 'tokenLimit', StoredRatePolicy | undefined>,
): Promise<void> {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [name, policy] of Object.entries(limits)) {
    const attribute = rateCounter.limitAttributes[name as 'limit'];
    if (policy) set[attribute] = { requests: policy.requests, window_seconds: policy.window_seconds };
    else remove.push(attribute);
  }
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: rateCounter.businessKey(businessId),
      ...updateOf({ set, remove }),
    }),
  );
}

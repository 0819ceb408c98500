/**
 * Bulk seeding for benchmarks and large-list tests: the items a sequence of
 * application creates would have written, put with plain batch writes
 * (table-io's `batchPut`), without thousands of transactions. Not production code: it
 * restates what application-store's create writes, and
 * test/integration/application-erasure.test.ts checks pages over it.
 */
import type { BusinessConfig } from '../../src/domain/business';
import {
  firstCreatedAttribute,
  liveAttribute,
  mapAttribute,
  mapValue,
  statusAttribute,
  statusCode,
  superblockOf,
} from '../../src/domain/list-map';
import { applicationItem, updatedCounterKey } from '../../src/data/application-store';
import { application, type CreatedPosition, type StoredApplication } from '../../src/data/entities/application';
import { keys, type Key } from '../../src/data/keys';
import type { Item } from '../../src/data/table-io';

/**
 * Every item a sequence of creates would leave behind (records with their
 * positions, list counters, status blocks), for applications given in
 * creation order. Used by the benchmark to seed thousands of applications
 * without thousands of transactions; the result is what the API would write.
 */
export function seedItems(businessId: string, config: BusinessConfig, apps: readonly StoredApplication[]): Item[] {
  const items: Item[] = [];
  const counters = new Map<string, Item>();
  const maps = new Map<string, Item>();
  const append = (counterKey: Key, list: string, code: number, createdAt: string): number => {
    const id = counterKey.PK;
    const counter = counters.get(id) ?? { ...counterKey, n: 0 };
    const position = Number(counter.n) + 1;
    const sb = superblockOf(position);
    counter.n = position;
    for (const attr of [liveAttribute(sb), statusAttribute(sb, code)]) counter[attr] = Number(counter[attr] ?? 0) + 1;
    counter[firstCreatedAttribute(sb)] ??= Date.parse(createdAt);
    counters.set(id, counter);
    const mk = keys.listMap(businessId, list, sb);
    const map = maps.get(mk.PK + mk.SK) ?? { ...mk };
    map[mapAttribute(position)] = mapValue(Date.parse(createdAt), code);
    maps.set(mk.PK + mk.SK, map);
    return position;
  };
  const byUpdate = [...apps].sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0));
  const updatePositions = new Map<string, number>();
  for (const app of byUpdate)
    updatePositions.set(
      app.id,
      append(
        updatedCounterKey(businessId),
        application.writeOrder,
        statusCode(config.application_status_ids, app.application_status_id),
        app.updated_at,
      ),
    );
  for (const app of apps) {
    const code = statusCode(config.application_status_ids, app.application_status_id);
    const lists = application.createdIn(app);
    const created = Object.fromEntries(
      lists.map(({ list, at }) => [at, append(keys.counter(businessId, list), list, code, app.created_at)]),
    ) as Record<CreatedPosition, number>;
    items.push(applicationItem(businessId, app, { ...created, updatePosition: updatePositions.get(app.id)! }));
  }
  const last = apps[apps.length - 1];
  const business = counters.get(keys.counter(businessId, application.createdIn({})[0]!.list).PK);
  if (business && last) business.last_created_at = last.created_at;
  const updated = counters.get(updatedCounterKey(businessId).PK);
  const lastWrite = byUpdate[byUpdate.length - 1];
  if (updated && lastWrite) updated.last_updated_at = lastWrite.updated_at;
  items.push(...counters.values(), ...maps.values());
  return items;
}

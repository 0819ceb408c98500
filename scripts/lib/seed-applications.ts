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
  shardOf,
  superblockOf,
} from '../../src/domain/list-map';
import { applicationItem } from '../../src/data/application-store';
import { application, type CreatedPosition, type StoredApplication } from '../../src/data/entities/application';
import { keys, type Key } from '../../src/data/dynamo/keys';
import type { Item } from '../../src/data/dynamo/table-io';

/**
 * Every item a sequence of creates would leave behind (records with their
 * positions, list summaries and maps, the reservation item), for
 * applications given in creation order. Used by the benchmark to seed thousands of applications
 * without thousands of transactions; the result is what the API would write.
 */
export function seedItems(businessId: string, config: BusinessConfig, apps: readonly StoredApplication[]): Item[] {
  const items: Item[] = [];
  const counters = new Map<string, Item>();
  const maps = new Map<string, Item>();
  const place = (counterKey: Key, list: string, position: number, code: number, createdAt: string): number => {
    const counter = counters.get(counterKey.PK) ?? { ...counterKey };
    const sb = superblockOf(position);
    for (const attr of [liveAttribute(sb), statusAttribute(sb, code)]) counter[attr] = Number(counter[attr] ?? 0) + 1;
    counter[firstCreatedAttribute(sb)] ??= Date.parse(createdAt);
    counters.set(counterKey.PK, counter);
    const mk = keys.listMap(businessId, list, sb, shardOf(position));
    const map = maps.get(mk.PK + mk.SK) ?? { ...mk };
    map[mapAttribute(position)] = mapValue(Date.parse(createdAt), code);
    maps.set(mk.PK + mk.SK, map);
    return position;
  };
  const codeOf = (app: StoredApplication): number =>
    statusCode(config.application_status_ids, app.application_status_id);
  const byUpdate = [...apps].sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0));
  const updatePositions = new Map<string, number>();
  byUpdate.forEach((app, i) =>
    updatePositions.set(
      app.id,
      place(
        keys.counter(businessId, application.writeOrder),
        application.writeOrder,
        i + 1,
        codeOf(app),
        app.updated_at,
      ),
    ),
  );
  apps.forEach((app, i) => {
    // Every list an application is created into takes its business position (src/data/lists/sequence.ts).
    const created = Object.fromEntries(
      application
        .createdIn(app)
        .map(({ list, at }) => [at, place(keys.counter(businessId, list), list, i + 1, codeOf(app), app.created_at)]),
    ) as Record<CreatedPosition, number>;
    items.push(applicationItem(businessId, app, { ...created, updatePosition: updatePositions.get(app.id)! }));
  });
  const lastWrite = byUpdate[byUpdate.length - 1];
  if (lastWrite)
    items.push({
      ...keys.counter(businessId, application.sequence),
      n: apps.length,
      u: apps.length,
      t: Date.parse(lastWrite.updated_at),
    });
  items.push(...counters.values(), ...maps.values());
  return items;
}

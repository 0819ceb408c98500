/**
 * `npm run bench`: what erasures leave behind, without sending thousands of
 * DELETEs. Takes the items a sequence of creates would have written
 * (seedItems) and erases a share of the applications the way
 * deleteWrites does: the record goes, its positions in the business list,
 * its job opening's list and the order of writes become holes (map value
 * HOLE), and the live and per-status counts of their superblocks drop by one.
 * Positions are never reused, first-created marks stay.
 */
import { positionsOf } from '../../src/data/application-store';
import { application } from '../../src/data/entities/application';
import type { Item } from '../../src/data/dynamo/table-io';
import {
  HOLE,
  liveAttribute,
  mapAttribute,
  statusAttribute,
  statusCode,
  shardOf,
  superblockOf,
  versionAttribute,
} from '../../src/domain/list-map';
import { keys } from '../../src/data/dynamo/keys';

/** Erases each application with probability `share` (random() < share); returns the remaining items and the count erased. */
export function eraseAtRandom(
  businessId: string,
  statusIds: readonly string[],
  items: readonly Item[],
  share: number,
  random: () => number,
): { items: Item[]; erased: number } {
  const byKey = new Map(items.map((item) => [`${String(item.PK)}\u0000${String(item.SK)}`, item]));
  const at = (key: { PK: string; SK: string }): Item | undefined => byKey.get(`${key.PK}\u0000${key.SK}`);
  let erased = 0;
  const hole = (counter: { PK: string; SK: string }, list: string, position: number, code: number): void => {
    const sb = superblockOf(position);
    const summary = at(counter);
    if (summary) {
      summary[liveAttribute(sb)] = Number(summary[liveAttribute(sb)] ?? 0) - 1;
      summary[statusAttribute(sb, code)] = Number(summary[statusAttribute(sb, code)] ?? 0) - 1;
      summary[versionAttribute(sb)] = Number(summary[versionAttribute(sb)] ?? 0) + 1;
    }
    const map = at(keys.listMap(businessId, list, sb, shardOf(position)));
    if (map) map[mapAttribute(position)] = HOLE;
  };
  const kept = items.filter((item) => {
    if (item.kind !== 'application' || random() >= share) return true;
    const code = statusCode(statusIds, String(item.application_status_id));
    const at = positionsOf(item);
    for (const { list, at: field } of application.positionLists(item))
      hole(keys.counter(businessId, list), list, at[field], code);
    erased += 1;
    return false;
  });
  return { items: kept, erased };
}

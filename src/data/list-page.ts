/**
 * Pages of the lists with position maps (docs/pagination.md): applications,
 * employees and employee jobs are paged by this one read and the one page
 * locator; what differs between their lists is data (MappedList, MappedPageReading).
 */
import type { BusinessConfig } from '../domain/business';
import { mapOf, SHARDS, summaryOf, type ListSummary, type MapShard } from '../domain/list-map';
import { locatePage, mapsForPage, type PageAsk } from '../domain/page-locator';
import type { PageRequest } from '../domain/pagination';
import { configOf, requireConfig } from './business-store';
import { business } from './entities/business';
import { tableKeyOf, type MappedList, type PatternIndex } from './entities/entity';
import { keys, mapShardOfKey } from './keys';
import { readEntries, recordsOf, type QueryFilter } from './list-store';
import { pageHintOf, rememberPageHint } from './page-hints';
import { batchGet, queryPartition, type Item } from './table-io';

/** A page of a list: the exact total, the page's records in list order, the config they render with. */
export interface ListPage {
  readonly config: BusinessConfig;
  readonly total: number;
  readonly items: Item[];
}

/** What differs between the kinds' lists with maps when a page is read. */
export interface MappedPageReading {
  /** The status code the page filters by (none: every entry). */
  readonly code: (config: BusinessConfig) => number | undefined;
  /** The status as a filter on a key range (`wholeRange` lists). */
  readonly rangeFilter?: QueryFilter;
  /** How the page's records are read by key (default: consistent). */
  readonly records?: (index: PatternIndex, entries: readonly Item[]) => Promise<Item[]>;
}

/**
 * A page of a list with position maps (applications, employees, employee
 * jobs), located by the page locator (src/domain/page-locator.ts). In one
 * round trip: the config, the summary (one Query of its base and shards) and
 * the maps the hint of this list names (src/data/page-hints.ts; one Query per
 * run of consecutive superblocks, of every shard of each); the maps the fresh
 * summary names beyond those in a second one (a cold instance, or a list that
 * moved); one Query of the page's index entries; one BatchGetItem of their
 * records. 3 round trips warm, 4 cold, whatever the page number and N.
 */
export async function readMappedPage(
  businessId: string,
  list: MappedList,
  page: PageRequest,
  reading: MappedPageReading,
): Promise<ListPage> {
  const sinceMs = list.since === undefined ? undefined : Date.parse(list.since);
  const ask = (config: BusinessConfig): PageAsk => ({
    code: reading.code(config),
    sinceMs,
    skipped: (page.page - 1) * page.perPage,
    perPage: page.perPage,
    wholeRange: list.wholeRange,
  });
  const hintKey = keys.counter(businessId, list.list).PK;
  const hint = pageHintOf(hintKey);
  const guessed = hint ? mapsForPage(hint.summary, ask(hint.config)) : [];
  const [[configItem], summary, maps] = await Promise.all([
    batchGet([business.configKey(businessId)]),
    readSummary(businessId, list.list),
    readMaps(businessId, list.list, guessed),
  ]);
  const config = requireConfig(configOf(configItem), businessId);
  rememberPageHint(hintKey, { config, summary });
  let location = locatePage(summary, maps, ask(config));
  if (location.kind === 'maps') {
    const missing = mapsForPage(summary, ask(config)).filter((sb) => !maps.has(sb));
    for (const [sb, map] of await readMaps(businessId, list.list, missing)) maps.set(sb, map);
    location = locatePage(summary, maps, ask(config));
    // With every map mapsForPage names the locator answers (property-tested): this is a bug, never a retry.
    if (location.kind === 'maps') throw new Error(`page locator asked twice for maps of ${list.list}`);
  }
  const { total, range } = location;
  if (!range) return { config, total, items: [] };
  const entries =
    range.to === undefined
      ? await readEntries(list.entries, { from: range.from, limit: range.take })
      : await readEntries(list.entries, { from: range.from, to: range.to }, reading.rangeFilter);
  const records = reading.records ?? ((index, found) => recordsOf(index, found));
  return { config, total, items: await records(list.entries.index, entries.slice(0, range.take)) };
}

/** A list's summary: one consistent Query of its base and shards, added up (src/domain/list-map.ts). */
export async function readSummary(businessId: string, list: string): Promise<ListSummary> {
  return summaryOf(await queryPartition(keys.counter(businessId, list).PK));
}

/**
 * Maps of some superblocks of a list, by superblock: one consistent Query of
 * every shard of each run of consecutive superblocks (a page names at most
 * two runs: its own superblocks and those straddling a since-cut). A Query is
 * billed by the bytes it reads, so the shards cost what one item would.
 */
async function readMaps(
  businessId: string,
  list: string,
  superblocks: readonly number[],
): Promise<Map<number, number[]>> {
  const runs: [number, number][] = [];
  for (const sb of [...superblocks].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && sb === last[1] + 1) last[1] = sb;
    else runs.push([sb, sb]);
  }
  const read = await Promise.all(
    runs.map(([from, to]) =>
      queryPartition(keys.listMap(businessId, list, from, 0).PK, {
        from: keys.listMap(businessId, list, from, 0).SK,
        to: keys.listMap(businessId, list, to, SHARDS - 1).SK,
      }),
    ),
  );
  const bySuperblock = new Map<number, MapShard[]>(superblocks.map((sb) => [sb, []]));
  for (const item of read.flat()) {
    const { superblock, shard } = mapShardOfKey(tableKeyOf(item).SK);
    bySuperblock.get(superblock)?.push({ shard, item });
  }
  return new Map([...bySuperblock].map(([sb, shards]) => [sb, mapOf(shards)]));
}

/**
 * Pages of the lists with position maps (docs/pagination.md): applications,
 * employees and employee jobs are paged by this one read and the one page
 * locator; what differs between their lists is data (MappedList, MappedPageReading).
 */
import type { BusinessConfig } from '../domain/business';
import { mapOf, summaryOf } from '../domain/list-map';
import { locatePage, mapsForPage, type PageAsk } from '../domain/page-locator';
import type { PageRequest } from '../domain/pagination';
import { configOf, requireConfig } from './business-store';
import { business } from './entities/business';
import type { MappedList, PatternIndex } from './entities/entity';
import { keys } from './keys';
import { readEntries, recordsOf, type QueryFilter } from './list-store';
import { pageHintOf, rememberPageHint } from './page-hints';
import { batchGet, type Item } from './table-io';

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
 * jobs), located by the page locator (src/domain/page-locator.ts): config,
 * summary and the maps the hint of this list names (src/data/page-hints.ts)
 * in one BatchGetItem; the maps the fresh summary names beyond those in a
 * second one (a cold instance, or a list that moved); one Query of the page's
 * index entries; one BatchGetItem of their records. 3 calls warm, 4 cold,
 * whatever the page number and N.
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
  const counterKey = keys.counter(businessId, list.list);
  const hint = pageHintOf(counterKey.PK);
  const guessed = hint ? mapsForPage(hint.summary, ask(hint.config)) : [];
  const [configItem, counter, ...mapItems] = await batchGet([
    business.configKey(businessId),
    counterKey,
    ...guessed.map((sb) => keys.listMap(businessId, list.list, sb)),
  ]);
  const config = requireConfig(configOf(configItem), businessId);
  const summary = summaryOf(counter);
  rememberPageHint(counterKey.PK, { config, summary });
  const maps = new Map(guessed.map((sb, i) => [sb, mapOf(mapItems[i])]));
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

/** Maps of some superblocks of a list (one BatchGetItem), by superblock. */
async function readMaps(
  businessId: string,
  list: string,
  superblocks: readonly number[],
): Promise<Map<number, number[]>> {
  const items = await batchGet(superblocks.map((sb) => keys.listMap(businessId, list, sb)));
  return new Map(superblocks.map((sb, i) => [sb, mapOf(items[i])]));
}

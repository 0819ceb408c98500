/**
 * Pages of the lists with position maps (docs/pagination.md): applications,
 * employees and employee jobs are paged by this one read (`readPage`) and the
 * one page locator; what differs between their lists is data (MappedList or
 * CutList, PageReading).
 */
import type { BusinessConfig } from '../../domain/business';
import {
  mapOf,
  positionOf,
  SHARDS,
  straddlingSuperblocks,
  summaryOf,
  type ListSummary,
  type MapShard,
} from '../../domain/list-map';
import { locatePage, mapsForPage, type PageAsk } from '../../domain/page-locator';
import { pagePositions, type PageRequest } from '../../domain/pagination';
import { business, requireConfig } from '../entities/business';
import { tableKeyOf, type CutList, type MappedList } from '../entities/entity';
import { keys, mapShardOfKey, type Key } from '../dynamo/keys';
import { readEntries, recordsOf, type QueryFilter } from './store';
import { cutKeyOf, pageHintOf, rememberPageHint, withCut } from './hints';
import { batchGet, queryPartition, readWithAlong, type Item, type ReadAlong } from '../dynamo/table-io';

/** A page of a list: the exact total, the page's records in list order, the config they render with. */
export interface ListPage {
  readonly config: BusinessConfig;
  readonly total: number;
  readonly items: Item[];
}

/** What differs between the kinds' lists when a page is read. */
export interface PageReading {
  /** The status code the page filters by, from the business's config (absent: the page does not filter by status). */
  readonly code?: (config: BusinessConfig) => number;
  /**
   * What DynamoDB filters the entries read by: the status on a key range (a `wholeRange` MappedList), every
   * filter of a CutList.
   */
  readonly filter?: QueryFilter;
  /** How the page's records, and beside them the config, are read by key (default: consistent). */
  readonly read?: (keys: readonly Key[]) => Promise<(Item | undefined)[]>;
}

/** A BatchGetItem takes at most 100 keys: a page whose records fill it reads the config in its first round trip. */
const MAX_BATCH_KEYS = 100;

export interface PageReadOptions {
  /** Read the config with the summary (a page read again after its hint's status code proved wrong). */
  readonly configFirst?: boolean;
  /** An item to read with the page's BatchGetItem (a read's token, src/http/auth.ts). */
  readonly along?: ReadAlong;
}

/**
 * The list engine's page read: a page of `list` (a list with maps, or one read
 * from a since-cut), with its exact total and the config it renders with;
 * `options.along` (a read's token) goes out in one of its BatchGetItems.
 */
export const readPage = (
  businessId: string,
  list: MappedList | CutList,
  page: PageRequest,
  reading: PageReading,
  options: PageReadOptions = {},
): Promise<ListPage> =>
  list.kind === 'mapped'
    ? readMappedPage(businessId, list, page, reading, options)
    : readCutPage(businessId, list, page, reading, options.along);

/**
 * A page of a list with position maps (applications, employees, employee
 * jobs), located by the page locator (src/domain/page-locator.ts). In one
 * round trip: the summary (one Query of its base and shards) and the maps the
 * hint of this list names (src/data/lists/hints.ts; one Query per run of
 * consecutive superblocks, of every shard of each); the maps the fresh
 * summary names beyond those in a second one (a cold instance, or a list that
 * moved); one Query of the page's index entries; one BatchGetItem of their
 * records and the business's config. 3 round trips warm, 4 cold, whatever the
 * page number and N; 3 calls for a page without maps, one more per run of
 * maps.
 *
 * The config goes out with the records because the page does not need it
 * before them, except for the code of the status a page filters by: that
 * comes from the hint's config, since a status keeps its code (codes index the
 * business's append-only `application_status_ids`). The config read with the
 * records must give the same code, else the page is read again with the
 * config first; so is a page whose status the hint's config lacks, a cold
 * instance's status page and a page of 99 or 100 (its BatchGetItem is full).
 *
 * `along` (a read's token) goes out in the page's one BatchGetItem: with the
 * records, or with the config where that is read first.
 */
async function readMappedPage(
  businessId: string,
  list: MappedList,
  page: PageRequest,
  reading: PageReading,
  options: PageReadOptions = {},
): Promise<ListPage> {
  const { along } = options;
  const sinceMs = list.since === undefined ? undefined : Date.parse(list.since);
  const ask = (code: number | undefined): PageAsk => ({
    code,
    sinceMs,
    skipped: (page.page - 1) * page.perPage,
    perPage: page.perPage,
    wholeRange: list.wholeRange,
  });
  const hintKey = keys.counter(businessId, list.list).PK;
  const hint = pageHintOf(hintKey);
  const hintedCode = hint && reading.code ? reading.code(hint.config) : undefined;
  const readsConfigFirst =
    options.configFirst ||
    page.perPage + (along ? 2 : 1) > MAX_BATCH_KEYS ||
    (reading.code !== undefined && (hintedCode === undefined || hintedCode === -1));
  const cutKey = sinceMs === undefined ? undefined : (code: number | undefined) => cutKeyOf(sinceMs, code);
  const hintedCut = cutKey && hint?.cuts?.get(cutKey(hintedCode));
  const guessed = hint ? mapsForPage(hint.summary, ask(hintedCode), hintedCut) : [];
  const [configRead, summary, maps] = await Promise.all([
    readsConfigFirst ? readWithAlong(batchGet, [business.configKey(businessId)], along) : undefined,
    readSummary(businessId, list.list),
    readMaps(businessId, list.list, guessed),
  ]);
  const firstConfig = configRead && requireConfig(business.configOf(configRead[0]), businessId);
  const code = firstConfig ? reading.code?.(firstConfig) : hintedCode;
  // What the straddling maps said, kept for this cut and status; used only while the fresh summary's versions hold.
  const known = code === hintedCode ? hintedCut : undefined;
  let location = locatePage(summary, maps, ask(code), known);
  if (location.kind === 'maps') {
    const missing = mapsForPage(summary, ask(code), known).filter((sb) => !maps.has(sb));
    for (const [sb, map] of await readMaps(businessId, list.list, missing)) maps.set(sb, map);
    location = locatePage(summary, maps, ask(code), known);
    // With every map mapsForPage names the locator answers (property-tested): this is a bug, never a retry.
    if (location.kind === 'maps') throw new Error(`page locator asked twice for maps of ${list.list}`);
  }
  const { total, range, cut } = location;
  const entries = !range
    ? []
    : range.to === undefined
      ? await readEntries(list.entries, { from: range.from, limit: range.take })
      : await readEntries(list.entries, { from: range.from, to: range.to }, reading.filter);
  const read = reading.read ?? batchGet;
  const later = firstConfig ? undefined : along;
  let recordsRead = false;
  let configItem: Item | undefined;
  const items = await recordsOf(list.entries.index, entries.slice(0, range?.take ?? 0), async (recordKeys) => {
    recordsRead = true;
    if (firstConfig) return read(recordKeys);
    const found = await readWithAlong(read, [...recordKeys, business.configKey(businessId)], later);
    configItem = found.pop();
    return found;
  });
  // No records to read, or an eventually consistent read that missed the config (a business imported a moment
  // ago): the config on its own, consistent.
  if (!firstConfig && !configItem)
    [configItem] = await readWithAlong(batchGet, [business.configKey(businessId)], recordsRead ? undefined : later);
  const config = firstConfig ?? requireConfig(business.configOf(configItem), businessId);
  if (!firstConfig && reading.code && reading.code(config) !== code)
    return readMappedPage(businessId, list, page, reading, { configFirst: true });
  const cuts = cut === undefined || !cutKey ? hint?.cuts : withCut(hint?.cuts, cutKey(code), cut);
  rememberPageHint(hintKey, { config, summary, ...(cuts ? { cuts } : {}) });
  return { config, total, items };
}

/**
 * A page of a CutList: its entries from the superblock straddling `since` on,
 * every filter applied by DynamoDB: O(entries since the cut) key-only entries,
 * the same on every page, exact total; then the page's records. The config
 * (with `along`) goes out beside the summary.
 */
async function readCutPage(
  businessId: string,
  list: CutList,
  page: PageRequest,
  reading: PageReading,
  along: ReadAlong | undefined,
): Promise<ListPage> {
  const [[configItem], summary] = await Promise.all([
    readWithAlong(batchGet, [business.configKey(businessId)], along),
    readSummary(businessId, list.list),
  ]);
  const [straddling = 0] = straddlingSuperblocks(summary, Date.parse(list.since));
  const matches = await readEntries(list.entries, { from: positionOf(straddling, 0) }, reading.filter);
  const range = pagePositions(page, matches.length);
  const items = range
    ? await recordsOf(list.entries.index, matches.slice(range.first - 1, range.last), reading.read ?? batchGet)
    : [];
  return { config: requireConfig(business.configOf(configItem), businessId), total: matches.length, items };
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

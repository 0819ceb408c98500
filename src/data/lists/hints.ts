/**
 * What this process last read of a list's summary (and its business's
 * config), kept as a hint of which position maps the next page of that list
 * will need, so they go out with the summary instead of in a round trip of
 * their own (docs/pagination.md). A hint decides nothing a client sees
 * unless the summary read with the page proves it current: the page maths
 * runs on that summary, a map the hint missed is read after it (a cold
 * instance, or a list that moved since), a status code is checked against
 * the config read with the records, and a since-cut's count is used only
 * while its superblocks' versions hold. Bounded: the oldest lists are dropped.
 */
import { keepAtMost } from '../../domain/bounded-map';
import type { BusinessConfig } from '../../domain/business';
import type { ListSummary } from '../../domain/list-map';
import type { KnownCut } from '../../domain/page-locator';

export interface PageHint {
  readonly config: BusinessConfig;
  readonly summary: ListSummary;
  /**
   * Per since-cut read of this list (`cutKeyOf`), what the maps straddling the cut said and at which versions of
   * their superblocks: a next page of that cut reads only its own maps while those versions hold
   * (src/domain/page-locator.ts KnownCut).
   */
  readonly cuts?: ReadonlyMap<string, KnownCut>;
}

/** At most this many since-cuts kept per list (a sync pages through one cut; a UI tries a few). */
const MAX_CUTS = 16;

/** The key of a since-cut among a list's kept cuts: its time and status code. */
export const cutKeyOf = (sinceMs: number, code: number | undefined): string => `${sinceMs}:${code ?? ''}`;

/** `cuts` with one more (or a changed) cut, the least recently counted dropped past MAX_CUTS. */
export function withCut(cuts: ReadonlyMap<string, KnownCut> | undefined, key: string, cut: KnownCut) {
  const next = new Map(cuts);
  keepAtMost(next, MAX_CUTS, key, cut);
  return next;
}

const MAX_LISTS = 500;
/** Older hints name the wrong superblocks more often than not: read as if cold. */
const MAX_AGE_MS = 10 * 60_000;

const hints = new Map<string, { hint: PageHint; at: number }>();

/** The hint for a list (by its counter's partition key), if this process read it recently. */
export function pageHintOf(listKey: string, now = Date.now()): PageHint | undefined {
  const entry = hints.get(listKey);
  if (!entry) return undefined;
  if (now - entry.at > MAX_AGE_MS) {
    hints.delete(listKey);
    return undefined;
  }
  return entry.hint;
}

export function rememberPageHint(listKey: string, hint: PageHint, now = Date.now()): void {
  keepAtMost(hints, MAX_LISTS, listKey, { hint, at: now });
}

/** Tests: start as a cold instance. */
export function forgetPageHints(): void {
  hints.clear();
}

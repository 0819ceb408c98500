/**
 * GET /changes (contract §13, docs/change-feed.md): a page of the business's
 * change feed after a cursor. Round trips: auth, one BatchGetItem of the lane
 * counters, one BatchGetItem of the page's entries by key (3 calls); items
 * read <= LANE_COUNT + min(limit, 100), whatever the history or the business.
 */
import {
  DEFAULT_LIMIT,
  MAX_PAGE_ENTRIES,
  assemblePage,
  decodeCursor,
  encodeCursor,
  fetchPlan,
  parseTypes,
  positionStatus,
  startSeq,
  type ChangeType,
  type FeedEntry,
  type FeedPosition,
} from '../domain/change-feed';
import {
  cursorExpired,
  FieldError,
  FieldErrorCollector,
  insufficientScope,
  MESSAGES,
  type FieldMessages,
} from '../domain/errors';
import { readsEntry, scopesForChangeType, type TokenView } from '../domain/token-view';
import { projectFeedEntry } from './token-view';
import { feedEnd, readEntries, readLaneCounters } from '../data/feed-store';
import type { CursorStatus } from './change-source';

export interface ChangesQuery {
  after?: string;
  limit?: number;
  types?: string;
  token_id?: string;
}

export interface ChangesPage {
  readonly entries: FeedEntry[];
  readonly next_cursor: string;
}

/**
 * A page after `after` (undefined: from the oldest retained entry). 400 with
 * every failing parameter (`schemaErrors`: what the query schema found), 410
 * when the cursor's next entries expired. `view` (contract §25): what the
 * reading token may see, known once its lookup beside the reads settles; the
 * page holds only entries of types it may read, each as it may see it, and a
 * `types` filter naming a type it may not read is 403. Without a view (the
 * webhook dispatcher, which projects per subscription): every entry as stored.
 */
export async function listChanges(
  businessId: string,
  q: ChangesQuery,
  schemaErrors: FieldMessages = {},
  view?: Promise<TokenView> | TokenView,
  now = Date.now(),
): Promise<ChangesPage> {
  const page = await readChanges(businessId, q, schemaErrors, now);
  if (view === undefined) return { entries: page.entries, next_cursor: page.next_cursor };
  const seen = await view;
  for (const type of page.wanted ?? []) {
    const needs = scopesForChangeType(type);
    if (needs.length > 0 && !needs.some((s) => seen.scopes.includes(s))) throw insufficientScope(needs[0]!);
  }
  // Entries the token may not read are consumed (the cursor moves past them), never shown.
  const entries = page.entries.filter((e) => readsEntry(seen, e.type, e.data)).map((e) => projectFeedEntry(seen, e));
  return { entries, next_cursor: page.next_cursor };
}

/** A page of the feed as stored, with each entry's key (entryKeyOf) and the types it was asked for. */
async function readChanges(
  businessId: string,
  q: ChangesQuery,
  schemaErrors: FieldMessages = {},
  now = Date.now(),
): Promise<ChangesPage & { keys: string[]; wanted: ReadonlySet<ChangeType> | undefined }> {
  const errors = new FieldErrorCollector();
  errors.merge(schemaErrors);
  const after = q.after !== undefined && !errors.has('after') ? decodeCursor(businessId, q.after) : undefined;
  if (q.after !== undefined && !after) errors.add('after', MESSAGES.invalid);
  const { wanted, unknown } = errors.has('types') ? { wanted: undefined, unknown: [] } : parseTypes(q.types);
  if (unknown.length) errors.add('types', MESSAGES.inclusion);
  errors.throwIfAny(400);

  const counters = await readLaneCounters(businessId);
  // A position beyond a lane's end was never issued.
  if (after && after.some((seq, lane) => seq > (counters[lane]?.n ?? 0)))
    throw new FieldError(400, { after: [MESSAGES.invalid] });
  const from: FeedPosition = after ?? counters.map((c) => startSeq(c, now));

  const plan = fetchPlan(from, counters, Math.min(q.limit ?? DEFAULT_LIMIT, MAX_PAGE_ENTRIES));
  const fetched = await readEntries(businessId, plan);
  const page = assemblePage(businessId, from, plan, fetched, {
    withCursor: after !== undefined,
    wanted,
    tokenId: q.token_id,
  });
  if (page.expired) throw cursorExpired();
  return { entries: page.entries, keys: page.keys, next_cursor: encodeCursor(businessId, page.next), wanted };
}

/**
 * The feed as the webhooks dispatcher reads it (its ChangeSource): entries
 * after a cursor (null: the oldest retained), and the newest cursor.
 */
export const feedChangeSource = {
  async readAfter(
    businessId: string,
    cursor: string | null,
    limit: number,
  ): Promise<{ entries: FeedEntry[]; keys: string[] }> {
    const page = await readChanges(businessId, { ...(cursor !== null ? { after: cursor } : {}), limit });
    return { entries: page.entries, keys: page.keys };
  },
  end: (businessId: string): Promise<string | null> => feedEnd(businessId),
  /** One Query of the lane counters (docs/change-feed.md "Retention and 410"); the check is pure. */
  async cursorCheck(businessId: string): Promise<(cursor: string) => CursorStatus> {
    const counters = await readLaneCounters(businessId);
    const now = Date.now();
    return (cursor) => {
      const position = decodeCursor(businessId, cursor);
      return position ? positionStatus(position, counters, now) : 'invalid';
    };
  },
};

/**
 * How webhooks read the change feed (contract §13): a page of one business's
 * entries after a cursor, and the cursor of its newest entry (where a new
 * subscription starts). feed-wiring.ts plugs in the feed store's source
 * (src/services/changes.ts); the dispatcher's own tests substitute a scripted one.
 */
export interface FeedEntry {
  readonly cursor: string;
  readonly type: string;
  readonly id: string;
  readonly occurred_at: string;
  readonly data: unknown;
}

export type CursorStatus = 'ok' | 'invalid' | 'expired';

export interface ChangeSource {
  /**
   * Entries after `cursor` (null: from the oldest retained), oldest first, at
   * most `limit`; `keys[i]` names `entries[i]` in the feed whichever cursor it
   * was read after (its webhook-id is built from it, so a resumed or replayed
   * entry keeps its id).
   */
  readAfter(
    businessId: string,
    cursor: string | null,
    limit: number,
  ): Promise<{ entries: FeedEntry[]; keys: readonly string[] }>;
  /**
   * Reads what tells whether a cursor of the business can be read after
   * (contract §26, resume): the check answers `invalid` for a malformed or
   * never issued cursor, `expired` for one past retention.
   */
  cursorCheck(businessId: string): Promise<(cursor: string) => CursorStatus>;
  /** The cursor of the newest entry, or null when the business has none yet. */
  end(businessId: string): Promise<string | null>;
}

const unwired: ChangeSource = {
  readAfter: () => Promise.reject(new Error('change feed not wired')),
  end: () => Promise.reject(new Error('change feed not wired')),
  cursorCheck: () => Promise.reject(new Error('change feed not wired')),
};

let source: ChangeSource = unwired;

export const changeSource = (): ChangeSource => source;

/** feed-wiring.ts sets the feed store's; the dispatcher's logic tests a scripted one. */
export function useChangeSource(next: ChangeSource): void {
  source = next;
}

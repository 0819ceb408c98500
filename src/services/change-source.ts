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

export interface ChangeSource {
  /** Entries after `cursor` (null: from the oldest retained), oldest first, at most `limit`. */
  readAfter(businessId: string, cursor: string | null, limit: number): Promise<{ entries: FeedEntry[] }>;
  /** The cursor of the newest entry, or null when the business has none yet. */
  end(businessId: string): Promise<string | null>;
}

const unwired: ChangeSource = {
  readAfter: () => Promise.reject(new Error('change feed not wired')),
  end: () => Promise.reject(new Error('change feed not wired')),
};

let source: ChangeSource = unwired;

export const changeSource = (): ChangeSource => source;

/** feed-wiring.ts sets the feed store's; the dispatcher's logic tests a scripted one. */
export function useChangeSource(next: ChangeSource): void {
  source = next;
}

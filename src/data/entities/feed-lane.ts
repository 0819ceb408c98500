/**
 * Change-feed lanes (src/data/feed-store.ts, docs/change-feed.md): one table
 * partition per business and lane holding its entries by zero-padded
 * sequence and its counter; read by key, never through an index.
 */
import { keys, type Key } from '../keys';
import { pattern } from './entity';

const entries = pattern<{ readonly businessId: string; readonly lane: number | string }>(
  'table',
  'sequence (zero-padded); counter at SEQ',
  ({ businessId, lane }) => keys.feedCounter(businessId, lane).PK,
);

export const feedLane = {
  entity: 'feed lane',
  entryKey: (businessId: string, lane: number | string, seq: number | string): Key =>
    keys.feedEntry(businessId, lane, seq),
  counterKey: (businessId: string, lane: number | string): Key => keys.feedCounter(businessId, lane),
  patterns: { entries },
} as const;

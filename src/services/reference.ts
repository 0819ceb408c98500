import type { RecordKind } from '../data/dynamo/keys';
import { referenceRecordOf } from '../data/business-store';
import { reference } from '../data/entities/reference';
import { readPositions, readWith } from '../data/lists';
import { getItem } from '../data/dynamo/table-io';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { notFound } from '../domain/errors';
import { etagOf } from '../domain/result';

export type ReferenceKind = Extract<
  RecordKind,
  'location' | 'payout_field' | 'employee_field' | 'employee_job_field' | 'application_field'
>;

/** Reference records are rendered at import time; a read is one GetItem. */
export async function showReference(businessId: string, kind: ReferenceKind, id: string) {
  const item = await getItem(reference.key(businessId, kind, id));
  if (!item) throw notFound(kind, id);
  return { record: referenceRecordOf(item), etag: etagOf(id, Number(item.version ?? 1)) };
}

/**
 * One page of a reference list: the counter and the page's key range are
 * independent, so both go out at once (two calls, one round-trip latency).
 */
export async function listReference(businessId: string, kind: ReferenceKind, page: PageRequest) {
  const range = pagePositions(page, Number.MAX_SAFE_INTEGER);
  const [{ counters }, items] = await Promise.all([
    readWith(businessId, [reference.list(kind)]),
    range
      ? readPositions(reference.patterns.byPosition, { businessId, kind }, { from: range.first, to: range.last })
      : Promise.resolve([]),
  ]);
  return { entries: items.map(referenceRecordOf), total: counters[0] ?? 0 };
}

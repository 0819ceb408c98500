/**
 * Reference records (locations, payout and custom field definitions): one
 * list per kind, positions in (created_at, id) order, rewritten by the
 * business import (src/data/business-store.ts); read by key or by position.
 */
import type { ReferenceKind } from '../../domain/fixture';
import { keys, lists, type Key } from '../dynamo/keys';
import { pattern, placeAt, recordBase, sortOf } from './entity';
import { LIST } from './list-names';

type OfKind = { readonly businessId: string; readonly kind: ReferenceKind };

const byPosition = pattern<OfKind>('list-keys', 'position 1..n', ({ businessId, kind }) => lists.all(businessId, kind));

export const reference = {
  entity: 'reference record',
  key: (businessId: string, kind: ReferenceKind, id: string): Key => keys.record(businessId, kind, id),
  patterns: { byPosition },
  list: LIST.reference,
  counter: (businessId: string, kind: ReferenceKind): Key => keys.counter(businessId, LIST.reference(kind)),
  indexKeys: (businessId: string, kind: ReferenceKind, position: number): Record<string, string | number> =>
    placeAt(byPosition, { businessId, kind }, position),
  positionOf: (item: Record<string, unknown>): unknown => sortOf(byPosition, item),
  /**
   * A record's item, without its list keys (`indexKeys` places it). A JSON
   * string keeps the field order of the response (a DynamoDB map does not).
   */
  item: (
    businessId: string,
    kind: ReferenceKind,
    id: string,
    fields: Readonly<Record<string, unknown>>,
    at: { readonly createdAt: unknown; readonly updatedAt: string; readonly version: number },
  ): Record<string, unknown> => ({
    ...recordBase(businessId, kind, id),
    id,
    record: JSON.stringify(fields),
    created_at: at.createdAt,
    updated_at: at.updatedAt,
    version: at.version,
  }),
  /** The rendered public form of a reference record. */
  recordOf: (item: Readonly<Record<string, unknown>>): Record<string, unknown> =>
    typeof item.record === 'string' ? (JSON.parse(item.record) as Record<string, unknown>) : {},
} as const;

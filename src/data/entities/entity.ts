/**
 * What an entity module declares (after ElectroDB's models, without the
 * library): its item key and its access patterns, each naming the index it
 * reads and building that index's partition key. The attribute names of an
 * index come from the table definition, so an entity says "byJob on sublist"
 * and never spells the attribute; docs/architecture.md's access-pattern table
 * is checked against these declarations (test/unit/architecture-doc.test.ts).
 */
import { keys, type RecordKind } from '../dynamo/keys';
import { TABLE, type IndexName } from '../dynamo/table-definition';

/** A GSI of the table definition, or the table's own keys (PK/SK). */
export type PatternIndex = IndexName | 'table';

export interface AccessPattern<P> {
  readonly index: PatternIndex;
  /** The partition key value this pattern reads for `params`. */
  readonly partition: (params: P) => string;
  /** What the sort key holds (shown in the key table). */
  readonly sort: string;
}

export const pattern = <P>(index: PatternIndex, sort: string, partition: (params: P) => string): AccessPattern<P> => ({
  index,
  sort,
  partition,
});

/** One partition of an index: where a pattern reads for some params. */
export interface Partition {
  readonly index: PatternIndex;
  readonly partition: string;
}

export const partitionOf = <P>(p: AccessPattern<P>, params: P): Partition => ({
  index: p.index,
  partition: p.partition(params),
});

/**
 * How a page of one dense list with position maps is read (docs/pagination.md),
 * the per-list spec of the page locator (src/domain/page-locator.ts).
 */
export interface MappedList {
  readonly kind: 'mapped';
  /** Names the list's counter (its summary) and its position maps. */
  readonly list: string;
  /** The index partition holding its entries, sorted by position. */
  readonly entries: Partition;
  /** The status a page filters by. */
  readonly statusId?: string;
  /** The entries partition holds every status: a page with a status is its key range filtered by status. */
  readonly wholeRange: boolean;
  /** Only entries created (for the order of writes: written) at/after this stored timestamp. */
  readonly since?: string;
}

/**
 * A list read from a since-cut on with filters DynamoDB applies, when no list
 * orders by all of them: every entry from the first position the cut may
 * reach is read, filtered (O(entries since the cut), docs/pagination.md).
 */
export interface CutList {
  readonly kind: 'filtered';
  /** Names the list's counter (its summary), which says where the cut falls. */
  readonly list: string;
  /** The index partition holding its entries, sorted by position. */
  readonly entries: Partition;
  /** Only entries created (for the order of writes: written) at/after this stored timestamp. */
  readonly since: string;
}

/** The parameters a pattern's partition is built from. */
export type ParamsOf<A> = A extends AccessPattern<infer P> ? P : never;

/** Attribute names of the partition and sort key of an index (or of the table). */
export function keyNames(index: PatternIndex): { readonly pk: string; readonly sk: string } {
  if (index === 'table') return { pk: TABLE.partitionKey, sk: TABLE.sortKey };
  const def = TABLE.indexes.find((i) => i.name === index);
  if (!def) throw new Error(`unknown index ${index}`);
  return { pk: def.partitionKey, sk: def.sortKey.name };
}

/** The index attributes that put an item at `sort` in the pattern's partition for `params`. */
export function placeAt<P>(p: AccessPattern<P>, params: P, sort: string | number): Record<string, string | number> {
  const { pk, sk } = keyNames(p.index);
  return { [pk]: p.partition(params), [sk]: sort };
}

/** The sort value an item holds for a pattern (its position, for the list patterns); undefined if not in it. */
export function sortOf(p: AccessPattern<never>, item: Record<string, unknown>): unknown {
  return item[keyNames(p.index).sk];
}

/** The attribute names that take an item out of a pattern's (sparse) index. */
export const attributesOf = (p: AccessPattern<never>): string[] => {
  const { pk, sk } = keyNames(p.index);
  return [pk, sk];
};

/** Conditions on an item's existence, on the table's partition key (a Put that must create, an update of an item that must exist). */
export const IF_ABSENT = `attribute_not_exists(${TABLE.partitionKey})`;
export const IF_PRESENT = `attribute_exists(${TABLE.partitionKey})`;

/** The table key of an item (or of an index entry, which always carries it). */
export const tableKeyOf = (item: Readonly<Record<string, unknown>>): { PK: string; SK: string } => ({
  PK: String(item[TABLE.partitionKey]),
  SK: String(item[TABLE.sortKey]),
});

/** What every record item starts with: its key in its kind's partition, its kind and its business. */
export const recordBase = (
  businessId: string,
  kind: RecordKind,
  id: string,
): Record<string, unknown> & { PK: string; SK: string } => ({
  ...keys.record(businessId, kind, id),
  kind,
  business_id: businessId,
});

/** The Query of one pattern's whole partition, or of its sort keys that begin with `sortPrefix`. */
export function partitionQuery<P>(
  p: AccessPattern<P>,
  params: P,
  sortPrefix?: string,
): {
  IndexName?: string;
  KeyConditionExpression: string;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const { pk, sk } = keyNames(p.index);
  return {
    ...(p.index === 'table' ? {} : { IndexName: p.index }),
    KeyConditionExpression: sortPrefix === undefined ? `${pk} = :p` : `${pk} = :p AND begins_with(${sk}, :s)`,
    ExpressionAttributeValues: { ':p': p.partition(params), ...(sortPrefix === undefined ? {} : { ':s': sortPrefix }) },
  };
}

/** One entity: its name, and its access patterns by name (the key table lists them in this order). */
export interface Entity {
  readonly entity: string;
  readonly patterns: Readonly<Record<string, AccessPattern<never>>>;
}

/**
 * How an entity stores one attribute: a string; a string or null (absent =
 * null); a boolean (absent = false); a map (absent = empty); a write counter
 * (absent = 1).
 */
export type AttributeKind = 'string' | 'string?' | 'boolean' | 'map' | 'version';

type TypeOf<K extends AttributeKind> = K extends 'string'
  ? string
  : K extends 'string?'
    ? string | null
    : K extends 'boolean'
      ? boolean
      : K extends 'map'
        ? Readonly<Record<string, unknown>>
        : number;

/** The item type an attribute declaration describes. */
export type AttributesOf<A extends Readonly<Record<string, AttributeKind>>> = { readonly [N in keyof A]: TypeOf<A[N]> };

const readAs = (kind: AttributeKind, value: unknown): unknown => {
  switch (kind) {
    case 'string':
      return String(value);
    case 'string?':
      return typeof value === 'string' ? value : null;
    case 'boolean':
      return value === true;
    case 'map':
      return (value as Record<string, unknown> | undefined) ?? {};
    case 'version':
      return Number(value ?? 1);
  }
};

/** The declared attributes of a stored item (keys and bookkeeping dropped). */
export function readAttributes<A extends Readonly<Record<string, AttributeKind>>>(
  attributes: A,
  item: Readonly<Record<string, unknown>>,
): AttributesOf<A> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, kind]) => [name, readAs(kind, item[name])]),
  ) as AttributesOf<A>;
}

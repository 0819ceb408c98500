import type { ListFilterRule } from '../../schemas/application-filters';
import { TABLE } from '../dynamo/table-definition';
import { keys, type Key } from '../dynamo/keys';
import {
  keyNames,
  partitionOf,
  tableKeyOf,
  type AccessPattern,
  type Partition,
  type PatternIndex,
} from '../entities/entity';
import { batchGet, query, queryAll, type Item } from '../dynamo/table-io';

/** A range of positions of a dense list: from `from` on (to `to` if given), at most `limit` entries. */
export interface PositionRange {
  readonly from: number;
  readonly to?: number;
  readonly limit?: number;
}

/** A FilterExpression with its names and values (placeholders must not be `#pk`, `#sk`, `:p`, `:a`, `:b`). */
export interface QueryFilter {
  readonly expression: string;
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/** The FilterExpression of the filters given (undefined values ignored); undefined when none is. */
export function filterOf<F extends string>(
  rules: Readonly<Record<F, ListFilterRule>>,
  filter: Readonly<Partial<Record<F, string>>>,
): QueryFilter | undefined {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  (Object.keys(rules) as F[]).forEach((name, i) => {
    const value = filter[name];
    if (value === undefined) return;
    const rule = rules[name];
    names[`#f${i}`] = rule.field;
    if (rule.absentAs !== undefined && value === rule.absentAs) {
      parts.push(`(attribute_not_exists(#f${i}) OR attribute_type(#f${i}, :f${i}))`);
      values[`:f${i}`] = 'NULL';
    } else {
      parts.push(`#f${i} ${rule.match === 'since' ? '>=' : '='} :f${i}`);
      values[`:f${i}`] = value;
    }
  });
  return parts.length ? { expression: parts.join(' AND '), names, values } : undefined;
}

/**
 * The index entries of an access pattern's partition in a range of
 * positions: one Query whose key range is the page, so page 1000 costs what
 * page 1 costs (erased entries are not in the index). The list indexes
 * project keys (and a few attributes no name or email change touches), so an
 * update does not rewrite them: `recordsOf` reads the records. A range
 * without `to` or `limit`, or with a filter (DynamoDB may stop a response
 * page short of the range's matches), is read to its end.
 */
export async function readEntries(where: Partition, range: PositionRange, filter?: QueryFilter): Promise<Item[]> {
  const { pk, sk } = keyNames(where.index);
  const input = {
    ...(where.index === 'table' ? {} : { IndexName: where.index }),
    KeyConditionExpression: range.to === undefined ? '#pk = :p AND #sk >= :a' : '#pk = :p AND #sk BETWEEN :a AND :b',
    ...(filter?.expression ? { FilterExpression: filter.expression } : {}),
    ExpressionAttributeNames: { '#pk': pk, '#sk': sk, ...filter?.names },
    ExpressionAttributeValues: {
      ':p': where.partition,
      ':a': range.from,
      ...(range.to === undefined ? {} : { ':b': range.to }),
      ...filter?.values,
    },
    ...(range.limit === undefined ? {} : { Limit: range.limit }),
    ReturnConsumedCapacity: 'TOTAL' as const,
  };
  const toTheEnd = Boolean(filter?.expression) || (range.to === undefined && range.limit === undefined);
  return toTheEnd ? queryAll(input) : query(input);
}

/**
 * The records behind index entries: one BatchGetItem by key, in the entries'
 * order (`read`: consistent by default; application pages read eventually
 * consistent, docs/pagination.md "Cost per million requests"). An entry whose
 * record is gone (erased between the Query and this read), or no longer sits
 * where the entry says (it moved in the order of writes or changed status
 * since; on AWS the index also lags), is left out like a hole.
 */
export async function recordsOf(
  index: PatternIndex,
  entries: readonly Item[],
  read: (keys: readonly Key[]) => Promise<(Item | undefined)[]> = batchGet,
): Promise<Item[]> {
  if (entries.length === 0) return [];
  const { pk, sk } = keyNames(index);
  const records = await read(entries.map(tableKeyOf));
  // Its keys in this index and what the index projects (src/data/dynamo/table-definition.ts): all of them scalars.
  const compared = [pk, sk, ...(TABLE.indexes.find((i) => i.name === index)?.include ?? [])];
  return records.filter(
    (record, i): record is Item =>
      record !== undefined && compared.every((a) => !(a in entries[i]!) || record[a] === entries[i]![a]),
  );
}

/** The records at a range of positions of a pattern's list: its entries, then their records by key (2 calls). */
export async function readPositions<P>(
  pattern: AccessPattern<P>,
  params: P,
  range: PositionRange,
  filter?: QueryFilter,
): Promise<Item[]> {
  return recordsOf(pattern.index, await readEntries(partitionOf(pattern, params), range, filter));
}

/** Current length of a list (its dense counter); 0 when nothing was ever added. */
export const counterValue = (item: Item | undefined): number => Number(item?.n ?? 0);

/** Reads counters together with any other independent items in one round trip. */
export async function readWith(
  businessId: string,
  counterNames: readonly string[],
  others: Parameters<typeof batchGet>[0] = [],
) {
  const items = await batchGet([...others, ...counterNames.map((c) => keys.counter(businessId, c))]);
  return {
    others: items.slice(0, others.length),
    counters: items.slice(others.length).map(counterValue),
  };
}

import { keys } from './keys';
import { keyNames, type AccessPattern } from './entities/entity';
import { batchGet, query, queryAll, type Item } from './table-io';

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

/**
 * The entries of an access pattern's partition in a range of positions: one
 * Query whose key range is the page, so page 1000 costs what page 1 costs
 * (erased entries are not in the index). A range without `to` or `limit`,
 * or with a filter (DynamoDB may stop a response page short of the range's
 * matches), is read to its end.
 */
export async function readPositions<P>(
  pattern: AccessPattern<P>,
  params: P,
  range: PositionRange,
  filter?: QueryFilter,
): Promise<Item[]> {
  const { pk, sk } = keyNames(pattern.index);
  const input = {
    ...(pattern.index === 'table' ? {} : { IndexName: pattern.index }),
    KeyConditionExpression: range.to === undefined ? '#pk = :p AND #sk >= :a' : '#pk = :p AND #sk BETWEEN :a AND :b',
    ...(filter?.expression ? { FilterExpression: filter.expression } : {}),
    ExpressionAttributeNames: { '#pk': pk, '#sk': sk, ...filter?.names },
    ExpressionAttributeValues: {
      ':p': pattern.partition(params),
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

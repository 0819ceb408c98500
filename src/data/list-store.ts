import type { IndexName } from './table-definition';
import { TABLE } from './table-definition';
import { keys } from './keys';
import { batchGet, query, type Item } from './table-io';

type SeqIndex = 'list' | 'sublist' | 'statuslist';

const indexKeys = (index: SeqIndex): { pk: string; sk: string } => {
  const def = TABLE.indexes.find((i) => i.name === (index as IndexName));
  if (!def) throw new Error(`unknown index ${index}`);
  return { pk: def.partitionKey, sk: def.sortKey.name };
};

/**
 * The items at positions first..last of a dense list: one Query whose key
 * range is the page, so page 1000 costs what page 1 costs.
 */
export async function readPositions(index: SeqIndex, partition: string, first: number, last: number): Promise<Item[]> {
  const { pk, sk } = indexKeys(index);
  return query({
    IndexName: index,
    KeyConditionExpression: '#pk = :p AND #sk BETWEEN :a AND :b',
    ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
    ExpressionAttributeValues: { ':p': partition, ':a': first, ':b': last },
  });
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

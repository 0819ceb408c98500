import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { inflateRawSync } from 'node:zlib';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';

/** Every item of the table; binary attributes (feed entries' deflated `data`) inflated so their text can be searched. */
export async function scanAll(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    items.push(
      ...(out.Items ?? []).map((item) =>
        Object.fromEntries(
          Object.entries(item).map(([k, v]) => [k, v instanceof Uint8Array ? inflateRawSync(v).toString('utf8') : v]),
        ),
      ),
    );
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Every item of the named businesses but their tokens (records, counters, maps, feed, subscriptions), in key order,
 * from one Scan: what "nothing changed" compares. Rate counts (`RATE#...`) are outside the business's partitions.
 */
export async function businessItems(...businessIds: string[]): Promise<Record<string, unknown>[]> {
  const own = (pk: string): boolean =>
    businessIds.some((businessId) => pk === `B#${businessId}` || pk.startsWith(`B#${businessId}#`));
  return (await scanAll())
    .filter((i) => own(String(i.PK)) && !String(i.PK).endsWith('#tokens'))
    .sort((a, b) => `${String(a.PK)} ${String(a.SK)}`.localeCompare(`${String(b.PK)} ${String(b.SK)}`));
}

/**
 * DynamoDB write units derived from what is sent (scripts/bench-import.ts):
 * DynamoDB Local's ConsumedCapacity counts a TransactWriteItems as if it
 * wrote one item (10 Puts of 10 bytes: 2 units, as one), so it cannot compare
 * a chunk of rows in one transaction with one transaction per record.
 *
 * The rules of DynamoDB's on-demand pricing, per written item: ceil(size /
 * 1 KB) units, twice that inside a transaction (ConditionCheck items too),
 * plus one unit per index entry the item writes (an index whose key
 * attributes a Put carries or an Update sets; the indexes project keys and a
 * few small attributes: under 1 KB). Item sizes by DynamoDB's rules from the
 * marshalled request: a Put's item; an Update's key and the values it sets
 * (here counters and small attributes: the item after it is not read back).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { db } from '../../src/data/client';
import { TABLE } from '../../src/data/table-definition';

type Wire = Record<string, AttributeValue>;

/** DynamoDB's size of an attribute value (bytes). */
function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (value.NS) return value.NS.reduce((n, s) => n + s.length / 2 + 1, 0);
  if (value.L) return 3 + value.L.reduce((n, v) => n + 1 + valueSize(v), 0);
  if (value.M) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  return 0;
}

export const itemSize = (item: Wire): number =>
  Object.entries(item).reduce((n, [name, value]) => n + Buffer.byteLength(name) + valueSize(value), 0);

const kbUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

/** Index entries written by an item carrying (or an Update setting) these attribute names. */
const indexWrites = (names: ReadonlySet<string>): number =>
  TABLE.indexes.filter((index) => names.has(index.partitionKey) && names.has(index.sortKey.name)).length;

interface WriteRequest {
  Put?: { Item: Wire };
  Update?: { Key: Wire; ExpressionAttributeValues?: Wire; ExpressionAttributeNames?: Record<string, string> };
  Delete?: { Key: Wire };
  ConditionCheck?: { Key: Wire };
}

/** Units of one written item (`factor` 2 inside a transaction). */
function unitsOf(write: WriteRequest, factor: number): number {
  if (write.Put) {
    const names = new Set(Object.keys(write.Put.Item));
    return factor * kbUnits(itemSize(write.Put.Item)) + indexWrites(names);
  }
  if (write.Update) {
    const size = itemSize(write.Update.Key) + itemSize(write.Update.ExpressionAttributeValues ?? {});
    const names = new Set(Object.values(write.Update.ExpressionAttributeNames ?? {}));
    return factor * kbUnits(size) + indexWrites(names);
  }
  if (write.Delete) return factor;
  if (write.ConditionCheck) return factor;
  return 0;
}

/** Write units of one call (marshalled input), 0 for reads. */
export function writeUnitsOf(command: string, input: Record<string, unknown>): number {
  switch (command) {
    case 'PutItem':
      return unitsOf({ Put: { Item: input.Item as Wire } }, 1);
    case 'UpdateItem':
      return unitsOf({ Update: input as unknown as NonNullable<WriteRequest['Update']> }, 1);
    case 'DeleteItem':
      return 1;
    case 'TransactWriteItems':
      return ((input.TransactItems as WriteRequest[] | undefined) ?? []).reduce((n, w) => n + unitsOf(w, 2), 0);
    case 'BatchWriteItem':
      return Object.values(
        (input.RequestItems as Record<string, { PutRequest?: { Item: Wire } }[]> | undefined) ?? {},
      ).reduce(
        (n, requests) =>
          n + requests.reduce((m, r) => m + (r.PutRequest ? unitsOf({ Put: { Item: r.PutRequest.Item } }, 1) : 1), 0),
        0,
      );
    default:
      return 0;
  }
}

/** Derived write units of every call this process's client sends from now on (call after resetClient). */
export const derivedWrites = { units: 0, transactions: 0, transactionItems: 0, transactionMs: [] as number[] };

export function countDerivedWriteUnits(): void {
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const command = (context.commandName ?? '').replace(/Command$/, '');
      derivedWrites.units += writeUnitsOf(command, input);
      if (command !== 'TransactWriteItems') return next(args);
      derivedWrites.transactions += 1;
      derivedWrites.transactionItems += (input.TransactItems as unknown[] | undefined)?.length ?? 0;
      const t0 = performance.now();
      try {
        return await next(args);
      } finally {
        derivedWrites.transactionMs.push(performance.now() - t0);
      }
    },
    { step: 'build', name: 'benchDerivedWriteUnits' },
  );
}

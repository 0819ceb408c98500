/**
 * DynamoDB capacity units of writes, by DynamoDB's rules rather than as
 * DynamoDB Local reports them: Local's ConsumedCapacity for a
 * TransactWriteItems counts the units of one item whatever the number of
 * items (1, 2 or 10 Puts of 1.5 KB: 4 units), so every multi-item
 * transaction is undercounted.
 *
 * The rules followed (Amazon DynamoDB Developer Guide, "Capacity unit
 * consumption for write operations",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#write-operation-consumption,
 * and "Capacity management for transactions",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling):
 * - a written item costs ceil(size / 1 KB) write units, its size being the
 *   larger of the item before and after the write (Put over an existing
 *   item, Update), the deleted item for a Delete;
 * - inside a transaction every item is prepared and committed: twice that;
 * - a ConditionCheck item is a transactional read: 2 read units per 4 KB;
 * - an index entry the write puts, deletes or rewrites (a projected
 *   attribute changed) costs ceil(entry size / 1 KB); a key change is a
 *   delete and a put. Index entries are kept up after the commit, outside
 *   the transaction, so they are not doubled.
 * Sizes by DynamoDB's rules from the marshalled items (names + values).
 *
 * Two sources of the items' images: what the request sends
 * (`writeUnitsOf`, bench-import: a Put's item; an Update's key and set
 * values, a lower bound since the item after it is not read), or the items
 * themselves read around the call (`countTrueUnits`, bench:cost and the
 * capacity probe: consistent GetItems on a client of their own, never in the
 * service).
 */
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { db, isBesideRequest, localEndpointConfig } from '../../src/data/dynamo/client';
import { dynamodbEndpoint } from '../../src/data/config';
import { TABLE, type IndexDefinition } from '../../src/data/dynamo/table-definition';

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

/** Units of writes and reads (ConditionCheck items). */
export interface Units {
  write: number;
  indexWrite: number;
  read: number;
}

/** One item a call writes or checks, with its images (undefined = absent before / after, or not known). */
export interface ItemWrite {
  readonly kind: 'put' | 'update' | 'delete' | 'check';
  readonly before?: Wire;
  readonly after?: Wire;
}

type Indexes = readonly IndexDefinition[];

/** An index's entry of an item (its keys, the table's keys and the projected attributes; ALL: the item), or none. */
function indexEntry(index: IndexDefinition, item: Wire | undefined): Wire | undefined {
  if (!item || !item[index.partitionKey] || !item[index.sortKey.name]) return undefined;
  if (index.include === undefined) return item;
  const names = [TABLE.partitionKey, TABLE.sortKey, index.partitionKey, index.sortKey.name, ...index.include];
  return Object.fromEntries(names.filter((n) => item[n] !== undefined).map((n) => [n, item[n]!]));
}

const same = (a: Wire, b: Wire): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Index write units of an item going from `before` to `after`. */
function indexUnits(before: Wire | undefined, after: Wire | undefined, indexes: Indexes): number {
  let units = 0;
  for (const index of indexes) {
    const old = indexEntry(index, before);
    const now = indexEntry(index, after);
    if (old && now) {
      const keyOf = (e: Wire) => JSON.stringify([e[index.partitionKey], e[index.sortKey.name]]);
      if (keyOf(old) !== keyOf(now)) units += kbUnits(itemSize(old)) + kbUnits(itemSize(now));
      else if (!same(old, now)) units += kbUnits(itemSize(now));
    } else if (old ?? now) units += kbUnits(itemSize((old ?? now)!));
  }
  return units;
}

/** Units of one item written (`transactional`: inside a TransactWriteItems) on a table with these indexes. */
export function itemUnits(item: ItemWrite, transactional: boolean, indexes: Indexes = TABLE.indexes): Units {
  const factor = transactional ? 2 : 1;
  const size = Math.max(item.before ? itemSize(item.before) : 0, item.after ? itemSize(item.after) : 0);
  if (item.kind === 'check') return { write: 0, indexWrite: 0, read: 2 * Math.max(1, Math.ceil(size / 4096)) };
  const after = item.kind === 'delete' ? undefined : item.after;
  return { write: factor * kbUnits(size), indexWrite: indexUnits(item.before, after, indexes), read: 0 };
}

/** Units of one call's items. */
export function unitsOfItems(
  items: readonly ItemWrite[],
  transactional: boolean,
  indexes: Indexes = TABLE.indexes,
): Units {
  const sum: Units = { write: 0, indexWrite: 0, read: 0 };
  for (const item of items) {
    const u = itemUnits(item, transactional, indexes);
    sum.write += u.write;
    sum.indexWrite += u.indexWrite;
    sum.read += u.read;
  }
  return sum;
}

interface Target {
  readonly kind: ItemWrite['kind'];
  readonly table: string;
  readonly key: Wire;
  /** What the request itself sends of the item after the write (Put: all of it). */
  readonly sent: Wire;
}

type Marshalled = {
  TableName?: string;
  Key?: Wire;
  Item?: Wire;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Wire;
};

/**
 * What an Update sends of its item: the key and each value under the name of the attribute it goes to (the
 * first name of a path; `#a = :v`, `#a = if_not_exists(#a, :v)`, `ADD #a :v`), a value under no name kept
 * under its placeholder (src/data/dynamo/update-expression.ts writes these forms).
 */
function sentByUpdate(m: Marshalled): Wire {
  const sent: Wire = { ...m.Key };
  const values = { ...m.ExpressionAttributeValues };
  const assignment = /(#\w+)(?:\.#\w+)*\s*=?\s*(?:if_not_exists\([^,]+,\s*)?(:\w+)/g;
  for (const [, name, value] of (m.UpdateExpression ?? '').matchAll(assignment)) {
    const attribute = m.ExpressionAttributeNames?.[name!];
    if (!attribute || !values[value!]) continue;
    sent[attribute] = values[value!]!;
    delete values[value!];
  }
  return { ...sent, ...values };
}

const keyOf = (item: Wire): Wire => ({
  [TABLE.partitionKey]: item[TABLE.partitionKey]!,
  [TABLE.sortKey]: item[TABLE.sortKey]!,
});

function target(kind: Target['kind'], m: Marshalled): Target {
  if (kind === 'put') return { kind, table: m.TableName ?? '', key: keyOf(m.Item ?? {}), sent: m.Item ?? {} };
  const key = m.Key ?? {};
  return {
    kind,
    table: m.TableName ?? '',
    key,
    sent: kind === 'update' ? sentByUpdate(m) : key,
  };
}

/** The items a write call (marshalled input) writes or checks; [] for reads. */
function targetsOf(command: string, input: Record<string, unknown>): Target[] {
  const m = input as Marshalled;
  switch (command) {
    case 'PutItem':
      return [target('put', m)];
    case 'UpdateItem':
      return [target('update', m)];
    case 'DeleteItem':
      return [target('delete', m)];
    case 'TransactWriteItems':
      return ((input.TransactItems as Record<string, Marshalled>[] | undefined) ?? []).map((w) =>
        w.Put
          ? target('put', w.Put)
          : w.Update
            ? target('update', w.Update)
            : w.Delete
              ? target('delete', w.Delete)
              : target('check', w.ConditionCheck ?? {}),
      );
    case 'BatchWriteItem':
      return Object.entries(
        (input.RequestItems as
          Record<string, { PutRequest?: { Item: Wire }; DeleteRequest?: { Key: Wire } }[]> | undefined) ?? {},
      ).flatMap(([table, requests]) =>
        requests.map((r) =>
          r.PutRequest
            ? target('put', { TableName: table, Item: r.PutRequest.Item })
            : target('delete', { TableName: table, Key: r.DeleteRequest?.Key }),
        ),
      );
    default:
      return [];
  }
}

/** Write units of one call sized from what it sends alone (no item before it known), 0 for reads. */
export function writeUnitsOf(command: string, input: Record<string, unknown>): number {
  const items = targetsOf(command, input).map((t) => ({
    kind: t.kind,
    after: t.kind === 'delete' ? undefined : t.sent,
    before: t.kind === 'delete' ? t.sent : undefined,
  }));
  const u = unitsOfItems(items, command === 'TransactWriteItems');
  return u.write + u.indexWrite;
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

/** Units by DynamoDB's rules of every successful write since the last reset (countTrueUnits). */
export const trueUnits = {
  units: { write: 0, indexWrite: 0, read: 0 } as Units,
  /**
   * Write units (table + indexes) of calls beside the request's own (rate counts: at most one UpdateItem
   * per counter and second and instance, whatever the requests), kept out of `units`.
   */
  besideWrite: 0,
  /** Node CPU the counting itself used (its reads), for benchmarks to take off what they measure. */
  cpuMs: 0,
  reset(): void {
    this.units = { write: 0, indexWrite: 0, read: 0 };
    this.besideWrite = 0;
    this.cpuMs = 0;
  },
};

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

const counted = new WeakSet<object>();

/**
 * From now on, every write call of this process's client (db(); call after
 * resetClient) adds its units by DynamoDB's rules to trueUnits: each item it
 * writes or checks is read (consistent GetItem, on a client of its own that
 * nothing else counts) before the call, and an Update's item again after it.
 * A failed call adds nothing. `indexes`: the table's, when it is not as
 * defined (bench:cost's ALL projection). Benchmarks and the capacity probe only.
 */
export function countTrueUnits(indexes: Indexes = TABLE.indexes): void {
  const client = db();
  if (counted.has(client)) return;
  counted.add(client);
  const endpoint = dynamodbEndpoint();
  const reader = new DynamoDBClient(endpoint ? localEndpointConfig(endpoint) : {});
  const read = async (t: Target): Promise<Wire | undefined> =>
    (await reader.send(new GetItemCommand({ TableName: t.table, Key: t.key, ConsistentRead: true }))).Item;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? '').replace(/Command$/, '');
      const targets = targetsOf(command, args.input as Record<string, unknown>);
      if (targets.length === 0) return next(args);
      let cpu = process.cpuUsage();
      const before = await Promise.all(targets.map(read));
      trueUnits.cpuMs += cpuMsSince(cpu);
      const result = await next(args);
      cpu = process.cpuUsage();
      const after = await Promise.all(
        targets.map((t) =>
          t.kind === 'update' ? read(t) : t.kind === 'put' ? Promise.resolve(t.sent) : Promise.resolve(undefined),
        ),
      );
      const u = unitsOfItems(
        targets.map((t, i) => ({ kind: t.kind, before: before[i], after: t.kind === 'check' ? before[i] : after[i] })),
        command === 'TransactWriteItems',
        indexes,
      );
      if (isBesideRequest()) trueUnits.besideWrite += u.write + u.indexWrite;
      else {
        trueUnits.units.write += u.write;
        trueUnits.units.indexWrite += u.indexWrite;
        trueUnits.units.read += u.read;
      }
      trueUnits.cpuMs += cpuMsSince(cpu);
      return result;
    },
    { step: 'build', name: 'benchTrueUnits' },
  );
}

/**
 * Capacity units by DynamoDB's rules (scripts/lib/write-units.ts), the
 * figures bench:cost and the capacity budgets rest on: every item of a
 * transaction counts, an Update by the larger of its item before and after.
 */
import fc from 'fast-check';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { itemSize, unitsOfItems, writeUnitsOf } from '../../scripts/lib/write-units';

type Wire = Record<string, AttributeValue>;
const item = (sk: string, bytes: number, extra: Wire = {}): Wire => ({
  PK: { S: 'B#demo#application' },
  SK: { S: sk },
  ...extra,
  text: {
    S: 'x'.repeat(Math.max(0, bytes - itemSize({ PK: { S: 'B#demo#application' }, SK: { S: sk }, ...extra }) - 4)),
  },
});

it('counts every Put of a transaction, 2 units per KB each (Local reports one item)', () => {
  const puts = Array.from({ length: 10 }, (_, i) => ({ Put: { TableName: 't', Item: item(`r${i}`, 1536) } }));
  expect(writeUnitsOf('TransactWriteItems', { TransactItems: puts })).toBe(40);
  expect(writeUnitsOf('TransactWriteItems', { TransactItems: puts.slice(0, 1) })).toBe(4);
  expect(writeUnitsOf('PutItem', puts[0]!.Put)).toBe(2);
});

it('sizes an Update by the larger of its item before and after the write', () => {
  const big = item('r', 1536);
  const small = item('r', 300);
  expect(unitsOfItems([{ kind: 'update', before: big, after: small }], true).write).toBe(4);
  expect(unitsOfItems([{ kind: 'update', before: small, after: big }], false).write).toBe(2);
  expect(unitsOfItems([{ kind: 'delete', before: big }], true)).toEqual({ write: 4, indexWrite: 0, read: 0 });
});

it('counts a ConditionCheck as a transactional read, no write', () => {
  expect(unitsOfItems([{ kind: 'check', before: item('r', 5000), after: item('r', 5000) }], true)).toEqual({
    write: 0,
    indexWrite: 0,
    read: 4,
  });
});

it('writes an index entry when it appears, moves (delete + put) or its projection changes', () => {
  const listed = (sk: number, status: string): Wire => ({
    UpdatedPK: { S: 'B#demo#updated' },
    UpdatedSK: { N: String(sk) },
    application_status_id: { S: status },
  });
  const before = item('r', 500, listed(1, 'new'));
  const unit = (after: Wire) => unitsOfItems([{ kind: 'update', before, after }], true).indexWrite;
  expect(unitsOfItems([{ kind: 'put', after: before }], true).indexWrite).toBe(1);
  expect(unit(item('r', 600, listed(1, 'new')))).toBe(0);
  expect(unit(item('r', 500, listed(1, 'hired')))).toBe(1);
  expect(unit(item('r', 500, listed(2, 'new')))).toBe(2);
  expect(unitsOfItems([{ kind: 'delete', before }], false).indexWrite).toBe(1);
});

it('never counts fewer units for a transaction than for its items written one by one', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 20 }), (sizes) => {
      const items = sizes.map((b, i) => ({ kind: 'put' as const, after: item(`r${i}`, b) }));
      const alone = unitsOfItems(items, false);
      const together = unitsOfItems(items, true);
      expect(together.write).toBe(2 * alone.write);
      expect(alone.write).toBeGreaterThanOrEqual(items.length);
    }),
  );
});

it('sizes an Update from what it sends when its item is not read: its index entries by the names it sets', () => {
  const update = {
    TableName: 't',
    Key: { PK: { S: 'B#demo#application' }, SK: { S: 'r' } },
    UpdateExpression: 'SET #u0 = :u0, #u1 = if_not_exists(#u1, :u1) ADD #u2 :u2',
    ExpressionAttributeNames: { '#u0': 'UpdatedPK', '#u1': 'UpdatedSK', '#u2': 'version' },
    ExpressionAttributeValues: { ':u0': { S: 'B#demo#updated' }, ':u1': { N: '7' }, ':u2': { N: '1' } },
  };
  expect(writeUnitsOf('UpdateItem', update)).toBe(1 + 1);
  expect(writeUnitsOf('TransactWriteItems', { TransactItems: [{ Update: update }] })).toBe(2 + 1);
});

it('rewrites an ALL-projection entry on any change of its item', () => {
  const all = [{ name: 'all', partitionKey: 'ListPK', sortKey: { name: 'ListSK', type: 'N' as const } }];
  const listed = { ListPK: { S: 'B#demo#list' }, ListSK: { N: '1' } };
  const units = (after: Wire) =>
    unitsOfItems([{ kind: 'update', before: item('r', 500, listed), after }], true, all).indexWrite;
  expect(units(item('r', 700, listed))).toBe(1);
  expect(units(item('r', 500, listed))).toBe(0);
});

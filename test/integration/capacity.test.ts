/**
 * Capacity units per operation (issue 19, item 5): every operation of
 * scripts/lib/capacity-probe.ts within its budget: reads as DynamoDB Local
 * reports them with ReturnConsumedCapacity INDEXES, writes by DynamoDB's rules
 * (scripts/lib/write-units.ts).
 */
import demo from '../../fixtures/demo.json';
import { CAPACITY_BUDGETS, measureOperations, type OperationUnits } from '../../scripts/lib/capacity-probe';
import { startApi, type TestApi } from '../support/harness';

let api: TestApi;
let rows: OperationUnits[];

beforeAll(async () => {
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  api = await startApi();
  const token = await api.provision(demo);
  rows = await measureOperations((method, path, body) => api.request(method, path, { token, body }));
});
afterAll(async () => {
  delete process.env.DYNAMODB_CAPACITY_DETAIL;
  await api?.close();
});

it('measures every budgeted operation', () => {
  expect(rows.map((r) => r.operation).sort()).toEqual(Object.keys(CAPACITY_BUDGETS).sort());
  // DynamoDB reported capacity for every write (a probe that measures nothing cannot pass).
  for (const r of rows.filter((row) => row.operation.startsWith('create'))) expect(r.write).toBeGreaterThan(0);
  // Every item of a transaction is counted: more than DynamoDB Local's one item for a create of ten.
  const create = rows.find((r) => r.operation === 'create application')!;
  expect(create.write + create.indexWrite).toBeGreaterThan(create.localWrite);
});

it.each(Object.entries(CAPACITY_BUDGETS))('%s stays within its budget', (operation, budget) => {
  const row = rows.find((r) => r.operation === operation)!;
  const over = (['read', 'write', 'indexWrite'] as const)
    .filter((unit) => row[unit] > budget[unit])
    .map((unit) => `${unit}: ${row[unit]} > ${budget[unit]}`);
  expect(over).toEqual([]);
});

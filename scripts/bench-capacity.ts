/**
 * `npm run bench` (second part): capacity units per API operation, from one
 * run against an in-memory DynamoDB Local (scripts/lib/capacity-probe.ts has
 * the operations and their budgets; the capacity test enforces them).
 */
import fixture from '../fixtures/demo.json';
import { formatUnits, measureOperations } from './lib/capacity-probe';
import { startBenchStack } from './lib/bench-stack';

async function main(): Promise<void> {
  process.env.DYNAMODB_CAPACITY_DETAIL = 'INDEXES';
  const stack = await startBenchStack('bench-capacity', fixture);
  try {
    const rows = await measureOperations(stack.send);
    console.log(
      '\nCapacity units per operation (reads as DynamoDB Local reports them with ReturnConsumedCapacity INDEXES, plus ConditionCheck reads; writes by DynamoDB rules, scripts/lib/write-units.ts)',
    );
    console.log(formatUnits(rows));
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

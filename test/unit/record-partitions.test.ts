import { keys, lists, RECORD_KINDS, recordIdOf, type Key } from '../../src/data/dynamo/keys';
import { application } from '../../src/data/entities/application';
import { employee, employeeJob } from '../../src/data/entities/employee';
import { partitionOf } from '../../src/data/entities/entity';

/**
 * A business's records of one kind share the partition `B#<bid>#<kind>`
 * (src/data/dynamo/keys.ts, docs/architecture.md "Records of a kind share a
 * partition"): an export Queries it and renders every item as a record, so no
 * other item may ever be stored there, whatever the arguments of its builder.
 */
const BUSINESS_ID = /^[A-Za-z0-9._~-]+$/; // the fixture schema's business id
const recordPartition = (pk: string): boolean => {
  const match = /^B#([^#]*)#(.*)$/.exec(pk);
  return match !== null && BUSINESS_ID.test(match[1]!) && (RECORD_KINDS as readonly string[]).includes(match[2]!);
};

/** Arguments a builder may be called with, record kinds and separators among them. */
const SAMPLES = ['b', '', '#', 'x#', ...RECORD_KINDS, ...RECORD_KINDS.map((k) => `${k}#1`)];
const argumentLists = (arity: number): string[][] =>
  arity === 0 ? [[]] : argumentLists(arity - 1).flatMap((rest) => SAMPLES.map((s) => [s, ...rest]));

const others = Object.entries(keys).filter(([name]) => name !== 'record' && name !== 'records');

describe('record partitions hold records of one kind and nothing else', () => {
  test('a record key: the kind partition, the id as sort key', () => {
    const key = keys.record('acme', 'application', 'a-1');
    expect(key).toEqual({ PK: keys.records('acme', 'application'), SK: 'a-1' });
    expect(recordPartition(key.PK)).toBe(true);
    expect(recordIdOf(key)).toBe('a-1');
    expect(keys.records('acme', 'employee')).not.toBe(keys.records('acme', 'employee_job'));
  });

  test.each(others)('keys.%s never builds a key in a record partition', (_name, build) => {
    const fn = build as (...args: string[]) => Key | string;
    const calls = argumentLists(fn.length);
    // One assertion over every argument list (up to 8,000): an expect per list cost more than the builders.
    const inRecordPartition = calls.filter((args) => {
      const built = fn(...args);
      return recordPartition(typeof built === 'string' ? built : built.PK);
    });
    expect(inRecordPartition).toEqual([]);
    expect(calls).toHaveLength(SAMPLES.length ** fn.length);
  });

  test('the exported types read their own record partition, on the table', () => {
    for (const [entity, kind] of [
      [application, 'application'],
      [employee, 'employee'],
      [employeeJob, 'employee_job'],
    ] as const) {
      expect(partitionOf(entity.patterns.byId, { businessId: 'acme' })).toEqual({
        index: 'table',
        partition: keys.records('acme', kind),
      });
      expect(entity.key('acme', 'id-1').PK).toBe(keys.records('acme', kind));
    }
  });

  test('list index partitions are other attributes, but never spell a record partition either', () => {
    for (const kind of RECORD_KINDS) expect(recordPartition(lists.all('acme', kind))).toBe(false);
    expect(recordPartition(lists.jobsOfEmployee('acme', 'employee'))).toBe(false);
  });
});

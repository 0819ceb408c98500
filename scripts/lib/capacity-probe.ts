/**
 * Capacity units per API operation (production costs): each
 * operation is sent once through the local server. Reads are what DynamoDB
 * Local reports (ReturnConsumedCapacity INDEXES, DYNAMODB_CAPACITY_DETAIL)
 * plus the transactional reads of ConditionCheck items; writes are counted by
 * DynamoDB's rules from the items written (scripts/lib/write-units.ts: Local
 * counts a transaction as one item), Local's figure kept beside. The
 * capacity test (test/integration/capacity.test.ts) holds every operation to
 * its budget; `npm run bench` prints the same table.
 */
import { dynamoStats } from '../../src/data/dynamo/client';
import { API_PREFIX } from '../../src/domain/api-paths';
import { countTrueUnits, trueUnits } from './write-units';

export interface OperationUnits {
  readonly operation: string;
  readonly calls: number;
  readonly read: number;
  readonly write: number;
  readonly indexWrite: number;
  /** Write units (table + indexes) as DynamoDB Local reports them, for comparison. */
  readonly localWrite: number;
}

/**
 * Budgets in capacity units by DynamoDB's rules (scripts/lib/write-units.ts:
 * in a transaction every item costs 2 units per KB, its index entries 1 each;
 * DynamoDB Local reported a transaction as one item, so the budgets of every
 * create and update rose to what DynamoDB bills). They hold today's figures,
 * so a rise fails the capacity test. The list indexes project keys and a few
 * attributes no name or email change touches (src/data/dynamo/table-definition.ts),
 * so such an update writes index units only for the application's move in
 * the order of writes (updatedlist-keys: delete + put of a small entry) and
 * none for an employee. A status change also moves the application between
 * status lists and rewrites its job list entry (which projects the status).
 * Pages read their records by key (one read unit each, consistent).
 * Every write also reads its change-feed lane counter (+1 read unit when the
 * lane already has one; which lane depends on the random id) and writes the
 * counter and one deflated entry (docs/change-feed.md) in its transaction:
 * 2 + 2 table units, never index units.
 */
export const CAPACITY_BUDGETS: Readonly<Record<string, { read: number; write: number; indexWrite: number }>> = {
  // List summary + map, record, lane counter, feed entry: 5 items x 2, and the reservation of its position beside
  // the read (1: one small item, no transaction); 1 list entry.
  'create employee': { read: 3, write: 11, indexWrite: 1 },
  'get employee': { read: 3, write: 0, indexWrite: 0 },
  // Record, lane counter and feed entry: 3 items x 2 (Local reported 2, one item).
  'update employee (name)': { read: 5, write: 6, indexWrite: 0 },
  'update employee (email)': { read: 5, write: 6, indexWrite: 0 },
  // List summary + map, the job, its employee's summary, lane counter, 2 feed entries: 7 x 2, and the reservation
  // (1); 2 list entries and the job's entries under its first and last day (effective dates, docs/decisions/028).
  'create employee job': { read: 5, write: 15, indexWrite: 4 },
  // The record (1-2 KB: 4), 3 lists' counter + map, lane counter, feed entry (8 x 2) and the reservation of
  // positions beside the read (1: one small item, no transaction); 4 list entries (Local reported 7 + 8).
  'create application': { read: 3, write: 21, indexWrite: 4 },
  'get application': { read: 3, write: 0, indexWrite: 0 },
  // The record (4), the order of writes' summary shard, the map shards of its new place and of its old one (a hole;
  // both positions rarely share a shard), lane counter, feed entry (5 x 2) and the reservation of its place in that
  // order (1); its updatedlist-keys entry moves: delete + put, 2 (Local reported 7 + 4).
  'update application (name)': { read: 5, write: 15, indexWrite: 2 },
  'update application (email)': { read: 5, write: 15, indexWrite: 2 },
  // As a name change plus 2 more lists' counter + map (4 x 2); the moves in the order of writes and between
  // status lists (2 + 2) and the job list entry rewritten (1) (Local reported 7 + 10).
  'update application (status)': { read: 5, write: 23, indexWrite: 5 },
  // config (1), the Query of the summary's base and shards (1), the Query of the map shards of a superblock short
  // of 512 live positions (1), the Query of key-only entries, 1 per record read by key
  'list applications, page 1': { read: 5, write: 0, indexWrite: 0 },
  'change feed, first page': { read: 16, write: 0, indexWrite: 0 },
};

type Send = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** An application with a few hundred bytes of free text, as career pages send them. */
const APPLICANT = {
  accept_terms_and_conditions: true,
  first_name: 'Lena',
  last_name: 'Huber',
  email: 'lena.huber@example.com',
  phone: '+39 0471 123456',
};

/**
 * Sends every operation once for a business imported from fixtures/demo.json
 * (its custom field 31 is a text field) and returns the units of each.
 */
export async function measureOperations(send: Send): Promise<OperationUnits[]> {
  const rows: OperationUnits[] = [];
  countTrueUnits();
  const run = async (operation: string, method: string, path: string, body?: unknown): Promise<unknown> => {
    dynamoStats.reset();
    trueUnits.reset();
    const res = await send(method, `${API_PREFIX}${path}`, body);
    if (res.status >= 300) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
    const local = dynamoStats.units;
    const { write, indexWrite, read } = trueUnits.units;
    rows.push({
      operation,
      calls: dynamoStats.calls,
      read: local.read + read,
      write,
      indexWrite,
      localWrite: local.write + local.indexWrite,
    });
    return res.body;
  };
  const employee = (await run('create employee', 'POST', '/employees', {
    first_name: 'Ana',
    last_name: 'Lopez',
    email: 'ana.lopez@example.com',
  })) as { id: string };
  await run('get employee', 'GET', `/employees/${employee.id}`);
  await run('update employee (name)', 'PUT', `/employees/${employee.id}`, { last_name: 'Lopes' });
  await run('update employee (email)', 'PUT', `/employees/${employee.id}`, { email: 'ana.lopes@example.com' });
  await run('create employee job', 'POST', '/employee_jobs', {
    employee_id: employee.id,
    name: 'Cook',
    from: '2026-01-01',
    to: '2026-12-31',
  });
  const application = (await run('create application', 'POST', '/applications', {
    ...APPLICANT,
    job_id: 'cook-2026',
    cf_31: 'I would love to work in your team. '.repeat(16),
  })) as { id: string };
  await run('get application', 'GET', `/applications/${application.id}`);
  await run('update application (name)', 'PUT', `/applications/${application.id}`, { first_name: 'Lea' });
  await run('update application (email)', 'PUT', `/applications/${application.id}`, { email: 'lea@example.com' });
  await run('update application (status)', 'PUT', `/applications/${application.id}`, {
    application_status_id: 'interview',
  });
  await run('list applications, page 1', 'GET', '/applications');
  await run('change feed, first page', 'GET', '/changes');
  return rows;
}

/** The table `npm run bench` prints. */
export function formatUnits(rows: readonly OperationUnits[]): string {
  const head = [
    'operation',
    'calls',
    'read units',
    'write units',
    'index write units',
    'index budget',
    'write units as Local reports (table + index)',
  ];
  const body = rows.map((r) => [
    r.operation,
    String(r.calls),
    String(r.read),
    String(r.write),
    String(r.indexWrite),
    String(CAPACITY_BUDGETS[r.operation]?.indexWrite ?? '-'),
    String(r.localWrite),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [head, ...body].map((cells) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

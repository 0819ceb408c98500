/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON the tests inspect freely */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import demo from '../../fixtures/demo.json';
import { API, startApi, type TestApi } from '../support/harness';
import { proxyTheApi, seededRandom } from '../support/dynamo-proxy';
import { db, dynamoStats } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { batchGet, getItem, keyId, queryPartition } from '../../src/data/dynamo/table-io';
import { transactWrite, type TxWrite } from '../../src/data/dynamo/transact-write';
import { withRetries } from '../../src/data/dynamo/with-retries';
import { heldKeys, releaseTurns, takeTurns, turnStats } from '../../scripts/lib/process-turns';
import { writeStats } from '../../src/data/dynamo/write-stats';
import { positionsOf } from '../../src/data/application-store';
import { application } from '../../src/data/entities/application';
import { employee, employeeJob } from '../../src/data/entities/employee';
import { partitionOf } from '../../src/data/entities/entity';
import { readEntries } from '../../src/data/lists/store';
import { EMPLOYEE_LANES, laneOf } from '../../src/domain/change-feed';
import { foldSummary, moveInSummary, placeAt, placeInList } from '../../src/data/lists/counter';
import { readSummary } from '../../src/data/lists/page';
import { reservePositions } from '../../src/data/lists/sequence';
import { keys, mapShardOfKey } from '../../src/data/dynamo/keys';
import { observedCalls } from '../../src/data/dynamo/call-scope';
import { until } from '../support/until';
import {
  countsOf,
  HOLE,
  MAP_SIZE,
  mapOf,
  mapValue,
  shardOf,
  summaryOf,
  type MapShard,
} from '../../src/domain/list-map';

/**
 * Contract §11 under contention: optimistic writers that lose a race re-run
 * from a fresh read and stay exact: dense positions, exact totals, every
 * committed write once in the change feed, also with ambiguous failures and
 * lagging indexes. Refusals are counted by the kind of item whose condition
 * failed (src/data/dynamo/write-stats.ts, printed by `npm run load`).
 */
jest.setTimeout(180_000);

let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(demo);
});
afterAll(() => api.close());

const counterKey = (name: string) => ({ PK: `B#contention#counter#${name}`, SK: 'C' });
const bump = (name: string, to: number) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(name),
      UpdateExpression: 'SET n = :n',
      ExpressionAttributeValues: { ':n': to },
    }),
  );
const step = (name: string, current: number): TxWrite => ({
  item: {
    Update: {
      Key: counterKey(name),
      UpdateExpression: 'SET n = :next',
      ConditionExpression: 'n = :current',
      ExpressionAttributeValues: { ':next': current + 1, ':current': current },
    },
  },
  onConditionFailed: () => 'retry',
});

describe('a refused transaction', () => {
  it('re-runs from a fresh read and lands on the current values; the refusal is counted per item kind', async () => {
    await bump('a', 5);
    await bump('b', 10);
    dynamoStats.reset();
    writeStats.reset();
    const seen: number[][] = [];
    await withRetries(async () => {
      const [a, b] = await batchGet([counterKey('a'), counterKey('b')]);
      seen.push([Number(a?.n), Number(b?.n)]);
      // Another writer moves both counters between this read and the first transaction.
      if (seen.length === 1) {
        await bump('a', 6);
        await bump('b', 12);
      }
      await transactWrite([step('a', Number(a?.n)), step('b', Number(b?.n))]);
    });
    expect(seen).toEqual([
      [5, 10],
      [6, 12],
    ]);
    expect((await getItem(counterKey('a')))?.n).toBe(7);
    expect((await getItem(counterKey('b')))?.n).toBe(13);
    expect(dynamoStats.byCommand.BatchGetItemCommand).toBe(2);
    expect(writeStats.transactions).toBe(2);
    expect(writeStats.retries).toBe(1);
    expect(writeStats.attempts).toEqual({ 2: 1 });
    expect(writeStats.conditionFailed['counter#a']).toBe(1);
    expect(writeStats.conditionFailed['counter#b']).toBe(1);
  });

  it('a TransactionConflict is counted as such and re-run from a fresh read', async () => {
    await bump('c', 1);
    const proxy = await proxyTheApi({ transactionConflict: true });
    try {
      dynamoStats.reset();
      writeStats.reset();
      let attempts = 0;
      await withRetries(async () => {
        const [c] = await batchGet([counterKey('c')]);
        if (++attempts === 2) proxy.setModes({});
        await transactWrite([step('c', Number(c?.n))]);
      });
      expect(attempts).toBe(2);
      expect(dynamoStats.byCommand.BatchGetItemCommand).toBe(2);
      expect(writeStats.transactionConflicts).toBe(1);
      expect((await getItem(counterKey('c')))?.n).toBe(2);
    } finally {
      await proxy.restore();
    }
  });
});

describe('summaries in shards', () => {
  it('a write reaching a new superblock hands on a fold: old counts move to the base, every total stays', async () => {
    const list = 'fold-list';
    const now = Date.parse('2026-03-01T00:00:00.000Z');
    const last = 2 * MAP_SIZE + 1;
    const folds: string[] = [];
    for (let first = 1; first <= last; first += 100) {
      const entries = Array.from({ length: Math.min(100, last - first + 1) }, (_, i) => ({
        code: (first + i) % 3,
        createdAtMs: now + first + i,
      }));
      const writes = placeInList('foldco', list, first, entries);
      folds.push(...writes.flatMap((w) => (w.afterCommit ? [`${first}`] : [])));
      await transactWrite(writes.map(({ afterCommit: _, ...w }) => w));
    }
    // Only the chunk holding the first position of superblock 2 (1,025) folds; superblock 1's first (513) has
    // nothing older than the two newest superblocks to fold.
    expect(folds).toEqual(['1001']);
    const before = await readSummary('foldco', list);
    expect(before.live).toEqual([MAP_SIZE, MAP_SIZE, 1]);
    await foldSummary('foldco', list);
    const items = await queryPartition(keys.counter('foldco', list).PK);
    const base = items.find((i) => i.SK === keys.counter('foldco', list).SK)!;
    expect([base['l#0'], base['s#0#0'], base['s#0#1'], base['s#0#2']]).toEqual([MAP_SIZE, 170, 171, 171]);
    expect(base['f#0']).toBe(now + 1);
    // Superblocks 1 and 2 stay in the shards, where the next writes go.
    const inShards = items.filter((i) => i !== base).flatMap((i) => Object.keys(i).filter((n) => /^[lfs]#/.test(n)));
    expect(inShards.filter((n) => n.split('#')[1] === '0')).toEqual([]);
    expect(inShards.filter((n) => n.startsWith('l#'))).not.toEqual([]);
    expect(await readSummary('foldco', list)).toEqual(before);
    // A second fold has nothing to move.
    await foldSummary('foldco', list);
    expect(await queryPartition(keys.counter('foldco', list).PK)).toEqual(items);
  });

  it('folds racing writes and moves in every superblock: nothing counted twice or lost', async () => {
    const list = 'fold-race';
    const now = Date.parse('2026-03-01T00:00:00.000Z');
    const place = (first: number, n: number) =>
      transactWrite(
        placeInList(
          'foldco',
          list,
          first,
          Array.from({ length: n }, (_, i) => ({ code: 0, createdAtMs: now + first + i })),
        ).map(({ afterCommit: _, ...w }) => w),
      );
    for (let first = 1; first <= 2 * MAP_SIZE; first += 100)
      await place(first, Math.min(100, 2 * MAP_SIZE - first + 1));
    // 40 creates in superblock 2, 40 status moves (code 0 -> 1) and 10 erasures in superblocks 0 and 1, each a
    // transaction of its own, while folds run among them.
    const moves = Array.from({ length: 40 }, (_, i) => 1 + i * 25);
    const erased = Array.from({ length: 10 }, (_, i) => 2 + i * 100);
    const folding = Array.from({ length: 6 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * 15));
      await foldSummary('foldco', list);
    });
    await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => place(2 * MAP_SIZE + 1 + i, 1)),
      ...moves.map((p) => transactWrite([moveInSummary('foldco', list, p, 0, 1)])),
      ...erased.map((p) => transactWrite([moveInSummary('foldco', list, p, 0, undefined)])),
      ...folding,
    ]);
    await foldSummary('foldco', list);
    const summary = await readSummary('foldco', list);
    const inSb = (positions: number[], sb: number) => positions.filter((p) => Math.floor((p - 1) / MAP_SIZE) === sb);
    expect(summary.live).toEqual([0, 1].map((sb) => MAP_SIZE - inSb(erased, sb).length).concat(40));
    expect(countsOf(summary, 1)).toEqual([0, 1].map((sb) => inSb(moves, sb).length).concat(0));
    expect(countsOf(summary, 0)).toEqual(
      [0, 1].map((sb) => MAP_SIZE - inSb(moves, sb).length - inSb(erased, sb).length).concat(40),
    );
    // Superblock 0 is in the base now; the shards hold the two newest only.
    const shards = (await queryPartition(keys.counter('foldco', list).PK)).filter((i) => i.SK !== 'C');
    expect(shards.flatMap((i) => Object.keys(i).filter((n) => /^[lfs]#0(#|$)/.test(n)))).toEqual([]);
  });

  it('a create or update reaching superblock 2 folds its lists beside the request, under its own grants', async () => {
    const businessId = demo.business.id;
    // Every list's reservation item as if 1,024 positions (two superblocks) had been handed out.
    const reserved = (sequence: string, attribute: 'n' | 'u') =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.counter(businessId, sequence),
          UpdateExpression: 'SET #a = :n',
          ExpressionAttributeNames: { '#a': attribute },
          ExpressionAttributeValues: { ':n': 2 * MAP_SIZE },
        }),
      );
    await Promise.all([
      reserved(application.sequence, 'n'),
      reserved(employee.sequence, 'n'),
      reserved(employeeJob.sequence, 'n'),
    ]);
    const before = (await api.request('GET', `${API}/applications?per_page=1`, { token })).body.total_entries;
    const post = (path: string, body: unknown) => api.request('POST', `${API}${path}`, { token, body });
    const created = await post('/applications', {
      accept_terms_and_conditions: true,
      first_name: 'Fold',
      last_name: 'Point',
      email: 'fold@example.com',
    });
    const person = await post('/employees', { first_name: 'Fold', last_name: 'Point' });
    const job = await post('/employee_jobs', { employee_id: person.body.id, name: 'Cook', from: '2026-01-01' });
    expect([created.status, person.status, job.status]).toEqual([201, 201, 201]);
    // An update takes the next place in the order of writes: the first of its superblock 2.
    await reserved(application.sequence, 'u');
    const updated = await api.request('PUT', `${API}/applications/${created.body.id}`, {
      token,
      body: { first_name: 'Folded' },
    });
    expect(updated.status).toBe(200);
    // Each fold's Query goes out once its write has committed (the answer does not wait for it).
    for (const route of ['create-application', 'create-employee', 'create-employee-job', 'update-application'])
      await until(() => observedCalls.has(`${route} Query -`), `the fold's Query of ${route}`);
    const after = await api.request('GET', `${API}/applications?per_page=1&page=${before + 1}`, { token });
    expect(after.body.total_entries).toBe(before + 1);
    expect(after.body.entries.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
  });
});

describe('a chunk of entries (bulk import)', () => {
  it('reserves consecutive positions and times in one write, counted per superblock, whatever else reserves', async () => {
    const list = 'chunk-list';
    const sequence = keys.counter('chunkco', 'chunk-sequence');
    // MAP_SIZE - 3 positions already reserved, then a chunk of 10: it fills superblock 0 and starts superblock 1.
    const now = Date.parse('2026-03-01T00:00:00.000Z');
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sequence,
        UpdateExpression: 'SET n = :n, u = :n, t = :t',
        ExpressionAttributeValues: { ':n': MAP_SIZE - 3, ':t': now + 5 },
      }),
    );
    writeStats.reset();
    // The clock of this writer is behind the last reservation: the times continue after it, one ms each.
    const reserved = await reservePositions(sequence, 10, 10, now);
    expect(reserved).toEqual({ position: MAP_SIZE - 2, updatePosition: MAP_SIZE - 2, ms: now + 6 });
    const entries = Array.from({ length: 10 }, (_, i) => ({
      position: reserved.position + i,
      code: i % 3,
      createdAtMs: reserved.ms + i,
    }));
    await transactWrite(placeAt('chunkco', list, entries));
    expect(writeStats.transactions).toBe(1);
    // The chunk's counts go to one summary shard; its map values of each superblock to one shard, that of its
    // first position there (parked: the reader takes them until a position's own shard has a value).
    const counters = await queryPartition(keys.counter('chunkco', list).PK);
    expect(counters.map((c) => c.SK)).toEqual([keys.summaryShard('chunkco', list, shardOf(reserved.position)).SK]);
    const summary = summaryOf(counters);
    const mapItems = await queryPartition(keys.listMap('chunkco', list, 0, 0).PK);
    expect(mapItems.map((m) => m.SK)).toEqual([
      keys.listMap('chunkco', list, 0, shardOf(reserved.position)).SK,
      keys.listMap('chunkco', list, 1, shardOf(MAP_SIZE + 1)).SK,
    ]);
    const shardsOf = (sb: number): MapShard[] =>
      mapItems.flatMap((item) => {
        const at = mapShardOfKey(String(item.SK));
        return at.superblock === sb ? [{ shard: at.shard, item }] : [];
      });
    const [map0, map1] = [shardsOf(0), shardsOf(1)];
    // Superblock 0 got the chunk's first 3 entries, superblock 1 the rest; the positions before are holes.
    expect(summary.live).toEqual([3, 7]);
    expect(summary.firstCreated).toEqual([now + 6, now + 9]);
    expect(summary.byStatus.get(0)).toEqual([1, 3]);
    expect(summary.byStatus.get(2)).toEqual([1, 2]);
    expect(mapOf(map0).slice(MAP_SIZE - 4)).toEqual([HOLE, ...[0, 1, 2].map((i) => mapValue(now + 6 + i, i % 3))]);
    expect(mapOf(map1).slice(0, 7)).toEqual(entries.slice(3).map((e) => mapValue(e.createdAtMs, e.code)));
    expect(mapOf(map1)[7]).toBe(HOLE);
    // The next writer, its clock ahead, takes its own time and the next positions.
    expect(await reservePositions(sequence, 1, 1, now + 1_000)).toEqual({
      position: MAP_SIZE + 8,
      updatePosition: MAP_SIZE + 8,
      ms: now + 1_000,
    });
    // An update reserves a place in the order of writes only.
    expect(await reservePositions(sequence, 0, 1, now + 1_000)).toEqual({
      position: 0,
      updatePosition: MAP_SIZE + 9,
      ms: now + 1_001,
    });
  });
});

describe('writers of one process', () => {
  it('wait for the turn another writer of the process holds on an item instead of racing it', async () => {
    await bump('d', 3);
    const holder = Symbol('holder');
    expect(await takeTurns([keyId(counterKey('d'))], holder, Infinity)).toBe('free');
    dynamoStats.reset();
    writeStats.reset();
    turnStats.reset();
    const reads: number[] = [];
    const writer = withRetries(async () => {
      const [d] = await batchGet([counterKey('d')]);
      reads.push(Number(d?.n));
      await transactWrite([step('d', Number(d?.n))]);
    });
    await new Promise((r) => setTimeout(r, 200));
    // Nothing read or sent while another writer holds the turn.
    expect(dynamoStats.byCommand.BatchGetItemCommand ?? 0).toBe(0);
    expect(writeStats.transactions).toBe(0);
    // The holder commits its own change and ends.
    await bump('d', 4);
    releaseTurns([keyId(counterKey('d'))], holder);
    await writer;
    expect(reads).toEqual([4]);
    expect((await getItem(counterKey('d')))?.n).toBe(5);
    expect(writeStats.transactions).toBe(1);
    // Its read waited for the turn (the local server's client middleware) and went out once the holder had
    // finished: one attempt, nothing re-run.
    expect(turnStats.waits).toBe(1);
    expect(writeStats.attempts).toEqual({ 1: 1 });
    expect(heldKeys()).toEqual([]);
  });

  it('a writer refused, then failing with an error of its own, leaves no turn held', async () => {
    await bump('e', 1);
    writeStats.reset();
    turnStats.reset();
    let attempts = 0;
    const refused = withRetries(async () => {
      attempts += 1;
      const [e] = await batchGet([counterKey('e')]);
      // Another writer moves the counter between this read and the transaction, whose refusal means 'gone'.
      await bump('e', Number(e?.n) + 1);
      await transactWrite([{ ...step('e', Number(e?.n)), onConditionFailed: () => new Error('gone') }]);
    });
    await expect(refused).rejects.toThrow('gone');
    // The refusal took the turn on the counter (nobody held it: the writer paused, as between attempts); the
    // operation ended without another call, and its end gave the turn back.
    expect(attempts).toBe(1);
    expect(writeStats.conditionFailed['counter#e']).toBe(1);
    expect(turnStats.pauses).toBe(1);
    expect(heldKeys()).toEqual([]);
  });

  it('creating in parallel on one list: each create refused at most once, positions dense, no turn left held', async () => {
    const send = (body: unknown) => api.request('POST', `${API}/employees`, { token, body });
    const before = (await api.request('GET', `${API}/employees?per_page=1`, { token })).body.total_entries as number;
    writeStats.reset();
    const n = 12;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) => send({ first_name: 'Parallel', last_name: `Employee ${i}` })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(n).fill(201));
    // After its first refusal a create waits for its turn instead of racing the others again. Only a create whose
    // first transaction was already on its way when the queue formed can refuse a turn holder once more (it checked
    // for holders before sending): on a loaded machine that happens, so a create is refused at most twice. In all,
    // no more transactions than one refusal per create: without turns, each commit refuses every other racer.
    expect(Math.max(...Object.keys(writeStats.refusals).map(Number))).toBeLessThanOrEqual(2);
    expect(writeStats.transactions).toBeLessThanOrEqual(2 * n - 1);
    expect(heldKeys()).toEqual([]);
    const listed: string[] = [];
    for (let page = 1; ; page++) {
      const res = await api.request('GET', `${API}/employees?per_page=100&page=${page}`, { token });
      expect(res.body.total_entries).toBe(before + n);
      listed.push(...res.body.entries.map((e: { id: string }) => e.id));
      if (res.body.entries.length < 100) break;
    }
    expect(listed).toHaveLength(before + n);
    for (const r of created) expect(listed.filter((id) => id === r.body.id)).toHaveLength(1);
  });

  it('creating jobs of one employee in parallel: the writers refused on its record queue for their turn on it', async () => {
    const send = (path: string, body: unknown) => api.request('POST', `${API}${path}`, { token, body });
    const owner = (await send('/employees', { first_name: 'Many', last_name: 'Jobs' })).body.id as string;
    writeStats.reset();
    turnStats.reset();
    const n = 10;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        send('/employee_jobs', { employee_id: owner, name: `Turn ${i}`, from: '2026-01-01' }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(n).fill(201));
    // Every job writes its employee's record (job_count, version): the writers refused on it queue for their turn
    // (through the server's requests, deadlines and all) and re-run one after the other, each holding the turn
    // while it does, so none is refused by another writer of this process more than once after its first refusal.
    expect(writeStats.conditionFailed['record employee']).toBeGreaterThan(0);
    expect(turnStats.waits).toBeGreaterThan(0);
    expect(Math.max(...Object.keys(writeStats.refusals).map(Number))).toBeLessThanOrEqual(2);
    expect(writeStats.transactions).toBeLessThanOrEqual(2 * n - 1);
    expect(heldKeys()).toEqual([]);
    const jobs = await api.request('GET', `${API}/employee_jobs?employee_id=${owner}&per_page=100`, { token });
    expect(jobs.body.total_entries).toBe(n);
  });
});

describe('creates of one business', () => {
  it('never refuse each other on a list: employees and jobs created in parallel, each listed once, in created_at order', async () => {
    const send = (path: string, body: unknown) => api.request('POST', `${API}${path}`, { token, body });
    const total = async (path: string): Promise<number> =>
      (await api.request('GET', `${API}${path}?per_page=1`, { token })).body.total_entries as number;
    const [employeesBefore, jobsBefore] = [await total('/employees'), await total('/employee_jobs')];
    const owners = await Promise.all(
      [0, 1, 2, 3].map(async (i) => (await send('/employees', { first_name: 'Owner', last_name: `${i}` })).body.id),
    );
    writeStats.reset();
    const n = 12;
    const created = await Promise.all([
      ...Array.from({ length: n }, (_, i) =>
        send('/employees', { first_name: 'Parallel', last_name: `Employee ${i}` }),
      ),
      // Jobs of different employees: nothing but the business list is shared between them.
      ...Array.from({ length: n }, (_, i) =>
        send('/employee_jobs', { employee_id: owners[i % 4], name: `Parallel ${i}`, from: '2026-01-01' }),
      ),
    ]);
    expect(created.map((r) => r.status)).toEqual(Array(2 * n).fill(201));
    // Their positions are reserved outside the transactions, and the lists' summaries and maps take
    // unconditioned writes: what may still refuse a create is its feed lane, or its employee (jobs of one employee).
    const refusedOn = Object.keys(writeStats.conditionFailed);
    expect(refusedOn.filter((kind) => kind.startsWith('counter#') || kind.startsWith('map#'))).toEqual([]);
    for (const [path, before, made] of [
      ['/employees', employeesBefore + 4, created.slice(0, n)],
      ['/employee_jobs', jobsBefore, created.slice(n)],
    ] as const) {
      const listed: { id: string; created_at: string }[] = [];
      for (let page = 1; ; page++) {
        const res = await api.request('GET', `${API}${path}?per_page=100&page=${page}`, { token });
        expect(res.body.total_entries).toBe(before + n);
        listed.push(...res.body.entries);
        if (res.body.entries.length < 100) break;
      }
      expect(listed).toHaveLength(before + n);
      for (const r of made) expect(listed.filter((e) => e.id === r.body.id)).toHaveLength(1);
      const times = listed.map((e) => e.created_at);
      expect(times).toEqual([...times].sort());
      expect(new Set(times).size).toBe(times.length);
    }
  });
});

describe('a new employee', () => {
  it("takes the employee lanes in turn, whatever lane one employee's job creates keep busy", async () => {
    const send = (path: string, body: unknown) => api.request('POST', `${API}${path}`, { token, body });
    const busy = (await send('/employees', { first_name: 'Busy', last_name: 'Employee' })).body.id as string;
    const lanes: number[] = [];
    for (let i = 0; i < EMPLOYEE_LANES; i++) {
      // Every job of `busy` appends to its employee's lane (employee_job.created, employee.updated).
      expect((await send('/employee_jobs', { employee_id: busy, name: `Job ${i}`, from: '2026-01-01' })).status).toBe(
        201,
      );
      const created = await send('/employees', { first_name: 'New', last_name: `Employee ${i}` });
      expect(created.status).toBe(201);
      lanes.push(laneOf('employee', created.body.id));
    }
    // Consecutive business positions, so every lane once: two creates meet on a lane only 16 positions apart.
    expect(new Set(lanes).size).toBe(EMPLOYEE_LANES);
  });
});

describe('parallel writers of one business', () => {
  const send = (method: string, path: string, body: unknown, key?: string) =>
    api.request(method, `${API}${path}`, { token, body, headers: key ? { 'idempotency-key': key } : {} });
  /** A client that retries a 503 (creates with their Idempotency-Key, so a retry never creates twice). */
  const persist = async (method: string, path: string, body: unknown, key?: string) => {
    for (;;) {
      const res = await send(method, path, body, key);
      if (res.status !== 503) return res;
    }
  };

  it('creates and updates racing, with ambiguous failures and lagging indexes: one position each, exact totals, each write once in the feed', async () => {
    const start = await api.request('GET', `${API}/changes?limit=1`, { token });
    const before = (await api.request('GET', `${API}/applications?per_page=1`, { token })).body.total_entries;
    let cursor: string | undefined;
    for (let after = start.body.next_cursor as string | undefined; ;) {
      // The feed's end before the race (the first page started at the oldest entry).
      const res = await api.request(
        'GET',
        `${API}/changes?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        {
          token,
        },
      );
      if (res.body.entries.length === 0) {
        cursor = res.body.next_cursor;
        break;
      }
      after = res.body.next_cursor;
    }
    // One application every writer also changes: their PUTs race on its version (creates no longer race).
    const shared = await persist(
      'POST',
      '/applications',
      { first_name: 'Shared', last_name: 'S', email: 'shared@example.com', accept_terms_and_conditions: true },
      'race-shared',
    );
    const proxy = await proxyTheApi({ indexLagMs: 500 }, seededRandom(1123));
    writeStats.reset();
    const committed: any[] = [shared.body];
    try {
      proxy.setModes({ indexLagMs: 500, applyThenFail: 0.15, operations: ['TransactWriteItems'] });
      await Promise.all(
        Array.from({ length: 10 }, async (_, w) => {
          const app = await persist(
            'POST',
            '/applications',
            {
              first_name: 'Race',
              last_name: `${w}`,
              email: `race${w}@example.com`,
              accept_terms_and_conditions: true,
              job_id: w % 2 ? 'cook-2026' : null,
            },
            `race-${w}`,
          );
          expect(app.status).toBe(201);
          committed.push(app.body);
          for (let i = 0; i < 2; i++) {
            const put = await persist('PUT', `/applications/${app.body.id}`, { last_name: `${w}.${i}` });
            expect(put.status).toBe(200);
            committed.push(put.body);
          }
          const put = await persist('PUT', `/applications/${shared.body.id}`, { last_name: `shared by ${w}` });
          expect(put.status).toBe(200);
          committed.push(put.body);
        }),
      );
    } finally {
      proxy.setModes({});
      await proxy.restore();
    }
    // Contention really happened.
    expect(writeStats.retries).toBeGreaterThan(0);

    const total = (await api.request('GET', `${API}/applications?per_page=1`, { token })).body.total_entries;
    expect(total).toBe(before + 11);
    const positions = (
      await readEntries(partitionOf(application.patterns.byPosition, { businessId: 'demo' }), {
        from: 1,
        limit: 10_000,
      })
    ).map((i) => positionsOf(i).position);
    // One position per application, none twice (a reservation whose create did not commit is a hole).
    expect(positions).toHaveLength(total);
    expect(new Set(positions).size).toBe(total);
    // The order of writes: one position per application, increasing with updated_at.
    const byUpdate = await readEntries(partitionOf(application.patterns.updatedSince, { businessId: 'demo' }), {
      from: 1,
      limit: 10_000,
    });
    expect(byUpdate).toHaveLength(total);
    for (let i = 1; i < byUpdate.length; i++) {
      expect(positionsOf(byUpdate[i]!).updatePosition).toBeGreaterThan(positionsOf(byUpdate[i - 1]!).updatePosition);
      expect(String(byUpdate[i]!.updated_at) > String(byUpdate[i - 1]!.updated_at)).toBe(true);
    }
    // Every committed write exactly once in the feed, nothing else.
    const seen: string[] = [];
    for (let after = cursor; ;) {
      const res = await api.request('GET', `${API}/changes?limit=100&after=${encodeURIComponent(after!)}`, { token });
      expect(res.status).toBe(200);
      if (res.body.entries.length === 0) break;
      seen.push(...res.body.entries.map((e: any) => `${e.id}@${e.data.updated_at}`));
      after = res.body.next_cursor;
    }
    expect(seen.sort()).toEqual(committed.map((r) => `${r.id}@${r.updated_at}`).sort());
  });
});

/**
 * Effective dates (contract §26): when a day begins in the business's timezone,
 * each employee whose derived job fields change gets one `employee.updated`
 * entry by `{"type": "system", "name": "effective_date"}` with the derived
 * fields that changed, and its updated_at moves; webhooks deliver it. Once per
 * employee and day whatever the runs do (again, two at once, a crash midway,
 * DynamoDB losing answers), missed days caught up in order; `as_of` answers
 * the derived fields of any day. Days are pretended with `--now` / `nowMs`
 * relative to today in the business's timezone (Asia/Tokyo: no DST, UTC+9).
 */
import demo from '../../fixtures/demo.json';
import { runWithDeadline } from '../../src/data/deadline';
import { addDays } from '../../src/domain/effective-dates';
import {
  EffectiveRunFailed,
  asEffectiveJob,
  runEffectiveDates,
  startLocalEffectiveDates,
  type EffectiveResult,
} from '../../src/services/effective-dates';
import { asDispatcher, pumpSubscription } from '../../src/services/webhook-dispatcher';
import { createClient } from '../../client/src/index';
import { handler as effectiveJob } from '../../functions/apply-effective-dates';
import { readRegistry, registryEntry } from '../../src/data/business-store';
import { employee as employeeEntity, employeeJob } from '../../src/data/entities/employee';
import type { BusinessConfig } from '../../src/domain/business';
import { batchPut } from '../../src/data/dynamo/table-io';
import { admin } from '../support/admin';
import { dayIn } from '../support/dates';
import { AMBIGUOUS_FAULTS, proxyTheApi, seededRandom } from '../support/dynamo-proxy';
import { runFailingJob } from '../support/failing-job';
import { API, startApi, type TestApi } from '../support/harness';
import { startLoopbackReceiver } from '../support/loopback-receiver';

jest.setTimeout(60_000);

const TZ = 'Asia/Tokyo';
const fixture = (id: string) => ({ ...demo, business: { ...demo.business, id, timezone: TZ } });
/** Today (+ offset days) in Tokyo. */
const day = (offset: number): string => dayIn(TZ, offset);
/** The instant `time` (HH:MM:SS) of `d` in Tokyo. */
const tokyo = (d: string, time = '12:00:00'): string => new Date(`${d}T${time}+09:00`).toISOString();

type Entry = {
  cursor: string;
  type: string;
  id: string;
  occurred_at: string;
  data: Record<string, unknown>;
  actor: Record<string, unknown>;
  request_id: string | null;
  changed_fields?: string[];
};

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
}, 60_000);
afterAll(() => api.close());

function client(token: string) {
  const call = (method: string, path: string, body?: unknown) =>
    api.request(method, `${API}${path}`, { token, ...(body !== undefined ? { body } : {}) });
  return {
    call,
    async employee(name: string, jobs: Record<string, unknown>[]): Promise<string> {
      const res = await call('POST', '/employees', { first_name: name, last_name: 'Calendar' });
      expect(res.status).toBe(201);
      for (const job of jobs) {
        const made = await call('POST', '/employee_jobs', { employee_id: res.body.id, name: 'Cook', ...job });
        expect(made.status).toBe(201);
      }
      return res.body.id as string;
    },
    /** Every feed entry (pages followed to the end). */
    async feed(): Promise<Entry[]> {
      const all: Entry[] = [];
      let after = '';
      for (;;) {
        const page = await call('GET', `/changes?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`);
        expect(page.status).toBe(200);
        all.push(...(page.body.entries as Entry[]));
        if ((page.body.entries as Entry[]).length === 0) return all;
        after = page.body.next_cursor as string;
      }
    },
  };
}

const isEffective = (e: Entry): boolean => e.actor.type === 'system' && e.actor.name === 'effective_date';
const updatedBy = (out: { stdout: string }): unknown => JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}');

describe('a day begins: leavers, starters and movers in the feed, once', () => {
  const BID = 'calendar';
  const D = day(2);
  let c: ReturnType<typeof client>;
  let ids: Record<'leaver' | 'starter' | 'mover' | 'overlap' | 'steady', string>;

  beforeAll(async () => {
    c = client(await api.provision(fixture(BID)));
    ids = {
      leaver: await c.employee('Leaver', [{ from: day(-100), to: addDays(D, -1), location_id: 'hq' }]),
      starter: await c.employee('Starter', [{ from: D, department_id: 'kitchen' }]),
      mover: await c.employee('Mover', [
        { from: day(-50), to: addDays(D, -1), location_id: 'hq' },
        { from: D, location_id: 'restaurant' },
      ]),
      // A job ends, but a later one stays current and the first stays first: nothing derived changes.
      overlap: await c.employee('Overlap', [
        { from: day(-20), to: addDays(D, -1) },
        { from: day(-10), to: null },
      ]),
      steady: await c.employee('Steady', [{ from: day(-10), to: null }]),
    };
  });

  it('as_of answers the derived fields of that day, the other fields of today; a bad date is a 400 field map', async () => {
    const before = await c.call('GET', `/employees/${ids.mover}?as_of=${addDays(D, -1)}`);
    const on = await c.call('GET', `/employees/${ids.mover}?as_of=${D}`);
    expect([before.status, on.status]).toEqual([200, 200]);
    expect(before.body).toMatchObject({ location_id: 'hq', current_employee_job_from: day(-50) });
    expect(on.body).toMatchObject({ location_id: 'restaurant', current_employee_job_from: D });
    // Only the derived fields differ between the two days.
    const differ = Object.keys(on.body).filter((k) => JSON.stringify(on.body[k]) !== JSON.stringify(before.body[k]));
    expect(differ.sort()).toEqual([
      'current_employee_job_from',
      'current_employee_job_to',
      'current_or_last_employee_job_from',
      'current_or_last_employee_job_to',
      'location_id',
    ]);
    // Without as_of: today's (the mover's first job is current today).
    expect((await c.call('GET', `/employees/${ids.mover}`)).body.location_id).toBe('hq');

    const list = await c.call('GET', `/employees?per_page=100&as_of=${D}`);
    expect(list.status).toBe(200);
    const byId = new Map((list.body.entries as Record<string, unknown>[]).map((e) => [e.id, e]));
    expect(byId.get(ids.leaver)).toMatchObject({ has_active_employee_job: false, location_id: 'hq' });
    expect(byId.get(ids.starter)).toMatchObject({ has_active_employee_job: true, department_id: 'kitchen' });
    expect((await c.call('GET', `/employees?as_of=${addDays(D, -1)}`)).body.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: ids.leaver, has_active_employee_job: true })]),
    );

    // The served document shows the parameter on both operations.
    const document = (await api.request('GET', `${API}/openapi.json`)).body;
    for (const path of [`${API}/employees/{id}`, `${API}/employees`])
      expect(document.paths[path].get.parameters).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'as_of', in: 'query', schema: expect.objectContaining({ format: 'date' }) }),
        ]),
      );

    for (const bad of ['2026-02-30', '2026-1-01', 'tomorrow', '']) {
      for (const path of [`/employees/${ids.mover}?as_of=${bad}`, `/employees?as_of=${bad}`]) {
        const res = await c.call('GET', path);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: { as_of: [expect.any(String)] },
        });
      }
    }
  });

  it('at local midnight: one entry per changed employee by effective_date, naming the derived fields; updated_at moves; the webhook arrives', async () => {
    const receiver = await startLoopbackReceiver();
    const sub = await c.call('POST', '/webhook_subscriptions', { url: receiver.url, types: ['employee.updated'] });
    expect(sub.status).toBe(201);
    try {
      const beforeRun = new Map(
        await Promise.all(
          Object.values(ids).map(async (id) => [id, (await c.call('GET', `/employees/${id}`)).body] as const),
        ),
      );
      const entriesBefore = (await c.feed()).length;

      // The business's first run: its day (the day before D) changes nothing.
      expect(updatedBy(await admin('effective', 'run', '--now', tokyo(addDays(D, -1)), '--business', BID))).toEqual({
        updated: 0,
      });
      // A second before midnight in Tokyo: still the day before.
      const early = await admin('effective', 'run', '--now', tokyo(addDays(D, -1), '23:59:59'), '--business', BID);
      expect([early.code, updatedBy(early)]).toEqual([0, { updated: 0 }]);
      const run = await admin('effective', 'run', '--now', tokyo(D, '00:00:30'), '--business', BID);
      expect(run.code).toBe(0);
      expect(updatedBy(run)).toEqual({ updated: 3 });
      expect(run.stderr).toContain(`effective: ${BID} ${D}: 3 updated`);

      const effective = (await c.feed()).slice(entriesBefore).filter(isEffective);
      expect(effective.map((e) => e.id).sort()).toEqual([ids.leaver, ids.starter, ids.mover].sort());
      const entryOf = (id: string): Entry => effective.find((e) => e.id === id)!;
      expect(entryOf(ids.leaver)).toMatchObject({
        type: 'employee.updated',
        actor: { type: 'system', name: 'effective_date' },
        request_id: null,
        changed_fields: [
          'current_employee_job_from',
          'current_employee_job_to',
          'has_active_employee_job',
          'has_active_or_future_employee_job',
        ],
      });
      // Its job is open-ended: current_employee_job_to stays null.
      expect(entryOf(ids.starter).changed_fields).toEqual(['current_employee_job_from', 'has_active_employee_job']);
      expect(entryOf(ids.mover).changed_fields).toEqual([
        'current_employee_job_from',
        'current_employee_job_to',
        'current_or_last_employee_job_from',
        'current_or_last_employee_job_to',
        'location_id',
      ]);
      for (const id of [ids.leaver, ids.starter, ids.mover]) {
        const entry = entryOf(id);
        // The record as of that day, with its new updated_at and ETag version.
        const asOf = await c.call('GET', `/employees/${id}?as_of=${D}`);
        expect(entry.data).toEqual(asOf.body);
        expect(entry.occurred_at).toBe(asOf.body.updated_at);
        expect(asOf.body.updated_at > (beforeRun.get(id)!.updated_at as string)).toBe(true);
      }
      for (const id of [ids.overlap, ids.steady])
        expect((await c.call('GET', `/employees/${id}`)).body).toEqual(beforeRun.get(id));

      // Again, and once more later that day: nothing new.
      expect(updatedBy(await admin('effective', 'run', '--now', tokyo(D, '00:00:30'), '--business', BID))).toEqual({
        updated: 0,
      });
      expect(updatedBy(await admin('effective', 'run', '--now', tokyo(D, '18:00:00'), '--business', BID))).toEqual({
        updated: 0,
      });
      expect((await c.feed()).slice(entriesBefore).filter(isEffective)).toHaveLength(3);

      // Webhooks deliver them like any entry.
      await asDispatcher(() => pumpSubscription(BID, sub.body.id as string, Date.now() + 30_000));
      const delivered = receiver.received.map((r) => JSON.parse(r.body) as Entry).filter(isEffective);
      expect(delivered.map((e) => e.id).sort()).toEqual([ids.leaver, ids.starter, ids.mover].sort());
      expect(delivered).toEqual(effective);
    } finally {
      await c.call('DELETE', `/webhook_subscriptions/${sub.body.id}`);
      await receiver.close();
    }
  });

  it('a run after missed days catches them up in order, each entry as of its day', async () => {
    const E = addDays(D, 2);
    // A one-day job on E (starts E, ends E: changes on E and on the day after), and a job ending the day before E.
    const oneDay = await c.employee('OneDay', [{ from: E, to: E }]);
    const ending = await c.employee('Ending', [{ from: day(-5), to: addDays(E, -1) }]);
    const entriesBefore = (await c.feed()).length;

    const run = await admin('effective', 'run', '--now', tokyo(addDays(E, 1)), '--business', BID);
    expect(updatedBy(run)).toEqual({ updated: 3 });
    expect(run.stderr.split('\n').filter((l) => l.startsWith(`effective: ${BID}`))).toEqual([
      `effective: ${BID} ${addDays(D, 1)}: 0 updated`,
      `effective: ${BID} ${E}: 2 updated`,
      `effective: ${BID} ${addDays(E, 1)}: 1 updated`,
    ]);
    const effective = (await c.feed()).slice(entriesBefore).filter(isEffective);
    expect(effective.map((e) => e.id)).toEqual(expect.arrayContaining([oneDay, ending]));
    const ofOneDay = effective.filter((e) => e.id === oneDay);
    expect(ofOneDay.map((e) => [e.data.has_active_employee_job, e.data.has_active_or_future_employee_job])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(ofOneDay[0]!.data).toEqual({
      ...(await c.call('GET', `/employees/${oneDay}?as_of=${E}`)).body,
      updated_at: ofOneDay[0]!.occurred_at,
    });
    expect(ofOneDay[1]!.data).toEqual((await c.call('GET', `/employees/${oneDay}?as_of=${addDays(E, 1)}`)).body);
    expect(effective.filter((e) => e.id === ending).map((e) => e.changed_fields)).toEqual([
      [
        'current_employee_job_from',
        'current_employee_job_to',
        'has_active_employee_job',
        'has_active_or_future_employee_job',
      ],
    ]);
    expect(updatedBy(await admin('effective', 'run', '--now', tokyo(addDays(E, 1)), '--business', BID))).toEqual({
      updated: 0,
    });
  });
});

describe('docs/effective-dates.md: a mirror kept by client.changes sees a leaver go inactive at midnight', () => {
  it('the job ends today; after the run at midnight the feed says so', async () => {
    const BID = 'calendar-docs';
    const client = createClient({ baseUrl: api.baseUrl, token: await api.provision(fixture(BID)) });
    const mirror = new Map<string, Record<string, unknown>>();
    let cursor: string | undefined;
    const sync = async (): Promise<void> => {
      for await (const change of client.changes({ cursor, types: ['employee.created', 'employee.updated'] })) {
        mirror.set(change.id, change.data as Record<string, unknown>);
        cursor = change.cursor;
      }
    };
    const leo = await client.createEmployee({ body: { first_name: 'Leo', last_name: 'Leaver' } });
    await client.createEmployeeJob({ body: { employee_id: leo.id, name: 'Cook', from: day(-400), to: day(0) } });
    await sync();
    expect(mirror.get(leo.id)).toMatchObject({ has_active_employee_job: true });

    expect(updatedBy(await admin('effective', 'run', '--now', tokyo(day(0)), '--business', BID))).toEqual({
      updated: 0,
    });
    expect(updatedBy(await admin('effective', 'run', '--now', tokyo(day(1), '00:05:00'), '--business', BID))).toEqual({
      updated: 1,
    });
    await sync();
    expect(mirror.get(leo.id)).toMatchObject({
      has_active_employee_job: false,
      has_active_or_future_employee_job: false,
      current_employee_job_from: null,
    });
    expect(mirror.get(leo.id)).toEqual(await client.getEmployee({ id: leo.id, as_of: day(1) }));
  });
});

describe('a request before the run on the day', () => {
  it('its entry names the derived fields the day changed, and the run then writes nothing', async () => {
    const BID = 'calendar-race';
    const c = client(await api.provision(fixture(BID)));
    // Last written a week ago (as the API would have stored it), its only job ended yesterday: today it is inactive,
    // and no entry said so yet.
    const id = 'race-employee';
    const weekAgo = `${day(-7)}T03:00:00.000Z`;
    await batchPut([
      {
        ...employeeEntity.newItem(
          BID,
          {
            id,
            createdAt: weekAgo,
            fields: { first_name: 'Rita', last_name: 'Race', language: 'en', employee_status_id: 'active' },
          },
          1,
        ),
        job_count: 1,
        job_summary: {
          job: { seq: 1, from: day(-30), to: day(-1), supervisor_id: null, location_id: null, department_id: null },
        },
      },
    ]);
    const entriesBefore = (await c.feed()).length;
    const put = await c.call('PUT', `/employees/${id}`, { last_name: 'Racer' });
    expect(put.status).toBe(200);
    const [entry] = (await c.feed()).slice(entriesBefore);
    expect(entry).toMatchObject({
      type: 'employee.updated',
      id,
      actor: { type: 'token' },
      changed_fields: [
        'current_employee_job_from',
        'current_employee_job_to',
        'has_active_employee_job',
        'has_active_or_future_employee_job',
        'last_name',
      ],
    });
    expect(updatedBy(await admin('effective', 'run', '--now', new Date().toISOString(), '--business', BID))).toEqual({
      updated: 0,
    });
  });
});

describe('exactly once per employee and day under faults', () => {
  const BID = 'calendar-faults';
  const F = day(4);
  const COUNT = 16;
  const nowMs = Date.parse(tokyo(F, '00:01:00'));
  /** As the deployed job runs: in its call scope, under a deadline. */
  const jobRun = (): Promise<EffectiveResult> =>
    asEffectiveJob(() => runWithDeadline(45_000, () => runEffectiveDates({ nowMs, businessId: BID })));

  it('a run that crashes midway, then two at once while DynamoDB loses answers: one entry each', async () => {
    const c = client(await api.provision(fixture(BID)));
    const ids: string[] = [];
    for (let i = 0; i < COUNT; i++) ids.push(await c.employee(`F${i}`, [{ from: day(-30), to: addDays(F, -1) }]));
    const entriesBefore = (await c.feed()).length;

    const proxy = await proxyTheApi({}, seededRandom(20261207));
    const reported: number[] = [];
    try {
      // Crash: after its second transaction, every read the run sends is lost; it fails part-way.
      const crash = setInterval(() => {
        if ((proxy.stats.requests.TransactWriteItems ?? 0) >= 2)
          proxy.setModes({ dropBeforeForward: 1, operations: ['BatchGetItem', 'Query', 'GetItem'] });
      }, 2);
      const failed: unknown = await jobRun().then(
        () => undefined,
        (error: unknown) => error,
      );
      clearInterval(crash);
      expect(failed).toBeInstanceOf(EffectiveRunFailed);
      const first = (failed as EffectiveRunFailed).updated;
      expect(first).toBeGreaterThanOrEqual(2);
      expect(first).toBeLessThan(COUNT);
      reported.push(first);

      // Two runs at once (and again until both complete) while writes are applied and answered 500, throttled and
      // reset: what one wrote, the other finds written.
      proxy.setModes({
        ...AMBIGUOUS_FAULTS,
        operations: ['BatchGetItem', 'Query', 'TransactWriteItems', 'GetItem', 'UpdateItem'],
      });
      const untilComplete = async (): Promise<void> => {
        for (let run = 0; run < 6; run++) {
          try {
            const result = await jobRun();
            reported.push(result.updated);
            if (result.complete) return;
          } catch (error) {
            expect(error).toBeInstanceOf(EffectiveRunFailed);
            reported.push((error as EffectiveRunFailed).updated);
          }
        }
        throw new Error(`no complete run in 6: ${JSON.stringify(reported)}`);
      };
      await Promise.all([untilComplete(), untilComplete()]);
      expect(proxy.stats.faults.applyThenFail ?? 0).toBeGreaterThanOrEqual(1);
    } finally {
      proxy.setModes({});
      await proxy.restore();
    }
    // Every employee written once, counted once.
    expect(reported.reduce((n, u) => n + u, 0)).toBe(COUNT);
    const effective = (await c.feed()).slice(entriesBefore).filter(isEffective);
    expect(effective.map((e) => e.id).sort()).toEqual([...ids].sort());
    for (const e of effective) expect(e.data.has_active_employee_job).toBe(false);
    expect(await runEffectiveDates({ nowMs, businessId: BID })).toEqual({ updated: 0, complete: true });
  }, 120_000);
});

describe('who runs it', () => {
  it('npm start: a run at once and then every interval, each business today done', async () => {
    await api.provision(fixture('calendar-local'));
    const stop = startLocalEffectiveDates(50);
    try {
      for (let i = 0; i < 200; i++) {
        const [entry] = await readRegistry('calendar-local');
        if (entry?.effectiveThrough === day(0)) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      await stop();
    }
    expect((await readRegistry('calendar-local'))[0]?.effectiveThrough).toBe(day(0));
  });

  it('the scheduled function logs the run at ERROR and fails the invocation when a run fails (the Errors alarm)', async () => {
    const { failure, logged } = await runFailingJob(effectiveJob, 20261208);
    expect(failure).toBeInstanceOf(EffectiveRunFailed);
    expect(logged.filter((l) => l.message === 'effective-date run')).toEqual([
      expect.objectContaining({ level: 'ERROR', updated: 0 }),
    ]);
  });

  it('a business that fails does not hold up the others; the run still fails at its end', async () => {
    // A registered business without its config (it sorts first in the registry), with a job ending the day before:
    // its day cannot be written.
    const D = day(9);
    await batchPut([
      { ...registryEntry({ id: 'broken', timezone: TZ } as BusinessConfig), effective_through: addDays(D, -1) },
      employeeJob.newItem(
        'broken',
        'nobody',
        { id: 'j', createdAt: new Date().toISOString(), fields: { name: 'Cook', from: day(-3), to: addDays(D, -1) } },
        { position: 1, seq: 1 },
      ),
    ]);
    const failed: unknown = await runEffectiveDates({ nowMs: Date.parse(tokyo(D)) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(EffectiveRunFailed);
    expect((failed as Error).message).toMatch(/business config missing for broken/);
    const registry = new Map((await readRegistry()).map((b) => [b.businessId, b.effectiveThrough]));
    expect(registry.get('broken')).toBe(addDays(D, -1));
    for (const id of ['calendar', 'calendar-docs', 'calendar-faults', 'calendar-local'])
      expect(registry.get(id)).toBe(D);
  });
});

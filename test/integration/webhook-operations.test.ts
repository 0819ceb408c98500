import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import demo from '../../fixtures/demo.json';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { feedAppendWrites } from '../../src/data/feed-store';
import { keys } from '../../src/data/dynamo/keys';
import { createToken } from '../../src/data/token-store';
import { transactWrite } from '../../src/data/dynamo/transact-write';
import { LANE_COUNT, encodeCursor, laneOf } from '../../src/domain/change-feed';
import { defaultDeps, pumpSubscription, startLocalDispatcher } from '../../src/services/webhook-dispatcher';
import '../../src/services/feed-wiring';
import { setEnvForFile } from '../support/env';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import { startLoopbackReceiver, type Delivery } from '../support/loopback-receiver';
import { until } from '../support/until';

/**
 * Operating a webhook subscription (contract §26) on the local stack: the
 * delivery log, resume (with and without a cursor) and ping, through the
 * dispatcher `npm start` runs (first part) or runs of it the test starts
 * itself, with a clock of its choosing (second part, the log's pages and expiry).
 */

interface FeedEntry {
  cursor: string;
  type: string;
  id: string;
  occurred_at: string;
  data: unknown;
}

const POLL_MS = 100;
const DAY = 24 * 60 * 60 * 1000;
setEnvForFile('AUTH_CACHE_SECONDS', '60');

let api: TestApi;
let token: string;
const saved = { ...process.env };

beforeAll(async () => {
  // Two retries after the first attempt, 50 ms apart: a receiver that is down disables its subscription at once.
  process.env.WEBHOOK_RETRY_DELAYS = '0.05,0.05';
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: 'ops' } });
});

afterAll(async () => {
  await api.close();
  process.env = saved;
});

const path = (id: string, action = ''): string => `${API}/webhook_subscriptions/${id}${action}`;
const subscribe = async (url: string, extra: Record<string, unknown> = {}, t = token) => {
  const res = await api.request('POST', `${API}/webhook_subscriptions`, { token: t, body: { url, ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
};
const resume = (id: string, body: Record<string, unknown> = {}, t = token) =>
  api.request('POST', path(id, '/resume'), { token: t, body });
const ping = (id: string, t = token) => api.request('POST', path(id, '/ping'), { token: t });
const deliveries = (id: string, query = '', t = token) =>
  api.request('GET', `${path(id, '/deliveries')}${query}`, { token: t });

async function createEmployee(name: string, t = token): Promise<string> {
  const res = await api.request('POST', `${API}/employees`, { token: t, body: { first_name: name, last_name: 'Op' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The business's feed from `after` to its head, as GET /changes pages it; and the cursor at the head. */
async function feedFrom(after?: string, t = token): Promise<{ entries: FeedEntry[]; head: string | undefined }> {
  const entries: FeedEntry[] = [];
  for (;;) {
    const res = await api.request('GET', `${API}/changes?limit=100${after ? `&after=${after}` : ''}`, { token: t });
    expect(res.status).toBe(200);
    entries.push(...(res.body.entries as FeedEntry[]));
    if ((res.body.entries as FeedEntry[]).length === 0) return { entries, head: after ?? res.body.next_cursor };
    after = res.body.next_cursor as string;
  }
}

/** The subscription as GET shows it, once `ready` holds. */
async function eventually(
  id: string,
  ready: (s: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const res = await api.request('GET', path(id), { token });
    if (ready(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`subscription ${id} never reached the expected state`);
}

const bodyOf = (d: Delivery): FeedEntry => JSON.parse(d.body) as FeedEntry;
/** What names a change whatever cursor it was read after. */
const changeOf = (e: FeedEntry): string => JSON.stringify([e.type, e.id, e.occurred_at]);

describe('resume and ping, delivered by the local dispatcher', () => {
  let stop: () => Promise<void>;
  const errors: unknown[] = [];
  beforeAll(() => {
    stop = startLocalDispatcher(POLL_MS, undefined, (error) => errors.push(error));
  });
  afterAll(() => stop());
  afterEach(() => expect(errors).toEqual([]));

  it('a receiver down until its subscription is disabled, then resume: every missed entry arrives once, in order, under its first webhook-id', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      receiver.answer.status = 503;
      const sub = await subscribe(receiver.url);
      const ids = [await createEmployee('M1'), await createEmployee('M2'), await createEmployee('M3')];
      const down = await eventually(sub.id, (s) => s.status === 'disabled');
      expect(down.last_delivery_error).toBe('HTTP 503');
      const failed = receiver.received.slice();
      expect(failed.map((d) => bodyOf(d).id)).toEqual([ids[0], ids[0], ids[0]]);

      // A disabled subscription still gets a ping (is the receiver back?); it stays disabled.
      const pinged = await ping(sub.id);
      expect(pinged.status).toBe(202);
      await until(() => receiver.received.length === 4, 'the ping');
      expect(bodyOf(receiver.received[3]!)).toMatchObject({ type: 'webhook.ping', data: { subscription_id: sub.id } });
      expect((await eventually(sub.id, () => true)).status).toBe('disabled');

      ids.push(await createEmployee('M4'));
      receiver.answer.status = 204;
      const resumed = await resume(sub.id);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ id: sub.id, status: 'active', last_delivery_error: 'HTTP 503' });
      expect(resumed.body).not.toHaveProperty('secret');

      // One more change after the resume: once it has arrived, everything before it has.
      ids.push(await createEmployee('M5'));
      await until(() => receiver.received.some((d) => d.status === 204 && bodyOf(d).id === ids[4]), 'M5');
      const arrived = receiver.received.filter((d) => d.status === 204);
      const { entries: feed } = await feedFrom();
      expect(arrived.map(bodyOf)).toEqual(feed.filter((e) => ids.includes(e.id)));
      expect(arrived[0]!.headers['webhook-id']).toBe(failed[0]!.headers['webhook-id']);
      // A receiver deduplicating on webhook-id sees each change once.
      const changes = receiver.received.filter((d) => bodyOf(d).type !== 'webhook.ping');
      expect(new Set(changes.map((d) => d.headers['webhook-id'])).size).toBe(5);

      // The log: newest first, every attempt with its result; the ping among them; no body anywhere. (Its items
      // are written once the lane's run ends.)
      let log = await deliveries(sub.id);
      for (let i = 0; i < 50 && log.body.entries.length < 3 + 1 + 5; i++) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        log = await deliveries(sub.id);
      }
      expect(log.status).toBe(200);
      expect(log.body.total_entries).toBe(3 + 1 + 5);
      const attempts = [...(log.body.entries as Record<string, unknown>[])].reverse();
      expect(attempts.map((a) => [a.type, a.attempt, a.result])).toEqual([
        ['employee.created', 1, 'HTTP 503'],
        ['employee.created', 2, 'HTTP 503'],
        ['employee.created', 3, 'HTTP 503'],
        ['webhook.ping', 1, 'HTTP 503'],
        ...ids.map(() => ['employee.created', 1, 'HTTP 204']),
      ]);
      expect(attempts.map((a) => a.webhook_id)).toEqual(receiver.received.map((d) => d.headers['webhook-id']));
      expect(attempts[3]!.webhook_id).toBe(pinged.body.webhook_id);
      expect(attempts.slice(4).map((a) => a.cursor)).toEqual(arrived.map((d) => bodyOf(d).cursor));
      for (const a of attempts) {
        expect(Object.keys(a).sort()).toEqual(
          ['attempt', 'attempted_at', 'cursor', 'duration_ms', 'id', 'result', 'type', 'webhook_id'].sort(),
        );
        expect(a.duration_ms).toEqual(expect.any(Number));
      }
      await api.request('DELETE', path(sub.id), { token });
    } finally {
      await receiver.close();
    }
  });

  it('resume from a cursor delivers every entry after it again, each under the webhook-id it had', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const { head } = await feedFrom();
      const sub = await subscribe(receiver.url);
      // One employee's 13 jobs fill its lane with 27 entries, then an application in another lane: read again from
      // `head`, the feed pages them in another order than they arrived, so each entry's cursor differs.
      const employee = await createEmployee('Lane');
      for (let i = 0; i < 13; i++) {
        const job = await api.request('POST', `${API}/employee_jobs`, {
          token,
          body: { employee_id: employee, name: `Job ${i}`, from: '2026-01-01' },
        });
        expect(job.status).toBe(201);
      }
      const application = await api.request('POST', `${API}/applications`, {
        token,
        body: { accept_terms_and_conditions: true, first_name: 'Re', last_name: 'Play', email: 're@example.com' },
      });
      expect(application.status).toBe(201);
      await until(() => receiver.received.length === 28, 'the 28 entries');
      const first = new Map(receiver.received.map((d) => [changeOf(bodyOf(d)), d]));

      const resumed = await resume(sub.id, { from_cursor: head });
      expect(resumed.status).toBe(200);
      await until(() => receiver.received.length === 56, 'the 28 entries again');
      const again = receiver.received.slice(28);
      // Each change once, and each record's changes in the order they were made (feed order: how the pages are
      // cut decides only how different records' changes interleave).
      const { entries: feed } = await feedFrom(head);
      expect(again.map((d) => changeOf(bodyOf(d))).sort()).toEqual(feed.map(changeOf).sort());
      const ofRecord = (entries: FeedEntry[], id: string) => entries.filter((e) => e.id === id).map(changeOf);
      for (const e of feed) expect(ofRecord(again.map(bodyOf), e.id)).toEqual(ofRecord(feed, e.id));
      for (const d of again)
        expect(d.headers['webhook-id']).toBe(first.get(changeOf(bodyOf(d)))?.headers['webhook-id']);
      // What makes this a test of the ids: the replayed entries' cursors are not the ones they first arrived with.
      expect(again.some((d) => bodyOf(d).cursor !== bodyOf(first.get(changeOf(bodyOf(d)))!).cursor)).toBe(true);
      await api.request('DELETE', path(sub.id), { token });
    } finally {
      await receiver.close();
    }
  });

  it('ping: one signed webhook.ping entry whatever the types, answered 202 with its webhook-id, in the log', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const sub = await subscribe(receiver.url, { types: ['application.deleted'] });
      // A few polls: the dispatcher has found it caught up and remembers it so; the ping must still go out.
      await new Promise((r) => setTimeout(r, 3 * POLL_MS));
      const send = () =>
        api.request('POST', path(sub.id, '/ping'), { token, headers: { 'idempotency-key': 'ping-1' } });
      const res = await send();
      expect(res.status).toBe(202);
      // A retry with the same Idempotency-Key answers the same and asks for no second ping.
      expect((await send()).body).toEqual(res.body);
      expect(res.headers.get('location')).toBe(path(sub.id, '/deliveries'));
      await until(() => receiver.received.length === 1, 'the ping');
      const [delivery] = receiver.received as [Delivery];
      expect(delivery.headers['webhook-id']).toBe(res.body.webhook_id);
      const verified = new Webhook(sub.secret).verify(delivery.body, delivery.headers) as FeedEntry;
      expect(verified).toMatchObject({ type: 'webhook.ping', data: { subscription_id: sub.id } });
      expect(verified.occurred_at).toEqual(expect.any(String));
      for (let i = 0; i < 50; i++) {
        const log = await deliveries(sub.id);
        if (log.body.entries.length === 1) {
          expect(log.body.entries).toEqual([
            expect.objectContaining({
              webhook_id: res.body.webhook_id,
              type: 'webhook.ping',
              attempt: 1,
              result: 'HTTP 204',
            }),
          ]);
          break;
        }
        expect(i).toBeLessThan(49);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      await api.request('DELETE', path(sub.id), { token });
    } finally {
      await receiver.close();
    }
  });

  it("another business's subscription is 404 to resume, ping and log; the routes need webhooks:manage", async () => {
    const other = await api.provision({ ...demo, business: { ...demo.business, id: 'ops-other' } });
    const sub = await subscribe('http://127.0.0.1:9/hook');
    for (const res of [await resume(sub.id, {}, other), await ping(sub.id, other), await deliveries(sub.id, '', other)])
      expect(res.status).toBe(404);
    const reader = (await createToken('ops', { name: 'reader', scopes: ['changes:read', 'employees:read'] })).token;
    for (const res of [
      await resume(sub.id, {}, reader),
      await ping(sub.id, reader),
      await deliveries(sub.id, '', reader),
    ])
      expect([res.status, res.body.error]).toEqual([403, 'insufficient_scope']);
    await api.request('DELETE', path(sub.id), { token });
  });
});

describe('resume refuses a cursor it cannot continue from, and changes nothing', () => {
  it('malformed or another business’s: 422 from_cursor; past retention: 410 cursor_expired; within it: 200', async () => {
    const aged = await api.provision({ ...demo, business: { ...demo.business, id: 'aged' } });
    // Three changes 40 days ago, as the writers appended them then.
    const lane = laneOf('application', 'old');
    const old = Date.now() - 40 * DAY;
    const entry = (n: number) => ({
      type: 'application.created' as const,
      id: `old-${n}`,
      occurred_at: new Date(old + n).toISOString(),
      data: { id: `old-${n}` },
    });
    await transactWrite(feedAppendWrites('aged', { lane, n: 0, days: {} }, [entry(1), entry(2), entry(3)], old));
    const at = (seq: number) =>
      encodeCursor(
        'aged',
        Array.from({ length: LANE_COUNT }, (_, l) => (l === lane ? seq : 0)),
      );
    const sub = await subscribe('http://127.0.0.1:9/hook', {}, aged);
    const before = await api.request('GET', path(sub.id), { token: aged });

    const { head: otherCursor } = await feedFrom();
    for (const from_cursor of ['nope', otherCursor, at(4), 42]) {
      const res = await resume(sub.id, { from_cursor }, aged);
      expect([res.status, res.body]).toEqual([422, { from_cursor: ['is invalid'] }]);
    }
    const expired = await resume(sub.id, { from_cursor: at(1) }, aged);
    expect([expired.status, expired.body.error]).toEqual([410, 'cursor_expired']);
    const after = await api.request('GET', path(sub.id), { token: aged });
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));

    // Nothing after the newest of them: nothing was missed, the cursor is good.
    const send = () =>
      api.request('POST', path(sub.id, '/resume'), {
        token: aged,
        body: { from_cursor: at(3) },
        headers: { 'idempotency-key': 'resume-1' },
      });
    const fine = await send();
    expect(fine.status).toBe(200);
    expect(fine.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // Its retry answers the same and writes nothing more.
    const retried = await send();
    expect([retried.status, retried.body, retried.headers.get('etag')]).toEqual([
      200,
      fine.body,
      fine.headers.get('etag'),
    ]);
    expect((await api.request('GET', path(sub.id), { token: aged })).headers.get('etag')).toBe(
      fine.headers.get('etag'),
    );
  });
});

describe('the delivery log (dispatcher runs started by the test)', () => {
  let logs: string;
  beforeAll(async () => {
    logs = await api.provision({ ...demo, business: { ...demo.business, id: 'logs' } });
  });
  const pump = (id: string, now = Date.now) =>
    pumpSubscription('logs', id, Date.now() + 60_000, { ...defaultDeps(), now });

  it('pages newest first in the page envelope with Link; a page costs at most 4 calls, the last one too', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const sub = await subscribe(receiver.url, {}, logs);
      const sent: string[] = [];
      for (let i = 0; i < 7; i++) {
        sent.push((await ping(sub.id, logs)).body.webhook_id as string);
        expect(await pump(sub.id)).toEqual({ state: 'idle' });
      }
      expect(receiver.received.map((d) => d.headers['webhook-id'])).toEqual(sent);
      const newest = [...sent].reverse();

      const page1 = await countCalls(() => deliveries(sub.id, '?per_page=3', logs));
      expect(page1.result.body).toMatchObject({ current_page: 1, per_page: 3, total_entries: 7 });
      expect(page1.result.body.entries.map((e: { webhook_id: string }) => e.webhook_id)).toEqual(newest.slice(0, 3));
      expect(page1.result.headers.get('link')).toContain('rel="next"');
      const page3 = await countCalls(() => deliveries(sub.id, '?per_page=3&page=3', logs));
      expect(page3.result.body.entries.map((e: { webhook_id: string }) => e.webhook_id)).toEqual(newest.slice(6));
      expect(page1.calls).toBeLessThanOrEqual(4);
      expect(page3.calls).toBe(page1.calls);
      const past = await deliveries(sub.id, '?per_page=3&page=4', logs);
      expect(past.body).toEqual({ entries: [], current_page: 4, per_page: 3, total_entries: 7 });
      const ids = new Set<string>();
      for (let p = 1; p <= 3; p++)
        for (const e of (await deliveries(sub.id, `?per_page=3&page=${p}`, logs)).body.entries) ids.add(e.id);
      expect(ids.size).toBe(7);
      expect((await deliveries(sub.id, '?per_page=0', logs)).status).toBe(400);
      expect((await deliveries('wh_nope', '', logs)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('a ping asked for while an attempt is out goes next in the same run, and so does one asked during that ping', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const sub = await subscribe(receiver.url, {}, logs);
      const employee = await createEmployee('Busy', logs);
      const asked: string[] = [];
      const base = defaultDeps();
      // The receiver's answer is awaited here; meanwhile someone asks for a ping.
      const send: typeof base.send = async (s, entry, secret, key) => {
        if (asked.length < 2) asked.push((await ping(sub.id, logs)).body.webhook_id as string);
        return base.send(s, entry, secret, key);
      };
      const run = await pumpSubscription('logs', sub.id, Date.now() + 60_000, { ...base, send });
      expect(run).toEqual({ state: 'idle' });
      expect(receiver.received.map((d) => [bodyOf(d).type, d.headers['webhook-id']])).toEqual([
        ['employee.created', expect.any(String)],
        ['webhook.ping', asked[0]],
        ['webhook.ping', asked[1]],
      ]);
      expect(bodyOf(receiver.received[0]!).id).toBe(employee);
      expect((await deliveries(sub.id, '', logs)).body.total_entries).toBe(3);
    } finally {
      await receiver.close();
    }
  });

  it('shows the attempts of the last 30 days; each attempt expires by TTL after them', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      const sub = await subscribe(receiver.url, {}, logs);
      // Attempts made 32 days ago, 29 days ago and now (the dispatcher's clock set back for the first two).
      const sent: string[] = [];
      for (const now of [() => Date.now() - 32 * DAY, () => Date.now() - 29 * DAY, Date.now]) {
        sent.push((await ping(sub.id, logs)).body.webhook_id as string);
        expect(await pump(sub.id, now)).toEqual({ state: 'idle' });
      }
      expect(receiver.received).toHaveLength(3);

      const log = await deliveries(sub.id, '', logs);
      expect(log.body.total_entries).toBe(2);
      expect(log.body.entries.map((e: { webhook_id: string }) => e.webhook_id)).toEqual([sent[2], sent[1]]);
      const stored = async (seq: number) =>
        (await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookDelivery('logs', sub.id, seq) })))
          .Item as { expires_at: number; attempted_at: string };
      const items = [await stored(1), await stored(2), await stored(3)];
      // TTL removes the oldest already: its expiry has passed.
      expect(items[0]!.expires_at).toBeLessThan(Date.now() / 1000);
      for (const item of items)
        expect(item.expires_at).toBe(Math.floor(Date.parse(item.attempted_at) / 1000) + 31 * 24 * 60 * 60);
    } finally {
      await receiver.close();
    }
  });
});

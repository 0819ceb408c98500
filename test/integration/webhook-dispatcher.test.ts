import { randomBytes } from 'node:crypto';
import demo from '../../fixtures/demo.json';
import {
  useChangeSource,
  type ChangeSource,
  type CursorStatus,
  type FeedEntry,
} from '../../src/services/change-source';
// Wired first (the handlers import it too), so the scripted feed set in beforeAll replaces the real one.
import '../../src/services/feed-wiring';
import {
  defaultDeps,
  pollDue,
  pumpSubscription,
  type CaughtUpMemory,
  type DeliveredEntry,
  type DispatchDeps,
} from '../../src/services/webhook-dispatcher';
import { dynamoStats } from '../../src/data/dynamo/client';
import { createSubscription } from '../../src/services/webhook-subscriptions';
import { adminContext } from '../../src/services/request-context';
import { FieldErrorCollector } from '../../src/domain/errors';
import { API, countCalls, startApi, type TestApi } from '../support/harness';

/**
 * The dispatcher's own logic against subscriptions in DynamoDB Local, with a
 * scripted feed (entries, failures) and a recorded `send` instead of HTTP:
 * what the end-to-end tests (webhooks.test.ts, on the real feed) cannot
 * provoke on purpose.
 */
class ScriptedFeed implements ChangeSource {
  readonly entries = new Map<string, FeedEntry[]>();
  readonly broken = new Set<string>();
  private seq = 0;
  append(businessId: string, type: string): FeedEntry {
    const n = ++this.seq;
    const entry = { cursor: `c${String(n).padStart(8, '0')}`, type, id: `r${n}`, occurred_at: '', data: null };
    this.entries.set(businessId, [...(this.entries.get(businessId) ?? []), entry]);
    return entry;
  }
  readAfter(
    businessId: string,
    cursor: string | null,
    limit: number,
  ): Promise<{ entries: FeedEntry[]; keys: string[] }> {
    if (this.broken.has(businessId)) return Promise.reject(new Error(`feed of ${businessId} unavailable`));
    const all = this.entries.get(businessId) ?? [];
    const entries = all.filter((e) => cursor === null || e.cursor > cursor).slice(0, limit);
    // One lane: an entry's cursor names it whatever the reading started from.
    return Promise.resolve({ entries, keys: entries.map((e) => e.cursor) });
  }
  cursorCheck(businessId: string): Promise<(cursor: string) => CursorStatus> {
    const known = new Set((this.entries.get(businessId) ?? []).map((e) => e.cursor));
    return Promise.resolve((cursor) => (known.has(cursor) ? 'ok' : 'invalid'));
  }
  /** Feed ends being read right now, and the most read at once. */
  endsInFlight = 0;
  mostEndsAtOnce = 0;
  async end(businessId: string): Promise<string | null> {
    this.mostEndsAtOnce = Math.max(this.mostEndsAtOnce, ++this.endsInFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.endsInFlight--;
    return this.entries.get(businessId)?.at(-1)?.cursor ?? null;
  }
}

const feed = new ScriptedFeed();
let api: TestApi;
const tokens: Record<string, string> = {};
const sent: { subscription: string; entry: DeliveredEntry }[] = [];
const saved = { ...process.env };

const deps = (): DispatchDeps => ({
  ...defaultDeps(),
  send: (sub, entry) => {
    sent.push({ subscription: sub.id, entry });
    return Promise.resolve({ ok: true, status: 200 });
  },
});

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString('base64');
  useChangeSource(feed);
  api = await startApi();
  for (const id of ['healthy', 'broken', 'idle'])
    tokens[id] = await api.provision({ ...demo, business: { ...demo.business, id } });
});

afterAll(async () => {
  await api.close();
  process.env = saved;
});

const subscribe = async (business: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const res = await api.request('POST', `${API}/webhook_subscriptions`, {
    token: tokens[business],
    body: { url: 'http://127.0.0.1:9/never-called', ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

it('a business whose feed read fails does not keep the others of the poll from their work', async () => {
  const broken = await subscribe('broken');
  const healthy = await subscribe('healthy');
  feed.broken.add('broken');
  feed.append('broken', 'employee.created');
  const entry = feed.append('healthy', 'employee.created');

  const { work, failures } = await pollDue(Date.now());
  expect(failures).toHaveLength(0);
  expect(work).toContainEqual({ businessId: 'healthy', id: healthy });
  expect(work).toContainEqual({ businessId: 'broken', id: broken });
  expect(await pumpSubscription('healthy', healthy, Date.now() + 60_000, deps())).toEqual({ state: 'idle' });
  expect(sent.filter((s) => s.subscription === healthy).map((s) => s.entry)).toEqual([entry]);
  // Its lane fails on its own; the healthy one was served all the same.
  await expect(pumpSubscription('broken', broken, Date.now() + 60_000, deps())).rejects.toThrow('unavailable');

  // Once the feed answers again, the broken one catches up from where it was.
  feed.broken.delete('broken');
  await pumpSubscription('broken', broken, Date.now() + 60_000, deps());
  expect(sent.filter((s) => s.subscription === broken).map((s) => s.entry)).toEqual(feed.entries.get('broken'));
});

it('idle subscriptions cost no work each: a poll reads each business once, and a subscription only when its feed moved', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await subscribe('idle'));
  const memory: CaughtUpMemory = new Map();
  const first = await pollDue(Date.now(), memory);
  expect(first.work.filter((w) => w.businessId === 'idle')).toEqual([]);

  // Caught up at the same feed end: the poll is the due Query alone (this feed's end costs no call).
  const idle = await countCalls(() => pollDue(Date.now(), memory));
  expect(idle.result.work.filter((w) => w.businessId === 'idle')).toEqual([]);
  expect(idle.calls).toBe(1);

  // The feed moved: its 20 subscriptions are read together (one call) and all have work.
  feed.append('idle', 'employee.created');
  const moved = await countCalls(() => pollDue(Date.now(), memory));
  expect(moved.calls).toBe(2);
  expect(
    moved.result.work
      .filter((w) => w.businessId === 'idle')
      .map((w) => w.id)
      .sort(),
  ).toEqual([...ids].sort());
});

it('a poll with many businesses due reads at most 16 feeds at once and finds the work of every one', async () => {
  // Forty businesses with one subscription each, behind their feed (created through the service: a business
  // needs no provisioning to have a subscription stored).
  const ids = new Map<string, string>();
  for (let i = 0; i < 40; i++) {
    const businessId = `fan-${i}`;
    const res = await createSubscription(
      adminContext(businessId, { method: 'POST', path: '/webhook_subscriptions' }),
      { url: 'http://127.0.0.1:9/never-called' },
      new FieldErrorCollector(),
    );
    ids.set(businessId, (res.body as { id: string }).id);
    feed.append(businessId, 'employee.created');
  }
  feed.mostEndsAtOnce = 0;
  const { work, failures } = await pollDue(Date.now());
  expect(failures).toEqual([]);
  expect(feed.mostEndsAtOnce).toBe(16);
  for (const [businessId, id] of ids) expect(work).toContainEqual({ businessId, id });
});

it('passes over pages of entries it does not want, then delivers the wanted one', async () => {
  const typed = await subscribe('healthy', { types: ['application.created'] });
  // More unwanted entries than one feed page (the dispatcher reads 25 at a time).
  for (let i = 0; i < 60; i++) feed.append('healthy', 'employee.updated');
  const wanted = feed.append('healthy', 'application.created');
  feed.append('healthy', 'employee.updated');

  expect(await pumpSubscription('healthy', typed, Date.now() + 60_000, deps())).toEqual({ state: 'idle' });
  expect(sent.filter((s) => s.subscription === typed).map((s) => s.entry)).toEqual([wanted]);
  const show = await api.request('GET', `${API}/webhook_subscriptions/${typed}`, { token: tokens.healthy });
  expect(show.body).toMatchObject({ status: 'active', last_delivery_error: null });
});

it('stops before a delivery could outlast its deadline, and leaves the entry for the next run', async () => {
  const late = await subscribe('healthy');
  const entry = feed.append('healthy', 'employee.created');
  expect(await pumpSubscription('healthy', late, Date.now() + 1_000, deps())).toEqual({ state: 'out-of-time' });
  expect(sent.filter((s) => s.subscription === late)).toEqual([]);
  expect(await pumpSubscription('healthy', late, Date.now() + 60_000, deps())).toEqual({ state: 'idle' });
  expect(sent.filter((s) => s.subscription === late).map((s) => s.entry)).toEqual([entry]);
});

it('a delete is at most three calls: token, subscription, one transaction', async () => {
  const id = await subscribe('healthy');
  const del = await countCalls(() =>
    api.request('DELETE', `${API}/webhook_subscriptions/${id}`, { token: tokens.healthy }),
  );
  expect(del.result.status).toBe(204);
  // Besides, at most once a second, the rate counts' UpdateItem (contract §18), sent beside the request.
  const { BatchGetItemCommand = 0, TransactWriteItemsCommand, GetItemCommand = 0 } = dynamoStats.byCommand;
  expect(TransactWriteItemsCommand).toBe(1);
  expect(BatchGetItemCommand + GetItemCommand).toBeLessThanOrEqual(2);
});

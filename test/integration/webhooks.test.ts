import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import demo from '../../fixtures/demo.json';
import { useChangeSource, type ChangeSource, type FeedEntry } from '../../src/services/change-source';
import { useLookup, type Lookup } from '../../src/services/webhook-delivery';
import { pumpSubscription, startLocalDispatcher } from '../../src/services/webhook-dispatcher';
import { expectDeliveryMatchesContract } from '../support/contract';
import { API, startApi, type TestApi } from '../support/harness';

/**
 * Contract §14 end to end: the local server's handlers, DynamoDB Local, the
 * same dispatcher `npm start` runs (polling every 20 ms here), and a receiver
 * on 127.0.0.1. The change feed is an in-memory source with the feed's shape
 * (cursors in commit order), appended to by the test.
 */
class MemoryFeed implements ChangeSource {
  private readonly byBusiness = new Map<string, FeedEntry[]>();
  private seq = 0;
  append(businessId: string, type: string, id: string): FeedEntry {
    const entry = {
      cursor: `c${String(++this.seq).padStart(8, '0')}`,
      type,
      id,
      occurred_at: new Date().toISOString(),
      data: { id, n: this.seq },
    };
    const list = this.byBusiness.get(businessId) ?? [];
    list.push(entry);
    this.byBusiness.set(businessId, list);
    return entry;
  }
  readAfter(businessId: string, cursor: string | null, limit: number): Promise<{ entries: FeedEntry[] }> {
    const list = this.byBusiness.get(businessId) ?? [];
    return Promise.resolve({ entries: list.filter((e) => cursor === null || e.cursor > cursor).slice(0, limit) });
  }
  end(businessId: string): Promise<string | null> {
    return Promise.resolve(this.byBusiness.get(businessId)?.at(-1)?.cursor ?? null);
  }
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1: records every POST, answers per path from a script (default 200). */
class Receiver {
  readonly received: Received[] = [];
  readonly script = new Map<string, number[]>();
  private server!: Server;
  base = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const status = this.script.get(path)?.shift() ?? 200;
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Name resolution for the test: a map, never real DNS. */
const dnsTable = new Map<string, string>();
const stubLookup = ((
  hostname: string,
  options: { all?: boolean } | number | undefined,
  callback: (e: NodeJS.ErrnoException | null, a?: string | LookupAddress[], f?: number) => void,
) => {
  const address = dnsTable.get(hostname);
  if (!address) {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return;
  }
  const family = address.includes(':') ? 6 : 4;
  if (typeof options === 'object' && options?.all) callback(null, [{ address, family }]);
  else callback(null, address, family);
}) as unknown as Lookup;

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let api: TestApi;
let token: string;
let otherToken: string;
const feed = new MemoryFeed();
const receiver = new Receiver();
let stopDispatcher: () => Promise<void>;
const saved = { ...process.env };

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString('base64');
  // Two retries after the first attempt, 50 ms apart.
  process.env.WEBHOOK_RETRY_DELAYS = '0.05,0.05';
  useChangeSource(feed);
  useLookup(stubLookup);
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: 'hooks' } });
  otherToken = await api.provision({ ...demo, business: { ...demo.business, id: 'other' } });
  await receiver.start();
  stopDispatcher = startLocalDispatcher(20);
});

afterAll(async () => {
  await stopDispatcher();
  await receiver.stop();
  await api.close();
  useLookup(undefined);
  process.env = saved;
});

/** The subscription as GET shows it, once `ready` holds. */
async function eventually(
  id: string,
  ready: (s: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 1000; i++) {
    const res = await api.request('GET', `${API}/webhook_subscriptions/${id}`, { token });
    if (ready(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`subscription ${id} never reached the expected state`);
}

const subscribe = (url: string, extra: Record<string, unknown> = {}, t = token) =>
  api.request('POST', `${API}/webhook_subscriptions`, { token: t, body: { url, ...extra } });

describe('subscribe, receive, verify', () => {
  it('delivers the changes committed after subscribing, in feed order, signed per Standard Webhooks', async () => {
    feed.append('hooks', 'employee.created', 'before');
    const res = await subscribe(`${receiver.base}/ordered`);
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`${API}/webhook_subscriptions/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: `${receiver.base}/ordered`,
      types: null,
      status: 'active',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const sent = [1, 2, 3, 4, 5].map((n) => feed.append('hooks', 'employee.updated', `e${n}`));
    await until(() => receiver.at('/ordered').length >= 5, 'five deliveries');

    const got = receiver.at('/ordered');
    expect(got.map((r) => JSON.parse(r.body) as FeedEntry)).toEqual(sent);
    const wh = new Webhook(res.body.secret as string);
    for (const r of got) {
      expectDeliveryMatchesContract(r.body, r.headers);
      expect(wh.verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Number(r.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    }
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(5);
    // A tampered body does not verify.
    const first = got[0] as Received;
    expect(() => wh.verify(first.body.replace('e1', 'e9'), first.headers as Record<string, string>)).toThrow();
  });

  it('shows the subscription without its secret; lists it with the page envelope', async () => {
    const { body: sub } = await subscribe(`${receiver.base}/shown`, { types: ['application.created'] });
    const show = await api.request('GET', `${API}/webhook_subscriptions/${sub.id}`, { token });
    expect(show.status).toBe(200);
    expect(show.body).toEqual({
      id: sub.id,
      url: `${receiver.base}/shown`,
      types: ['application.created'],
      status: 'active',
      last_delivery_error: null,
      created_at: sub.created_at,
    });
    expect(show.text).not.toContain('whsec_');
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=1&page=2`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: 2, per_page: 1, total_entries: 2 });
    expect(list.body.entries).toEqual([show.body]);
    expect(list.headers.get('link')).toContain('rel="prev"');
    expect(list.text).not.toContain('whsec_');
  });

  it('only the chosen types are delivered', async () => {
    const { body: sub } = await subscribe(`${receiver.base}/typed`, { types: ['application.created'] });
    feed.append('hooks', 'employee.created', 'x1');
    const wanted = feed.append('hooks', 'application.created', 'a1');
    feed.append('hooks', 'employee.updated', 'x2');
    const last = feed.append('hooks', 'application.created', 'a2');
    await until(() => receiver.at('/typed').length >= 2, 'two typed deliveries');
    expect(receiver.at('/typed').map((r) => JSON.parse(r.body) as FeedEntry)).toEqual([wanted, last]);
    expect(sub.types).toEqual(['application.created']);
  });

  it('an idempotent replay answers the same subscription and the same secret; nothing new is created', async () => {
    const headers = { 'Idempotency-Key': `k-${randomBytes(4).toString('hex')}` };
    const body = { url: `${receiver.base}/idem` };
    const first = await api.request('POST', `${API}/webhook_subscriptions`, { token, body, headers });
    const again = await api.request('POST', `${API}/webhook_subscriptions`, { token, body, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
    expect((list.body.entries as { id: string }[]).filter((e) => e.id === first.body.id)).toHaveLength(1);
    await api.request('DELETE', `${API}/webhook_subscriptions/${first.body.id}`, { token });
  });
});

describe('retries', () => {
  it('500 twice then 200: the entry arrives three times with one webhook-id, then the next ones in order', async () => {
    receiver.script.set('/flaky', [500, 500]);
    const { body: sub } = await subscribe(`${receiver.base}/flaky`);
    const a = feed.append('hooks', 'employee.created', 'f1');
    const b = feed.append('hooks', 'employee.created', 'f2');
    const c = feed.append('hooks', 'employee.created', 'f3');
    await until(() => receiver.at('/flaky').length >= 5, 'three attempts and two more entries');
    const got = receiver.at('/flaky');
    expect(got.map((r) => (JSON.parse(r.body) as FeedEntry).cursor)).toEqual([
      a.cursor,
      a.cursor,
      a.cursor,
      b.cursor,
      c.cursor,
    ]);
    const ids = got.map((r) => r.headers['webhook-id']);
    expect(new Set(ids.slice(0, 3)).size).toBe(1);
    expect(ids[3]).not.toBe(ids[0]);
    const show = await api.request('GET', `${API}/webhook_subscriptions/${sub.id}`, { token });
    expect(show.body.status).toBe('active');
  });

  it('after the last retry the subscription is disabled with the error, and receives nothing more', async () => {
    receiver.script.set(
      '/down',
      Array.from({ length: 50 }, () => 503),
    );
    const { body: sub } = await subscribe(`${receiver.base}/down`);
    feed.append('hooks', 'employee.created', 'd1');
    await until(() => receiver.at('/down').length >= 3, 'three attempts');
    const show = await eventually(sub.id as string, (s) => s.status === 'disabled');
    expect(show).toMatchObject({ status: 'disabled', last_delivery_error: 'HTTP 503' });

    // A control subscription proves the dispatcher has passed over the disabled one since.
    const { body: control } = await subscribe(`${receiver.base}/control-disabled`);
    feed.append('hooks', 'employee.created', 'd2');
    await until(() => receiver.at('/control-disabled').length >= 1, 'control delivery');
    expect(receiver.at('/down')).toHaveLength(3);
    await api.request('DELETE', `${API}/webhook_subscriptions/${control.id}`, { token });
  });
});

describe('concurrent dispatcher runs', () => {
  it('never deliver an entry twice or out of order (conditional cursor moves)', async () => {
    const { body: sub } = await subscribe(`${receiver.base}/race`);
    const sent = Array.from({ length: 12 }, (_, i) => feed.append('hooks', 'employee.updated', `r${i}`));
    // Four extra runs race the local dispatcher's own for the same subscription.
    await Promise.all([1, 2, 3, 4].map(() => pumpSubscription('hooks', sub.id as string, Date.now() + 60_000)));
    await until(() => receiver.at('/race').length >= 12, 'twelve deliveries');
    const { body: control } = await subscribe(`${receiver.base}/control-race`);
    const after = feed.append('hooks', 'employee.created', 'after-race');
    await until(
      () => receiver.at('/control-race').length >= 1 && receiver.at('/race').length >= 13,
      'control delivery',
    );
    // The control delivery shows the dispatcher went past /race again: still exactly once each, in order.
    expect(receiver.at('/race').map((r) => (JSON.parse(r.body) as FeedEntry).cursor)).toEqual(
      [...sent, after].map((e) => e.cursor),
    );
    await api.request('DELETE', `${API}/webhook_subscriptions/${control.id}`, { token });
    await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
  });
});

describe('delete and tenancy', () => {
  it('a deleted subscription receives nothing more and is 404 afterwards', async () => {
    const { body: sub } = await subscribe(`${receiver.base}/deleted`);
    feed.append('hooks', 'employee.created', 'g1');
    await until(() => receiver.at('/deleted').length >= 1, 'first delivery');
    const del = await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const { body: control } = await subscribe(`${receiver.base}/control-deleted`);
    feed.append('hooks', 'employee.created', 'g2');
    feed.append('hooks', 'employee.created', 'g3');
    await until(() => receiver.at('/control-deleted').length >= 2, 'control deliveries');
    expect(receiver.at('/deleted')).toHaveLength(1);
    expect((await api.request('GET', `${API}/webhook_subscriptions/${sub.id}`, { token })).status).toBe(404);
    expect((await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token })).status).toBe(404);
    await api.request('DELETE', `${API}/webhook_subscriptions/${control.id}`, { token });
  });

  it("another business's subscription is 404 to read and delete, absent from lists, and keeps its deliveries", async () => {
    const { body: theirs } = await subscribe(`${receiver.base}/theirs`, {}, otherToken);
    const get = await api.request('GET', `${API}/webhook_subscriptions/${theirs.id}`, { token });
    const missing = await api.request('GET', `${API}/webhook_subscriptions/wh_nope`, { token });
    expect(get.status).toBe(404);
    expect(get.body.error).toBe(missing.body.error);
    expect((await api.request('DELETE', `${API}/webhook_subscriptions/${theirs.id}`, { token })).status).toBe(404);
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
    expect((list.body.entries as { id: string }[]).map((e) => e.id)).not.toContain(theirs.id);
    // Our feed never reaches their subscription, theirs does.
    feed.append('hooks', 'employee.created', 'ours-only');
    const entry = feed.append('other', 'employee.created', 'theirs-only');
    await until(() => receiver.at('/theirs').length >= 1, 'their delivery');
    expect(receiver.at('/theirs').map((r) => JSON.parse(r.body) as FeedEntry)).toEqual([entry]);
  });

  it('without a token: 401', async () => {
    expect((await api.request('GET', `${API}/webhook_subscriptions`, {})).status).toBe(401);
  });
});

describe('SSRF: refused targets (name resolution stubbed, no traffic to them)', () => {
  it.each([
    ['http to a public host', 'http://hooks.example.com/x'],
    ['a private address', 'https://10.0.0.5/x'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['a host resolving to a private address', 'https://internal.test/x'],
    ['a host resolving to the metadata address', 'https://metadata.test/x'],
    ['a host resolving to link-local IPv6', 'https://linklocal.test/x'],
    ['a multicast address', 'https://224.0.0.1/x'],
    ['a host that does not resolve', 'https://nowhere.test/x'],
    ['credentials in the URL', 'https://u:p@public.test/x'],
    ['not a URL', 'hooks'],
  ])('%s → 422 is not allowed', async (_what, url) => {
    dnsTable.set('internal.test', '192.168.0.7');
    dnsTable.set('metadata.test', '169.254.169.254');
    dnsTable.set('linklocal.test', 'fe80::1');
    dnsTable.set('public.test', '93.184.216.34');
    const res = await subscribe(url);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ url: ['is not allowed'] });
  });

  it('loopback is refused outside local mode', async () => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK = '0';
    try {
      expect((await subscribe(`${receiver.base}/x`)).body).toEqual({ url: ['is not allowed'] });
      expect((await subscribe('https://localhost/x')).status).toBe(422);
    } finally {
      process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
    }
  });

  it('a bad body answers every field at once', async () => {
    const res = await api.request('POST', `${API}/webhook_subscriptions`, {
      token,
      body: { url: 5, types: ['employee.fired'] },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body).sort()).toEqual(['types', 'url']);
  });

  it('a host that resolves to a public address when subscribing and to the metadata address later is refused at delivery', async () => {
    dnsTable.set('rebind.test', '93.184.216.34');
    const res = await subscribe('https://rebind.test/hook');
    expect(res.status).toBe(201);
    // From now on the name points at the metadata service: the agent must refuse before connecting.
    dnsTable.set('rebind.test', '169.254.169.254');
    feed.append('hooks', 'employee.created', 'r1');
    const show = await eventually(res.body.id as string, (s) => s.status === 'disabled');
    expect(show).toMatchObject({ status: 'disabled', last_delivery_error: 'url is not allowed' });
  });
});

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import demo from '../../fixtures/demo.json';
import { useLookup, type Lookup } from '../../src/services/webhook-urls';
import { pumpSubscription, startLocalDispatcher } from '../../src/services/webhook-dispatcher';
import '../../src/services/feed-wiring';
import { expectDeliveryMatchesContract } from '../support/contract';
import { setEnvForFile } from '../support/env';
import { API, startApi, type TestApi } from '../support/harness';
import { until } from '../support/until';

/**
 * Contract §14 end to end, on the real change feed (§13): writes through the
 * API's handlers, DynamoDB Local, the dispatcher `npm start` runs (polling
 * every POLL_MS here), and a receiver on 127.0.0.1. Every delivery body must be
 * exactly the entry `GET /changes` shows for that change.
 */

interface FeedEntry {
  cursor: string;
  type: string;
  id: string;
  occurred_at: string;
  data: Record<string, unknown> | null;
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (epoch ms). */
  at: number;
}

/** A receiver on 127.0.0.1: records every POST, answers per path from a script (default 200). */
class Receiver {
  readonly received: Received[] = [];
  readonly script = new Map<string, number[]>();
  /** Milliseconds before answering, per path. */
  readonly delayMs = new Map<string, number>();
  /** Paths that never answer. */
  readonly hanging = new Set<string>();
  private readonly held: import('node:http').ServerResponse[] = [];
  /** Paths that answer 200 with a body that never ends; how long each such answer lasted, in ms. */
  readonly streaming = new Set<string>();
  readonly streamLasted: number[] = [];
  private server!: Server;
  base = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        if (this.hanging.has(path)) return void this.held.push(res);
        if (this.streaming.has(path)) return this.stream(res);
        const status = this.script.get(path)?.shift() ?? 200;
        setTimeout(() => res.writeHead(status).end(), this.delayMs.get(path) ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** 200, then 64 KiB chunks as fast as the client takes them, until it hangs up. */
  private stream(res: import('node:http').ServerResponse): void {
    const started = Date.now();
    const chunk = Buffer.alloc(64 * 1024, 'x');
    res.writeHead(200, { 'content-type': 'text/plain' });
    let open = true;
    res.on('close', () => {
      open = false;
      this.streamLasted.push(Date.now() - started);
    });
    const pump = (): void => {
      while (open && res.write(chunk));
      if (open) res.once('drain', pump);
    };
    pump();
  }
  /** Ends every answer held by a hanging path (500). */
  release(): void {
    for (const res of this.held.splice(0)) res.writeHead(500).end();
  }
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
  entriesAt(path: string): FeedEntry[] {
    return this.at(path).map((r) => JSON.parse(r.body) as FeedEntry);
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      // Hanging answers would keep the server open.
      this.server.closeAllConnections();
    });
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

/**
 * The dispatcher's poll interval (`npm start`: 1 s). Each poll reads the due subscriptions and every due
 * business's feed end, so a shorter one re-reads the same state more often; 0.1 s adds at most a poll to
 * each wait. The second dispatcher of 'several local processes' polls faster, to race this one.
 */
const POLL_MS = 100;

// Tokens are kept as deployed (lib/api-stack.ts): one lookup per token, not one per request. What a token's
// lookup costs, and a revoked one ending on every instance, are token-cache.test.ts's and instances.test.ts's.
setEnvForFile('AUTH_CACHE_SECONDS', '60');

let api: TestApi;
let token: string;
let otherToken: string;
const receiver = new Receiver();
let stopDispatcher: () => Promise<void>;
const dispatcherErrors: unknown[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString('base64');
  // Two retries after the first attempt, 50 ms apart.
  process.env.WEBHOOK_RETRY_DELAYS = '0.05,0.05';
  useLookup(stubLookup);
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: 'hooks' } });
  otherToken = await api.provision({ ...demo, business: { ...demo.business, id: 'other' } });
  await receiver.start();
  stopDispatcher = startLocalDispatcher(POLL_MS, undefined, (error) => dispatcherErrors.push(error));
});

afterAll(async () => {
  await stopDispatcher();
  await receiver.stop();
  await api.close();
  useLookup(undefined);
  process.env = saved;
});

afterEach(() => {
  // The dispatcher never failed a run (the feed and the table answered every read).
  expect(dispatcherErrors).toEqual([]);
});

/** The subscription as GET shows it, once `ready` holds. */
async function eventually(
  id: string,
  ready: (s: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const res = await api.request('GET', `${API}/webhook_subscriptions/${id}`, { token });
    if (ready(res.body)) return res.body;
    // A state change needs a poll of the dispatcher first: asking more often reads the same answer again.
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`subscription ${id} never reached the expected state`);
}

const subscribe = (url: string, extra: Record<string, unknown> = {}, t = token) =>
  api.request('POST', `${API}/webhook_subscriptions`, { token: t, body: { url, ...extra } });

/** A write through the API: a new employee (one `employee.created` entry); its id. */
async function createEmployee(name: string, t = token): Promise<string> {
  const res = await api.request('POST', `${API}/employees`, {
    token: t,
    body: { first_name: name, last_name: 'Hook' },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function updateEmployee(id: string, name: string): Promise<void> {
  const res = await api.request('PUT', `${API}/employees/${id}`, { token, body: { first_name: name } });
  expect(res.status).toBe(200);
}

async function createApplication(name: string): Promise<string> {
  const res = await api.request('POST', `${API}/applications`, {
    token,
    body: { accept_terms_and_conditions: true, first_name: name, last_name: 'Hook', email: 'hook@example.com' },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The whole feed of a business as `GET /changes` pages it, oldest first. */
async function feed(t = token): Promise<FeedEntry[]> {
  const entries: FeedEntry[] = [];
  let after: string | undefined;
  for (;;) {
    const res = await api.request('GET', `${API}/changes?limit=500${after ? `&after=${after}` : ''}`, { token: t });
    expect(res.status).toBe(200);
    entries.push(...(res.body.entries as FeedEntry[]));
    if ((res.body.entries as FeedEntry[]).length === 0) return entries;
    after = res.body.next_cursor as string;
  }
}

/** The feed's entries about these records, in feed order. */
const feedAbout = async (ids: readonly string[], t = token): Promise<FeedEntry[]> =>
  (await feed(t)).filter((e) => ids.includes(e.id));

describe('subscribe, receive, verify', () => {
  it('delivers the changes committed after subscribing, each exactly its feed entry, in feed order, signed per Standard Webhooks', async () => {
    const before = await createEmployee('Before');
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
    const first = await createEmployee('One');
    await updateEmployee(before, 'Before-Renamed');
    const application = await createApplication('Three');
    await updateEmployee(first, 'One-Renamed');
    const ids = [before, first, application];
    await until(() => receiver.at('/ordered').length >= 4, 'four deliveries');

    const got = receiver.at('/ordered');
    const expected = await feedAbout(ids);
    // The creation of `before` was committed before the subscription: not delivered.
    expect(expected.map((e) => e.type)).toEqual([
      'employee.created',
      'employee.created',
      'employee.updated',
      'application.created',
      'employee.updated',
    ]);
    expect(got.map((r) => JSON.parse(r.body) as FeedEntry)).toEqual(expected.slice(1));
    // Audit fields (contract §20) travel with the entry: who made the write, and the field a rename changed.
    const renamed = JSON.parse(got[3]!.body) as Record<string, unknown>;
    expect(renamed).toMatchObject({ actor: { type: 'token' }, changed_fields: ['first_name'] });
    expect(renamed.request_id).toEqual(expect.any(String));
    const wh = new Webhook(res.body.secret as string);
    for (const r of got) {
      expectDeliveryMatchesContract(r.body, r.headers);
      expect(wh.verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Number(r.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    }
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(4);
    // A tampered body does not verify.
    const one = got[0] as Received;
    expect(() => wh.verify(one.body.replace('One', 'Uno'), one.headers as Record<string, string>)).toThrow();
    await api.request('DELETE', `${API}/webhook_subscriptions/${res.body.id}`, { token });
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
    const all = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
    const position = (all.body.entries as { id: string }[]).findIndex((e) => e.id === sub.id) + 1;
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=1&page=${position}`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: position, per_page: 1, total_entries: all.body.total_entries });
    expect(list.body.entries).toEqual([show.body]);
    expect(all.text).not.toContain('whsec_');
    await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
  });

  it('only the chosen types are delivered', async () => {
    const { body: sub } = await subscribe(`${receiver.base}/typed`, { types: ['application.created'] });
    const employee = await createEmployee('Skipped');
    const a1 = await createApplication('Wanted-1');
    await updateEmployee(employee, 'Skipped-Too');
    const a2 = await createApplication('Wanted-2');
    await until(() => receiver.at('/typed').length >= 2, 'two typed deliveries');
    const wanted = (await feedAbout([employee, a1, a2])).filter((e) => e.type === 'application.created');
    expect(receiver.entriesAt('/typed')).toEqual(wanted);
    await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
  });

  it('an idempotent replay answers the same subscription and the same secret; nothing new is created', async () => {
    const headers = { 'Idempotency-Key': `k-${randomBytes(4).toString('hex')}` };
    const body = { url: `${receiver.base}/idem` };
    const first = await api.request('POST', `${API}/webhook_subscriptions`, { token, body, headers });
    const again = await api.request('POST', `${API}/webhook_subscriptions`, { token, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
    expect((list.body.entries as { id: string }[]).filter((e) => e.id === first.body.id)).toHaveLength(1);
    await api.request('DELETE', `${API}/webhook_subscriptions/${first.body.id}`, { token });
  });
});

describe('isolation (contract §14)', () => {
  it('a slow, a hanging and a streaming receiver beside healthy ones: theirs arrive within 5 s of each commit, in order, once', async () => {
    receiver.delayMs.set('/slow', 4000);
    receiver.hanging.add('/hanging');
    receiver.streaming.add('/streaming');
    const troubled = await Promise.all(
      ['/slow', '/hanging', '/streaming'].map((p) => subscribe(`${receiver.base}${p}`)),
    );
    const { body: same } = await subscribe(`${receiver.base}/healthy-same`);
    const { body: other } = await subscribe(`${receiver.base}/healthy-other`, {}, otherToken);
    const ours: { id: string; committed: number }[] = [];
    const theirs: { id: string; committed: number }[] = [];
    // Three rounds of commits while the troubled receivers hold their deliveries (the hanging one 10 s each).
    for (let round = 0; round < 3; round++) {
      ours.push({ id: await createEmployee(`Iso${round}`), committed: Date.now() });
      theirs.push({ id: await createEmployee(`IsoOther${round}`, otherToken), committed: Date.now() });
      await new Promise((r) => setTimeout(r, 1500));
    }
    await until(() => receiver.at('/healthy-same').length >= 3 && receiver.at('/healthy-other').length >= 3, 'healthy');
    // In order and once each, exactly their feed entries.
    expect(receiver.entriesAt('/healthy-same')).toEqual(await feedAbout(ours.map((o) => o.id)));
    expect(receiver.entriesAt('/healthy-other')).toEqual(
      await feedAbout(
        theirs.map((t) => t.id),
        otherToken,
      ),
    );
    // On time: each within 5 s of its commit (the local contract), though the others were stuck.
    const lateness = (path: string, commits: { committed: number }[]): number[] =>
      receiver.at(path).map((r, i) => r.at - (commits[i]?.committed ?? 0));
    for (const late of [...lateness('/healthy-same', ours), ...lateness('/healthy-other', theirs)])
      expect(late).toBeLessThan(5000);

    // The streaming answer was cut after its first 64 KiB: a success, each stream over within a second.
    await until(() => receiver.at('/streaming').length >= 3 && receiver.streamLasted.length >= 3, 'streams');
    expect(receiver.streamLasted.every((ms) => ms < 1000)).toBe(true);
    const streamed = await api.request('GET', `${API}/webhook_subscriptions/${troubled[2]!.body.id}`, { token });
    expect(streamed.body).toMatchObject({ status: 'active', last_delivery_error: null });
    // The slow one gets everything too, in order; the hanging one has timed out.
    await until(() => receiver.at('/slow').length >= 3, 'slow deliveries');
    expect(receiver.entriesAt('/slow')).toEqual(await feedAbout(ours.map((o) => o.id)));
    const hung = await eventually(troubled[1]!.body.id as string, (b) => b.last_delivery_error !== null);
    expect(hung.last_delivery_error).toBe('timeout');

    for (const sub of [...troubled.map((t) => t.body), same])
      await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
    await api.request('DELETE', `${API}/webhook_subscriptions/${other.id}`, { token: otherToken });
    receiver.release();
  }, 60_000);
});

describe('retries', () => {
  it('500 twice then 200: the entry arrives three times with one webhook-id, then the next ones in order', async () => {
    receiver.script.set('/flaky', [500, 500]);
    const { body: sub } = await subscribe(`${receiver.base}/flaky`);
    const ids = [await createEmployee('F1'), await createEmployee('F2'), await createEmployee('F3')];
    await until(() => receiver.at('/flaky').length >= 5, 'three attempts and two more entries');
    const [a, b, c] = await feedAbout(ids);
    const got = receiver.at('/flaky');
    expect(got.map((r) => JSON.parse(r.body) as FeedEntry)).toEqual([a, a, a, b, c]);
    const webhookIds = got.map((r) => r.headers['webhook-id']);
    expect(new Set(webhookIds.slice(0, 3)).size).toBe(1);
    expect(new Set(webhookIds.slice(2)).size).toBe(3);
    const show = await api.request('GET', `${API}/webhook_subscriptions/${sub.id}`, { token });
    expect(show.body).toMatchObject({ status: 'active', last_delivery_error: 'HTTP 500' });
    await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
  });

  it('after the last retry the subscription is disabled with the error, and receives nothing more', async () => {
    receiver.script.set(
      '/down',
      Array.from({ length: 50 }, () => 503),
    );
    const { body: sub } = await subscribe(`${receiver.base}/down`);
    await createEmployee('D1');
    await until(() => receiver.at('/down').length >= 3, 'three attempts');
    const show = await eventually(sub.id as string, (s) => s.status === 'disabled');
    expect(show).toMatchObject({ status: 'disabled', last_delivery_error: 'HTTP 503' });

    // A control subscription proves the dispatcher has passed over the disabled one since.
    const { body: control } = await subscribe(`${receiver.base}/control-disabled`);
    await createEmployee('D2');
    await until(() => receiver.at('/control-disabled').length >= 1, 'control delivery');
    expect(receiver.at('/down')).toHaveLength(3);
    await api.request('DELETE', `${API}/webhook_subscriptions/${control.id}`, { token });
  });
});

describe('concurrent dispatcher runs', () => {
  it('never deliver an entry twice or out of order (conditional cursor moves)', async () => {
    // A slow receiver, so entries pile up while they are written and the runs below find work to fight over.
    receiver.delayMs.set('/race', 100);
    const { body: sub } = await subscribe(`${receiver.base}/race`);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await createEmployee(`R${i}`));
    // Four extra runs race the local dispatcher's own for the same subscription.
    await Promise.all([1, 2, 3, 4].map(() => pumpSubscription('hooks', sub.id as string, Date.now() + 60_000)));
    await until(() => receiver.at('/race').length >= 12, 'twelve deliveries');
    const { body: control } = await subscribe(`${receiver.base}/control-race`);
    const after = await createEmployee('After-Race');
    await until(
      () => receiver.at('/control-race').length >= 1 && receiver.at('/race').length >= 13,
      'control delivery',
    );
    // The control delivery shows the dispatcher went past /race again: still exactly once each, in feed order.
    expect(receiver.entriesAt('/race')).toEqual(await feedAbout([...ids, after]));
    await api.request('DELETE', `${API}/webhook_subscriptions/${control.id}`, { token });
    await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
  });
});

describe('several local processes', () => {
  it('two dispatchers polling one table (INSTANCES > 1) deliver each entry once, in order', async () => {
    const second = startLocalDispatcher(20, undefined, (error) => dispatcherErrors.push(error));
    try {
      receiver.delayMs.set('/twice', 30);
      const { body: sub } = await subscribe(`${receiver.base}/twice`);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(await createEmployee(`Twice${i}`));
      await until(() => receiver.at('/twice').length >= 8, 'eight deliveries');
      // Both dispatchers have polled past the last entry since: still once each.
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.entriesAt('/twice')).toEqual(await feedAbout(ids));
      await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
    } finally {
      await second();
    }
  });
});

describe('delete and tenancy', () => {
  it('a deleted subscription receives nothing more and is 404 afterwards', async () => {
    const { body: sub } = await subscribe(`${receiver.base}/deleted`);
    await createEmployee('G1');
    await until(() => receiver.at('/deleted').length >= 1, 'first delivery');
    const del = await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const { body: control } = await subscribe(`${receiver.base}/control-deleted`);
    await createEmployee('G2');
    await createEmployee('G3');
    await until(() => receiver.at('/control-deleted').length >= 2, 'control deliveries');
    expect(receiver.at('/deleted')).toHaveLength(1);
    expect((await api.request('GET', `${API}/webhook_subscriptions/${sub.id}`, { token })).status).toBe(404);
    expect((await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token })).status).toBe(404);
    await api.request('DELETE', `${API}/webhook_subscriptions/${control.id}`, { token });
  });

  it("another business's subscription is 404 to read and delete, absent from lists, and gets only its own changes", async () => {
    const { body: theirs } = await subscribe(`${receiver.base}/theirs`, {}, otherToken);
    const get = await api.request('GET', `${API}/webhook_subscriptions/${theirs.id}`, { token });
    const missing = await api.request('GET', `${API}/webhook_subscriptions/wh_nope`, { token });
    expect(get.status).toBe(404);
    expect(get.body.error).toBe(missing.body.error);
    expect((await api.request('DELETE', `${API}/webhook_subscriptions/${theirs.id}`, { token })).status).toBe(404);
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
    expect((list.body.entries as { id: string }[]).map((e) => e.id)).not.toContain(theirs.id);
    // Our changes never reach their subscription; theirs do.
    await createEmployee('Ours-Only');
    const their = await createEmployee('Theirs-Only', otherToken);
    await until(() => receiver.at('/theirs').length >= 1, 'their delivery');
    expect(receiver.entriesAt('/theirs')).toEqual(await feedAbout([their], otherToken));
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
    await createEmployee('Rebind');
    const show = await eventually(res.body.id as string, (s) => s.status === 'disabled');
    expect(show).toMatchObject({ status: 'disabled', last_delivery_error: 'connection failed' });
  });

  it.each([
    ['IPv4-compatible metadata', 'https://[::a9fe:a9fe]/x'],
    ['IPv4-compatible, dotted', 'https://[::169.254.169.254]/x'],
    ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/x'],
    ['NAT64 of the metadata address', 'https://[64:ff9b::a9fe:a9fe]/x'],
    ['local-use NAT64', 'https://[64:ff9b:1::a9fe:a9fe]/x'],
    ['6to4 of a private address', 'https://[2002:a00:5::1]/x'],
    ['Teredo', 'https://[2001:0:4136:e378:8000:63bf:5601:5601]/x'],
    ['a host resolving to an IPv4-compatible address', 'https://compat.test/x'],
  ])('%s → 422 is not allowed', async (_what, url) => {
    dnsTable.set('compat.test', '::a9fe:a9fe');
    const res = await subscribe(url);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ url: ['is not allowed'] });
  });

  it('a host that later resolves to an IPv4-compatible or NAT64 spelling of the metadata address is refused at delivery', async () => {
    for (const [host, later] of [
      ['compat-rebind.test', '::a9fe:a9fe'],
      ['nat64-rebind.test', '64:ff9b::a9fe:a9fe'],
    ] as const) {
      dnsTable.set(host, '93.184.216.34');
      const res = await subscribe(`https://${host}/hook`);
      expect(res.status).toBe(201);
      dnsTable.set(host, later);
      await createEmployee(`Rebind ${host}`);
      const show = await eventually(res.body.id as string, (s) => s.status === 'disabled');
      expect(show).toMatchObject({ status: 'disabled', last_delivery_error: 'connection failed' });
    }
  });
});

describe('what a subscription tells', () => {
  it('last_delivery_error is `connection failed` for a closed port, nothing about the network', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { body: sub } = await subscribe(`http://127.0.0.1:${port}/closed`);
    await createEmployee('Closed');
    const show = await eventually(sub.id as string, (s) => s.last_delivery_error !== null);
    expect(show.last_delivery_error).toBe('connection failed');
    await api.request('DELETE', `${API}/webhook_subscriptions/${sub.id}`, { token });
  });

  it("a replay of a deleted subscription's create answers 410 subscription_deleted, localized, without the secret", async () => {
    const headers = { 'idempotency-key': `del-${randomBytes(4).toString('hex')}` };
    const body = { url: `${receiver.base}/replayed` };
    const first = await api.request('POST', `${API}/webhook_subscriptions`, { token, body, headers });
    expect(first.status).toBe(201);
    expect((await api.request('DELETE', `${API}/webhook_subscriptions/${first.body.id}`, { token })).status).toBe(204);
    const replay = await api.request('POST', `${API}/webhook_subscriptions`, { token, body, headers });
    expect(replay.status).toBe(410);
    expect(replay.body).toMatchObject({ error: 'subscription_deleted', request_id: expect.any(String) });
    expect(replay.body.message).toMatch(/deleted/);
    expect(replay.text).not.toContain('whsec_');
    expect(replay.headers.get('x-request-id')).toBeTruthy();
    const german = await api.request('POST', `${API}/webhook_subscriptions`, {
      token,
      body,
      headers: { ...headers, 'accept-language': 'de' },
    });
    expect(german.status).toBe(410);
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.body.message).toMatch(/gelöscht/);
    // Nothing was created by the replays.
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token });
    expect((list.body.entries as { url: string }[]).filter((e) => e.url === body.url)).toEqual([]);
  });
});

describe('at most 20 subscriptions per business', () => {
  it('the 21st answers 422 with a field map, also when they race; a delete makes room; a replay still answers', async () => {
    const capped = await api.provision({ ...demo, business: { ...demo.business, id: 'capped' } });
    const key = { 'idempotency-key': 'cap-first' };
    const first = await api.request('POST', `${API}/webhook_subscriptions`, {
      token: capped,
      body: { url: `${receiver.base}/cap/0` },
      headers: key,
    });
    expect(first.status).toBe(201);
    const rest = await Promise.all(
      Array.from({ length: 21 }, (_, i) => subscribe(`${receiver.base}/cap/${i + 1}`, {}, capped)),
    );
    expect(rest.filter((r) => r.status === 201)).toHaveLength(19);
    const refused = rest.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ webhook_subscriptions: ['must be less than or equal to 20'] });
    }
    const list = await api.request('GET', `${API}/webhook_subscriptions?per_page=100`, { token: capped });
    expect(list.body.entries).toHaveLength(20);
    // A replay of one of the 20 answers as the first time, at the cap.
    const replay = await api.request('POST', `${API}/webhook_subscriptions`, {
      token: capped,
      body: { url: `${receiver.base}/cap/0` },
      headers: key,
    });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    // Deleting one makes room for exactly one.
    await api.request('DELETE', `${API}/webhook_subscriptions/${first.body.id}`, { token: capped });
    expect((await subscribe(`${receiver.base}/cap/again`, {}, capped)).status).toBe(201);
    expect((await subscribe(`${receiver.base}/cap/over`, {}, capped)).status).toBe(422);
  });
});

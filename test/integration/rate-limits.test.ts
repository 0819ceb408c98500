import demo from '../../fixtures/demo.json';
import { createToken } from '../../src/data/token-store';
import { dynamoStats } from '../../src/data/dynamo/client';
import { rateCountsSent } from '../../src/data/rate-counts';
import { advanceClock } from '../support/rate-clock';
import { API, countCalls, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { TOKEN_ROUTES, createSampleRecords, sampleRequest, type SampleIds } from '../support/route-samples';
import { scanAll } from '../support/table-scan';
import { proxyTheApi, type FaultModes } from '../support/dynamo-proxy';
import { getItem } from '../../src/data/dynamo/table-io';
import { keys } from '../../src/data/dynamo/keys';
import { hashToken } from '../../src/data/token-store';
import { until } from '../support/until';

/**
 * Contract §18 on one instance (the server runs in this process): the fields on
 * every answer with a valid token, the token's and the business's limits, 429s
 * that change nothing and cost no call once refused, and what counting costs.
 * Several instances: test/integration/instances.test.ts.
 */
let api: TestApi;

beforeAll(async () => {
  api = await startApi();
}, 60_000);
afterAll(() => api.close());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fixture = (id: string, limits: object) => ({ ...demo, business: { ...demo.business, id, ...limits } });
const get = (token: string, path = '/locations/hq', headers: Record<string, string> = {}) =>
  api.request('GET', `${API}${path}`, { token, headers });
const fields = (res: ApiResponse) => ({
  policy: res.headers.get('ratelimit-policy'),
  state: res.headers.get('ratelimit'),
});
const remaining = (res: ApiResponse, limit: 'token' | 'business'): number =>
  Number(new RegExp(`"${limit}";r=(\\d+)`).exec(res.headers.get('ratelimit') ?? '')?.[1] ?? NaN);
const FIELD_PATTERN = /^"token";r=\d+;t=\d+, "business";r=\d+;t=\d+$/;

describe('the RateLimit fields', () => {
  let token: string;
  let ids: SampleIds;
  beforeAll(async () => {
    token = await api.provision(fixture('fields', {}));
    ids = await createSampleRecords(api, token);
  }, 60_000);

  it.each(TOKEN_ROUTES.map((r) => [r.name, r] as const))(
    '%s: on its answer, with the limits of the token',
    async (_n, route) => {
      const sample = sampleRequest(route, ids);
      const res = await api.request(sample.method, sample.path, {
        token,
        body: sample.body,
        headers: sample.headers ?? {},
      });
      expect(res.status).toBeLessThan(300);
      // Test fixtures set 100000 per 10 s for both (test/support/harness.ts) unless they set their own.
      expect(fields(res)).toEqual({
        policy: '"token";q=100000;w=10, "business";q=100000;w=10',
        state: expect.stringMatching(FIELD_PATTERN),
      });
    },
  );

  it('a fresh token of 600 per 60 s: t is the window, not more (its first request leaves the window within 61 s)', async () => {
    const fresh = await api.provision(
      fixture('fresh60', {
        token_rate_limit: { requests: 600, window_seconds: 60 },
        rate_limit: { requests: 3000, window_seconds: 60 },
      }),
    );
    expect(fields(await get(fresh))).toEqual({
      policy: '"token";q=600;w=60, "business";q=3000;w=60',
      state: '"token";r=599;t=60, "business";r=2999;t=60',
    });
  });

  it('on errors of a valid token (404, 422, 403), never on a 401 or a public route', async () => {
    const notFound = await get(token, '/employees/nope');
    const invalid = await api.request('POST', `${API}/employees`, { token, body: { first_name: '' } });
    const readOnly = (await createToken('fields', { scopes: ['reference:read'] })).token;
    const forbidden = await api.request('POST', `${API}/employees`, { token: readOnly, body: {} });
    for (const res of [notFound, invalid, forbidden])
      expect({ status: res.status, ...fields(res) }).toEqual({
        status: res.status,
        policy: expect.stringContaining('"token";q='),
        state: expect.stringMatching(FIELD_PATTERN),
      });
    expect([notFound.status, invalid.status, forbidden.status]).toEqual([404, 422, 403]);
    const unknown = await get(`${token.slice(0, -8)}AAAAAAAA`);
    const none = await api.request('GET', `${API}/locations/hq`);
    const docs = await api.request('GET', `${API}/openapi.json`);
    for (const res of [unknown, none, docs]) expect(fields(res)).toEqual({ policy: null, state: null });
  });
});

describe("a token's limit", () => {
  // 5 requests per 10 s for each token of this business; the business itself far above. The instance's rate clock
  // is moved on where a test would wait for the window (advanceClock).
  let token: string;
  beforeAll(async () => {
    token = await api.provision(fixture('tok5', { token_rate_limit: { requests: 5, window_seconds: 10 } }));
  });

  it('admits N in its window, then 429 rate_limited with Retry-After until the window frees capacity', async () => {
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 8; i++) answers.push(await get(token));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(answers.slice(0, 5).map((a) => remaining(a, 'token'))).toEqual([4, 3, 2, 1, 0]);
    const refused = answers[5]!;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(11);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message:
        'This token exceeded its rate limit of 5 requests per 10 seconds; nothing was done, retry in ' +
        `${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}`,
      request_id: expect.any(String),
    });
    expect(fields(refused)).toEqual({
      policy: '"token";q=5;w=10, "business";q=100000;w=10',
      state: expect.stringMatching(/^"token";r=0;t=([1-9]|10), "business";r=\d+;t=\d+$/),
    });
    // Refused again by what this instance counts (before the pipeline, src/http/auth.ts): the same answer.
    for (const again of answers.slice(6)) {
      expect(again.body).toEqual({
        ...refused.body,
        message: expect.stringMatching(/^This token exceeded its rate limit of 5 requests per 10 seconds/),
        request_id: expect.any(String),
      });
      expect(fields(again)).toEqual(fields(refused));
      expect(again.headers.get('retry-after')).toMatch(/^([1-9]|1[01])$/);
      for (const name of ['content-type', 'content-language', 'cache-control', 'x-content-type-options'])
        expect([name, again.headers.get(name)]).toEqual([name, refused.headers.get(name)]);
      expect(again.headers.get('x-request-id')).toBe((again.body as { request_id: string }).request_id);
    }
    // Retry-After is true: a second before it passes the window admits nothing or says 1 s; then it admits.
    advanceClock((retryAfter - 1) * 1000);
    const early = await get(token);
    if (early.status === 429) expect(early.headers.get('retry-after')).toBe('1');
    advanceClock(1000);
    expect((await get(token)).status).toBe(200);
  });

  it("answers the 429 in the client's language (contract §16)", async () => {
    // The window slides: on a loaded machine its oldest admission may leave it between two requests, and one
    // of them is admitted. Each language asks until it is refused (at most a few admissions of 5).
    const refusedIn = async (language: string): Promise<ApiResponse> => {
      for (let i = 0; i < 12; i++) {
        const res = await get(token, '/locations/hq', { 'accept-language': language });
        if (res.status === 429) return res;
      }
      throw new Error(`no 429 in 12 requests (accept-language: ${language})`);
    };
    const de = await refusedIn('de-AT,de;q=0.9');
    const it = await refusedIn('it');
    const en = await refusedIn('fr');
    expect(de.headers.get('content-language')).toBe('de');
    expect(de.body.message).toMatch(
      /^Dieses Token hat sein Limit von 5 Anfragen pro 10 Sekunden überschritten; nichts wurde ausgeführt, bitte in \d+ Sekunden? erneut versuchen$/,
    );
    expect(it.headers.get('content-language')).toBe('it');
    expect(it.body.message).toMatch(
      /^Questo token ha superato il limite di 5 richieste ogni 10 secondi; non è stato eseguito nulla, riprova tra \d+ second[oi]$/,
    );
    expect(en.headers.get('content-language')).toBe('en');
    expect([de.body.error, it.body.error, en.body.error]).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
  });

  it('once refused, refuses again without any DynamoDB call until the window frees capacity', async () => {
    while ((await get(token)).status !== 429);
    // What the admitted requests counted goes out on a timer of its own, beside whatever request runs then: sent
    // first, so that the calls counted below are the refusal's alone.
    await rateCountsSent();
    // The next refusal (the sliding window may admit one request first when its oldest admission leaves it).
    let again = await countCalls(() => get(token, '/employees?per_page=5'));
    for (let i = 0; i < 5 && again.result.status !== 429; i++)
      again = await countCalls(() => get(token, '/employees?per_page=5'));
    expect(again.result.status).toBe(429);
    expect({ calls: again.calls, beside: dynamoStats.besideCalls }).toEqual({ calls: 0, beside: 0 });
  });

  it('is per token: another token of the business is not refused', async () => {
    while ((await get(token)).status !== 429);
    const other = (await createToken('tok5', { name: 'other' })).token;
    expect((await get(other)).status).toBe(200);
  });
});

describe("a business's limit over all its tokens", () => {
  it('refuses every token once their sum reaches it, naming the business', async () => {
    const first = await api.provision(fixture('biz6', { rate_limit: { requests: 6, window_seconds: 10 } }));
    const second = (await createToken('biz6', { name: 'second' })).token;
    const statuses: number[] = [];
    let last: ApiResponse | undefined;
    for (let i = 0; i < 10; i++) {
      last = await get(i % 2 === 0 ? first : second);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    expect(last!.body.message).toMatch(
      /^This business \(all its tokens together\) exceeded its rate limit of 6 requests per 10 seconds/,
    );
    expect(remaining(last!, 'business')).toBe(0);
    expect(last!.headers.get('ratelimit-policy')).toBe('"token";q=100000;w=10, "business";q=6;w=10');
    // A token the instance has not seen yet is refused too (after its token read).
    const third = (await createToken('biz6', { name: 'third' })).token;
    expect((await get(third)).status).toBe(429);
  });
});

describe('a refused request has no effect (contract §18)', () => {
  it('writes nothing, and its Idempotency-Key is a first attempt when sent again after the wait', async () => {
    const token = await api.provision(fixture('noeffect', { token_rate_limit: { requests: 2, window_seconds: 10 } }));
    // Totals read with a token of their own: each token has its own limit.
    const reader = (await createToken('noeffect', { name: 'reader' })).token;
    const total = async (): Promise<number> =>
      (await get(reader, '/employees?per_page=1')).body.total_entries as number;
    const before = await total();
    expect(Number.isInteger(before)).toBe(true);
    // Five creates at once, each with its own key, from a token that may send two: two are created, and
    // three refused by the token check their first read carries (nothing read is handed out, no transaction).
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
    const send = (key: string) =>
      api.request('POST', `${API}/employees`, {
        token,
        headers: { 'idempotency-key': key },
        body: { first_name: 'Rate', last_name: key },
      });
    const answers = await Promise.all(keys.map(send));
    const refused = keys.filter((_k, i) => answers[i]!.status === 429);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 429, 429, 429]);
    const items = await scanAll();
    for (const key of refused) expect(items.some((i) => String(i.PK).endsWith(`#idem#${key}`))).toBe(false);
    expect(await total()).toBe(before + 2);
    advanceClock(11_000);

    // After the wait, the refused keys create (201, new ids), and a repeat of one is its replay.
    const retried: ApiResponse[] = [];
    for (const key of refused.slice(0, 2)) retried.push(await send(key));
    expect(retried.map((a) => a.status)).toEqual([201, 201]);
    advanceClock(11_000);
    const replay = await send(refused[0]!);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(retried[0]!.body.id);
    expect(await total()).toBe(before + 4);
  }, 30_000);
});

describe('what counting costs', () => {
  it('a warm single read stays one call while its counts are fresh; a due sync goes out beside it', async () => {
    const token = await api.provision(fixture('cost', {}));
    const ids = await createSampleRecords(api, token);
    const path = `/employees/${ids.employee}`;
    // Warm: the instance keeps the token's lookup, as deployed (AUTH_CACHE_SECONDS=60).
    process.env.AUTH_CACHE_SECONDS = '3600';
    try {
      // Counts due (the setup's last sync is over a second old): this read syncs them beside itself, so the
      // next read, right after, finds them fresh whatever the machine's load made of the setup's timing. The
      // setup's counts are stored first: else a sync on its timer during the sleep makes the read's counts due
      // only a moment later, when the next read may find them so.
      await rateCountsSent();
      await sleep(1100);
      await get(token, path);
      const fresh = await countCalls(() => get(token, path));
      expect(fresh.result.status).toBe(200);
      expect({ calls: fresh.calls, beside: dynamoStats.besideCalls }).toEqual({ calls: 1, beside: 0 });
      // More than a second later the counts are due: token and business synced beside the read, not in front of it.
      await sleep(2100);
      const due = await countCalls(() => get(token, path));
      expect({ calls: due.calls, roundTrips: due.roundTrips, beside: dynamoStats.besideCalls }).toEqual({
        calls: 1,
        roundTrips: 1,
        beside: 2,
      });
    } finally {
      process.env.AUTH_CACHE_SECONDS = '0';
    }
  });
});

describe('counting when DynamoDB fails the syncs (fault proxy)', () => {
  /** The requests a counter item holds, over all its slices. */
  const stored = async (key: { PK: string; SK: string }) => {
    const item = await getItem(key);
    const total = Object.entries(item ?? {})
      .filter(([name]) => /^s\d+$/.test(name))
      .reduce((sum, [, n]) => sum + Number(n), 0);
    return { total, expires: item?.expires_at };
  };
  /** Until every count this instance holds is known stored (no sync interval slept through). */
  const settled = () => rateCountsSent();

  it('answers as usual, keeps the limit on its own counts, and sends them once DynamoDB takes them again', async () => {
    const token = await api.provision(fixture('faulty', { token_rate_limit: { requests: 4, window_seconds: 10 } }));
    expect((await get(token)).status).toBe(200);
    // Every UpdateItem (the syncs: these GETs write nothing else) throttled from here on.
    const proxy = await proxyTheApi({ throttle: 1, operations: ['UpdateItem'] });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await get(token)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // A sync goes out and is throttled (beside answers that are not).
      await until(() => (proxy.stats.faults.throttle ?? 0) > 0, 'a throttled sync');
      proxy.setModes({});
      // The failed sync is tried again a second after the last attempt: the counts arrive without another request.
      await settled();
      // The first request (synced before the faults, maybe cut off by the switch to the proxy) and the three
      // admitted while the syncs failed, each once.
      expect(await stored(keys.tokenRate('faulty', hashToken(token)))).toEqual({
        total: 4,
        expires: expect.any(Number),
      });
    } finally {
      await proxy.restore();
    }
  }, 30_000);

  it('counts a sync once that was stored but answered too late, or answered 500, and sent again', async () => {
    const proxy = await proxyTheApi();
    try {
      const token = await api.provision(fixture('late', {}));
      expect((await get(token)).status).toBe(200);
      await settled();
      const counted = async () => ({
        token: (await stored(keys.tokenRate('late', hashToken(token)))).total,
        business: (await stored(keys.businessRate('late'))).total,
      });
      // Until the token's and the business's sync hit `fault` (each stored): then DynamoDB answers again.
      const syncsFailing = async (modes: FaultModes, fault: string, requests: number) => {
        proxy.resetStats();
        proxy.setModes({ ...modes, operations: ['UpdateItem'] });
        for (let i = 0; i < requests; i++) expect((await get(token)).status).toBe(200);
        await until(() => (proxy.stats.faults[fault] ?? 0) >= 2, `the token's and the business's syncs: ${fault}`);
        proxy.setModes({});
        await settled();
        // Each sent again (the stored sync's answer never reached the instance), yet counted once.
        return { sent: (proxy.stats.requests.UpdateItem ?? 0) >= 4, counted: await counted() };
      };
      // Stored at once, answered after 1.5 s: after the sync was given up (1 s).
      expect(await syncsFailing({ delayAnswerMs: 1500 }, 'delayAnswer', 3)).toEqual({
        sent: true,
        counted: { token: 4, business: 4 },
      });
      // Stored, answered 500 InternalServerError: the SDK tries again at once (refused: stored), and so does the
      // next sync.
      expect(await syncsFailing({ applyThenFail: 1 }, 'applyThenFail', 2)).toEqual({
        sent: true,
        counted: { token: 6, business: 6 },
      });
    } finally {
      await proxy.restore();
    }
  }, 30_000);
});

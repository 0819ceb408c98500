import { setEnvForFile } from '../support/env';
import demo from '../../fixtures/demo.json';
import { dynamoStats } from '../../src/data/dynamo/client';
import { createToken, revokeToken } from '../../src/data/token-store';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import {
  TOKEN_ROUTES,
  createSampleRecords,
  sampleRequest,
  successStatus,
  type SampleIds,
} from '../support/route-samples';

/**
 * Token lookups cached per instance for AUTH_CACHE_SECONDS (contract §15): the
 * server runs in this process, so this file's setting is what its handlers read.
 */
let api: TestApi;
let token: string;
let ids: SampleIds;
const BUSINESS = 'cached';
setEnvForFile('AUTH_CACHE_SECONDS', '3600');

beforeAll(async () => {
  api = await startApi();
  token = await api.provision({ ...demo, business: { ...demo.business, id: BUSINESS } });
  ids = await createSampleRecords(api, token);
}, 60_000);
afterAll(async () => {
  await api.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sendSample = (route: (typeof TOKEN_ROUTES)[number], t: string) => {
  const sample = sampleRequest(route, ids);
  return api.request(sample.method, sample.path, { token: t, body: sample.body, headers: sample.headers ?? {} });
};
const get = (path: string, t = token) => api.request('GET', `${API}${path}`, { token: t });

describe('a warm token saves its lookup on every route', () => {
  it.each(TOKEN_ROUTES.map((r) => [r.name, r] as const))(
    '%s: a warm token costs one DynamoDB call less than a cold one (its GetItem), none on a list page',
    async (_n, route) => {
      const fresh = (await createToken(BUSINESS, { name: 'cache' })).token;
      // The instance reads the list once first (page hints: which position maps go with the summary), so the
      // two measured requests differ only in the token cache.
      await sendSample(route, token);
      const cold = await countCalls(() => sendSample(route, fresh));
      const warm = await countCalls(() => sendSample(route, fresh));
      // The DELETE sample's application was erased by the first request: 404 both times; its import was
      // cancelled: 409 (import_finished) both times.
      const expected =
        route.name === 'delete-application'
          ? [404, 404]
          : route.name === 'delete-import'
            ? [409, 409]
            : [successStatus(route), successStatus(route)];
      expect([cold.result.status, warm.result.status]).toEqual(expected);
      // A list page reads a cold token with its records (the route table's tokenAlong): no call of its own.
      expect(warm.calls).toBe(cold.calls - ('tokenAlong' in route ? 0 : 1));
    },
  );

  it('an instance keeps no entry per DynamoDB call, so serving for hours does not grow its memory', () => {
    // Every route above ran in this process (the last one's calls are still counted); only `npm run bench:cost`
    // asks for the calls in order.
    expect(dynamoStats.calls).toBeGreaterThan(0);
    expect(dynamoStats.log).toEqual([]);
  });

  it('a repeated single-record GET is one DynamoDB call', async () => {
    await get(`/employees/${ids.employee}`);
    for (const path of [
      `/employees/${ids.employee}`,
      `/employee_jobs/${ids.job}`,
      `/applications/${ids.application}`,
      '/locations/hq',
    ]) {
      const { result, calls } = await countCalls(() => get(path));
      expect({ path, status: result.status, calls }).toEqual({ path, status: 200, calls: 1 });
    }
  });

  it('a list page with a cached token: 2 round trips for a dense list, 3 for a list with holes', async () => {
    for (const [path, calls, roundTrips] of [
      // Counter and the key-only Query side by side, then the records.
      ['/locations?page=2&per_page=1', 3, 2],
      // The summary's Query and the Query of the maps the page hint names; the key-only Query; the records with the
      // config.
      ['/employees?page=2&per_page=1', 4, 3],
    ] as const) {
      await get(path);
      const counted = await countCalls(() => get(path));
      expect(counted.result.status).toBe(200);
      expect({ path, calls: counted.calls, roundTrips: counted.roundTrips }).toEqual({ path, calls, roundTrips });
    }
  });
});

describe("a list page reads a cold token with its records (the route table's tokenAlong)", () => {
  const unknown = `hr_${'B'.repeat(43)}_${Buffer.from(BUSINESS).toString('base64url')}`;

  it('an unknown token naming the business gets 401 and nothing of the page, after one more lookup of its own', async () => {
    const refused = await countCalls(() => get('/applications?per_page=2', unknown));
    expect({ status: refused.result.status, error: refused.result.body.error }).toEqual({
      status: 401,
      error: 'unauthorized',
    });
    expect(refused.result.text).not.toContain(ids.application);
    // Not found with the records (which may be read eventually consistent): looked up again, consistently.
    expect(refused.calls - (await countCalls(() => get('/applications?per_page=2'))).calls).toBe(1);
  });

  it('a token created a moment ago lists at once, and is kept', async () => {
    const fresh = (await createToken(BUSINESS, { name: 'lister' })).token;
    const first = await countCalls(() => get('/employees?per_page=1', fresh));
    expect(first.result.status).toBe(200);
    // Kept as a lookup of its own would be: revoked now, it still lists within AUTH_CACHE_SECONDS.
    expect(await revokeToken(fresh)).toBe(true);
    const again = await countCalls(() => get('/employees?per_page=1', fresh));
    expect({ status: again.result.status, calls: again.calls }).toEqual({ status: 200, calls: first.calls });
    expect(again.result.body).toEqual(first.result.body);
  });

  it("a page refused before its read reads its token on its own: the token's refusal first, else the page's", async () => {
    const badPage = await get('/applications?per_page=0', unknown);
    expect(badPage.status).toBe(401);
    const fresh = (await createToken(BUSINESS, { name: 'bad-query' })).token;
    const refused = await countCalls(() => get('/applications?per_page=0', fresh));
    expect({ status: refused.result.status, calls: refused.calls }).toEqual({ status: 400, calls: 1 });
  });
});

describe('what the cache keeps and for how long', () => {
  it('a token created a moment ago works at once (unknown tokens are not kept)', async () => {
    const pending = `hr_${'A'.repeat(43)}_${Buffer.from(BUSINESS).toString('base64url')}`;
    expect((await get('/locations/hq', pending)).status).toBe(401);
    const fresh = (await createToken(BUSINESS, { name: 'new' })).token;
    expect((await get('/locations/hq', fresh)).status).toBe(200);
    const again = await countCalls(() => get('/locations/hq', pending));
    expect(again.result.status).toBe(401);
    // Not kept: looked up again, beside the read it went with (a read's token costs no round trip of its own).
    expect({ calls: again.calls, roundTrips: again.roundTrips }).toEqual({ calls: 2, roundTrips: 1 });
  });

  it('a revoked token works until its lookup is older than AUTH_CACHE_SECONDS, then 401', async () => {
    const doomed = (await createToken(BUSINESS, { name: 'doomed' })).token;
    expect((await get('/locations/hq', doomed)).status).toBe(200);
    expect(await revokeToken(doomed)).toBe(true);
    // Inside the window (3600 s here): still served from the instance's cache, without a lookup.
    const cached = await countCalls(() => get('/locations/hq', doomed));
    expect({ status: cached.result.status, calls: cached.calls }).toEqual({ status: 200, calls: 1 });
    process.env.AUTH_CACHE_SECONDS = '1';
    try {
      await sleep(1100);
      const res = await get('/locations/hq', doomed);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      process.env.AUTH_CACHE_SECONDS = '3600';
    }
  });

  it('expiry is exact even while the lookup is kept', async () => {
    // Expires within the next 2 seconds (whole seconds are stored).
    const created = await createToken(BUSINESS, { name: 'brief', expiresInDays: 2 / 86_400 });
    await get('/locations/hq', created.token); // kept from now on, whatever it answered
    await sleep(Math.max(0, Date.parse(created.expires_at ?? '') - Date.now()) + 50);
    const { result, calls } = await countCalls(() => get('/locations/hq', created.token));
    expect({ status: result.status, message: result.body.message, calls }).toEqual({
      status: 401,
      message: 'This token has expired',
      calls: 0,
    });
  });

  it('AUTH_CACHE_SECONDS=0 reads the token on every request: a single read is 2 calls', async () => {
    process.env.AUTH_CACHE_SECONDS = '0';
    try {
      await get(`/employees/${ids.employee}`);
      expect((await countCalls(() => get(`/employees/${ids.employee}`))).calls).toBe(2);
    } finally {
      process.env.AUTH_CACHE_SECONDS = '3600';
    }
  });
});

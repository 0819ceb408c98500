import { setEnvForFile } from '../support/env';
import demo from '../../fixtures/demo.json';
import { createToken, storeToken } from '../../src/data/token-store';
import { SCOPES } from '../../src/domain/scopes';
import { scopesOf } from '../../src/http/routes';
import { API, countCalls, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { dynamoStats } from '../../src/data/dynamo/client';
import {
  TOKEN_ROUTES,
  createSampleRecords,
  sampleRecordIds,
  sampleRequest,
  type SampleIds,
  type SampleRequest,
} from '../support/route-samples';
import { businessItems } from '../support/table-scan';
import { useLookup, type Lookup } from '../../src/services/webhook-urls';
import { claimingBusiness, withBusinessPart } from '../support/token-formats';

/**
 * Tokens name their business (src/data/token-store.ts), with the local default
 * AUTH_CACHE_SECONDS=0 (no kept lookups). What must hold: a token whose
 * business part was altered is unknown (401) and nothing of either business
 * comes back or changes; scope and token are decided before the body.
 */
let api: TestApi;
/** Every scope, of business A (OURS) and B (THEIRS). */
let ours: string;
let theirs: string;
let ids: SampleIds;
let theirIds: SampleIds;

/** Seven characters: their base64url has spare bits, so a non-canonical spelling of it exists. */
const OURS = 'fmt-abc';
const THEIRS = 'fmt-other';
setEnvForFile('AUTH_CACHE_SECONDS', '0');

beforeAll(async () => {
  api = await startApi();
  ours = await api.provision({ ...demo, business: { ...demo.business, id: OURS } });
  theirs = await api.provision({ ...demo, business: { ...demo.business, id: THEIRS } });
  // The DELETE samples take ours, once each (the forged request, refused); theirs are never the target of one.
  theirIds = await createSampleRecords(api, theirs, { doomed: 0 });
  ids = await createSampleRecords(api, ours, { doomed: 1 });
}, 90_000);
afterAll(async () => {
  await api.close();
});

const send = (sample: SampleRequest, token: string, body: unknown = sample.body): Promise<ApiResponse> =>
  api.request(sample.method, sample.path, { token, body });

/** The business data of the table (records, counters, feeds, subscriptions) of both businesses; tokens excluded. */
const businessData = (): Promise<unknown[]> => businessItems(OURS, THEIRS);

const WRITE_COMMANDS = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'];
/** The DynamoDB write commands `send` issued (the server runs in this process). */
const writesOf = async (send: () => Promise<ApiResponse>): Promise<{ res: ApiResponse; writes: string[] }> => {
  const { result: res } = await countCalls(send);
  return { res, writes: WRITE_COMMANDS.filter((c) => (dynamoStats.byCommand[c] ?? 0) > 0) };
};

const UNKNOWN_TOKEN = {
  status: 401,
  challenge: 'Bearer realm="api", error="invalid_token"',
  body: { error: 'unauthorized', message: 'Unknown or revoked token', request_id: expect.any(String) },
};
const refusal = (res: ApiResponse) => ({
  status: res.status,
  challenge: res.headers.get('www-authenticate'),
  body: res.body as unknown,
});

/** Nothing of either business in an answer: no record id, no business id or name. */
function expectNothingOfEither(res: ApiResponse): void {
  for (const id of [...sampleRecordIds(ids), ...sampleRecordIds(theirIds), OURS, THEIRS, demo.business.name])
    expect(res.text).not.toContain(id);
}

describe('a token that names its business', () => {
  it('looks like any token of ours: hr_, the 43-character secret, _, the business in base64url', async () => {
    const { token } = await createToken(OURS);
    expect(token).toMatch(/^hr_[A-Za-z0-9_-]{43}_[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token.slice(47), 'base64url').toString()).toBe(OURS);
  });
});

describe('an altered business part is an unknown token: 401, nothing of either business answered or changed', () => {
  /** A's secret with B's business, B's with A's, a business that does not exist, and a non-canonical A. */
  const forgeries = (): Record<string, string> => {
    const encodedOurs = Buffer.from(OURS).toString('base64url');
    const last = encodedOurs.slice(-1);
    // Same top bits, other spare bits: decodes to OURS too, but is not how we spell it.
    const sameBits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(last) ^ 1;
    const nonCanonical =
      encodedOurs.slice(0, -1) + 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[sameBits];
    expect(Buffer.from(nonCanonical, 'base64url').toString()).toBe(OURS);
    return {
      'ours with their business spliced in': claimingBusiness(ours, THEIRS),
      'theirs with our business spliced in': claimingBusiness(theirs, OURS),
      'ours naming a business that does not exist': claimingBusiness(ours, 'no-such-business'),
      'ours with its business part spelled another way': withBusinessPart(ours, nonCanonical),
      'ours with its business part cut short': ours.slice(0, -2),
    };
  };

  /** Both businesses before the forged requests; each forged request also checks on its own that it wrote nothing. */
  let before: unknown[];
  beforeAll(async () => {
    before = await businessData();
  });

  it.each(TOKEN_ROUTES.map((r) => [r.name, r] as const))('%s', async (_n, route) => {
    const sample = sampleRequest(route, ids);
    for (const [label, token] of Object.entries(forgeries())) {
      const { res, writes } = await writesOf(() => send(sample, token));
      expect({ label, writes, ...refusal(res) }).toEqual({ label, writes: [], ...UNKNOWN_TOKEN });
      expectNothingOfEither(res);
    }
  });

  it('none of the forged requests above changed anything of either business', async () => {
    expect(await businessData()).toEqual(before);
  });
});

it('a stored token naming another business than the one it was issued for (never issued so: a tampered table) is refused', async () => {
  const mislabelled = claimingBusiness((await createToken(OURS)).token, THEIRS);
  await storeToken(mislabelled, OURS);
  for (const path of [`/employees/${theirIds.employee}`, '/employees', `/employees/${ids.employee}`]) {
    const res = await api.request('GET', `${API}${path}`, { token: mislabelled });
    expect({ path, ...refusal(res) }).toEqual({ path, ...UNKNOWN_TOKEN });
    expectNothingOfEither(res);
  }
});

it('a subscription with a forged token: 401 before its URL is resolved', async () => {
  const looked: string[] = [];
  useLookup(((
    host: string,
    _options: unknown,
    callback: (e: null, a: { address: string; family: number }[]) => void,
  ) => {
    looked.push(host);
    callback(null, [{ address: '93.184.216.34', family: 4 }]); // public: allowed; nothing is delivered here
  }) as unknown as Lookup);
  try {
    const path = `${API}/webhook_subscriptions`;
    const body = { url: 'https://hooks.example.test/x' };
    const res = await api.request('POST', path, { token: claimingBusiness(theirs, OURS), body });
    expect(refusal(res)).toEqual(UNKNOWN_TOKEN);
    expect(looked).toEqual([]);
    expect((await api.request('POST', path, { token: ours, body })).status).toBe(201);
    expect(looked).toEqual(['hooks.example.test']);
  } finally {
    useLookup(undefined);
  }
});

describe('refusals come before the body and the query, as with any token', () => {
  // Writes that take a body (a ping takes none).
  const writes = TOKEN_ROUTES.filter((r) => (r.method === 'POST' || r.method === 'PUT') && 'request' in r);
  const lists = TOKEN_ROUTES.filter((r) => r.method === 'GET' && !r.path.endsWith('}'));

  it.each(writes.map((r) => [r.name, r] as const))(
    '%s: a body the schema refuses (422) with a forged token is 401, without the scope 403',
    async (_n, route) => {
      const sample = sampleRequest(route, ids);
      const bad = { first_name: 42, url: 42, employee_id: 42 };
      expect((await send(sample, ours, bad)).status).toBe(422);
      expect(refusal(await send(sample, claimingBusiness(ours, THEIRS), bad))).toEqual(UNKNOWN_TOKEN);
      const scopeless = (await createToken(OURS, { scopes: SCOPES.filter((s) => !scopesOf(route).includes(s)) })).token;
      const res = await send(sample, scopeless, bad);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 403, error: 'insufficient_scope' });
      const unparsable = await api.request(sample.method, sample.path, {
        token: claimingBusiness(ours, THEIRS),
        rawBody: '{"not json',
        headers: { 'content-type': 'application/json' },
      });
      expect(refusal(unparsable)).toEqual(UNKNOWN_TOKEN);
    },
  );

  it.each(lists.map((r) => [r.name, r] as const))(
    '%s: a query refused (400) with a forged token is 401, without the scope 403',
    async (_n, route) => {
      const path = `${route.path}?per_page=0&page=x`;
      expect((await api.request('GET', path, { token: ours })).status).toBe(400);
      expect(refusal(await api.request('GET', path, { token: claimingBusiness(ours, THEIRS) }))).toEqual(UNKNOWN_TOKEN);
      const scopeless = (await createToken(OURS, { scopes: SCOPES.filter((s) => !scopesOf(route).includes(s)) })).token;
      expect((await api.request('GET', path, { token: scopeless })).status).toBe(403);
    },
  );

  it('a 404 with a forged token is 401 (the record was never looked at for the claimed business)', async () => {
    const res = await api.request('GET', `${API}/employees/nobody`, { token: claimingBusiness(theirs, OURS) });
    expect(refusal(res)).toEqual(UNKNOWN_TOKEN);
  });
});

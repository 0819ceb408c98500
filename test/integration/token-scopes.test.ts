import demo from '../../fixtures/demo.json';
import { createToken, revokeToken } from '../../src/data/token-store';
import { dynamoStats } from '../../src/data/dynamo/client';
import { SCOPES, type Scope } from '../../src/domain/scopes';
import { scopesOf } from '../../src/http/routes';
import { API, countCalls, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { businessItems } from '../support/table-scan';
import {
  TOKEN_ROUTES,
  createSampleRecords,
  sampleRequest,
  exportDone,
  sampleRecordIds,
  successStatus,
  type SampleIds,
} from '../support/route-samples';

/**
 * Contract §15 over every token route of the route table (caching off, the
 * local default): the route's scope admits, any other scope set is 403 before
 * anything is read or changed, a write scope does not imply the read scope,
 * revoked and expired tokens are 401, and a token of another business with the
 * right scope still sees nothing of this one (§1).
 */
let api: TestApi;
let full: string;
let theirs: string;
let ids: SampleIds;
/** Tokens with every scope, one revoked and one expired: each route refuses them (§15). */
let revoked: string;
let expired: string;

const OURS = 'scoped-ours';
const THEIRS = 'scoped-theirs';

/** A token of this business per scope set, made once: the routes refuse or admit it alike. */
const tokens = new Map<string, Promise<string>>();
const tokenWith = (scopes: readonly Scope[]): Promise<string> => {
  const set = [...scopes].sort().join(' ');
  if (!tokens.has(set))
    tokens.set(
      set,
      createToken(OURS, { name: 'test', scopes }).then((t) => t.token),
    );
  return tokens.get(set)!;
};

/** The scope of the same resource with the other access (employees:read <-> employees:write), if there is one. */
const sibling = (scope: Scope): Scope | undefined => {
  const [resource, access] = scope.split(':');
  const other = `${resource}:${access === 'read' ? 'write' : 'read'}`;
  return SCOPES.find((s) => s === other);
};

const send = (route: (typeof TOKEN_ROUTES)[number], token: string): Promise<ApiResponse> => {
  const sample = sampleRequest(route, ids);
  return api.request(sample.method, sample.path, { token, body: sample.body, headers: sample.headers ?? {} });
};

/** Every scope that does not admit a token to the route (a route may admit any of several: scopesOf). */
const othersThan = (route: (typeof TOKEN_ROUTES)[number]): Scope[] =>
  SCOPES.filter((s) => !scopesOf(route).includes(s));
/** What a 403 of the route's gate names: the scopes any one of which would do. */
const gateOf = (route: (typeof TOKEN_ROUTES)[number]): string => scopesOf(route).join(' ');

/** Every stored item of the business but its tokens: one Scan, stricter than what its lists and records show. */
const state = (): Promise<unknown> => businessItems(OURS);

const expectInsufficientScope = (res: ApiResponse, scope: string): void => {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 403,
    body: {
      error: 'insufficient_scope',
      message: `This token lacks the scope ${scope}`,
      request_id: expect.any(String),
    },
  });
  expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${scope}"`);
};

const WRITE_COMMANDS = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'];

/**
 * What a refused request may cost: a write is refused after its token's GetItem alone, before its body; a read's
 * token is looked up beside the read (src/http/auth.ts), so a refused read costs at most the round trips of an
 * admitted one, and neither writes anything.
 */
function expectRefusalCost(route: (typeof TOKEN_ROUTES)[number], refused: { calls: number; roundTrips: number }): void {
  const writes = WRITE_COMMANDS.filter((c) => (dynamoStats.byCommand[c] ?? 0) > 0);
  if (route.method === 'GET')
    expect({ roundTrips: refused.roundTrips <= 4, writes }).toEqual({ roundTrips: true, writes: [] });
  else expect({ calls: refused.calls, writes }).toEqual({ calls: 1, writes: [] });
}

const admitted = (res: ApiResponse): boolean => [200, 201, 202, 204].includes(res.status);

beforeAll(async () => {
  api = await startApi();
  full = await api.provision({ ...demo, business: { ...demo.business, id: OURS } });
  theirs = await api.provision({ ...demo, business: { ...demo.business, id: THEIRS } });
  ids = await createSampleRecords(api, full);
  revoked = (await createToken(OURS, { name: 'revoked' })).token;
  expect(await revokeToken(revoked)).toBe(true);
  expired = (await createToken(OURS, { expiresInDays: -1 })).token;
}, 60_000);
afterAll(() => api.close());

it('every token route declares one of the contract’s scopes: :read for GET, :write (or manage) otherwise', () => {
  expect(TOKEN_ROUTES.length).toBeGreaterThan(0);
  for (const route of TOKEN_ROUTES) {
    expect(SCOPES).toContain(route.scope);
    // Contract §20: an export only reads (changes:read and the read scope of each type it names).
    if (route.method === 'GET' || route.name === 'create-export')
      expect({ route: route.name, scope: route.scope }).toMatchObject({ scope: /:read$/ });
    else expect({ route: route.name, scope: route.scope }).toMatchObject({ scope: /:(write|manage)$/ });
  }
});

/**
 * Every refusal of every route first, between one Scan of the business before them and one after them (the last test
 * of this block): none of them changed anything. The refusals that could write (403 with other scopes, 401 revoked,
 * 401 expired) also check on their own that they sent no write command. The admitted requests follow, route by route.
 */
describe('refused requests', () => {
  let before: unknown;
  beforeAll(async () => {
    before = await state();
  });

  describe.each(TOKEN_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_label, route) => {
    it('a token with every other scope gets 403 (writes: after its token GetItem alone)', async () => {
      const token = await tokenWith(othersThan(route));
      const refused = await countCalls(() => send(route, token));
      expectInsufficientScope(refused.result, gateOf(route));
      expectRefusalCost(route, refused);
    });

    it('a token with no scope at all gets 403', async () => {
      expectInsufficientScope(await send(route, await tokenWith([])), gateOf(route));
    });

    const other = sibling(route.scope);
    if (other && !scopesOf(route).includes(other)) {
      it(`a token with only ${other} gets 403 (read and write scopes are separate)`, async () => {
        expectInsufficientScope(await send(route, await tokenWith([other])), gateOf(route));
      });
    }

    it('a revoked token gets 401 invalid_token (writes: after its token GetItem alone)', async () => {
      const refused = await countCalls(() => send(route, revoked));
      const res = refused.result;
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
      expectRefusalCost(route, refused);
    });

    it('an expired token gets 401 invalid_token, saying it expired', async () => {
      const refused = await countCalls(() => send(route, expired));
      const res = refused.result;
      expectRefusalCost(route, refused);
      expect({ status: res.status, error: res.body.error, message: res.body.message }).toEqual({
        status: 401,
        error: 'unauthorized',
        message: 'This token has expired',
      });
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="api", error="invalid_token", error_description="The access token expired"',
      );
    });

    it('another business’s token with the scope sees none of this business’s records', async () => {
      const sample = sampleRequest(route, ids);
      const res = await api.request(sample.method, sample.path, { token: theirs, body: sample.body });
      const sent = JSON.stringify(sample);
      // Our ids in the path or body are unknown there: 404 (contract §1); everything else is their own business.
      const refersToOurs = sampleRecordIds(ids).some((id) => sent.includes(id));
      if (refersToOurs)
        expect({ status: res.status, error: res.body.error }).toEqual({ status: 404, error: 'not_found' });
      else expect({ status: res.status, admitted: admitted(res) }).toEqual({ status: res.status, admitted: true });
      for (const id of Object.values(ids).filter((id) => !sent.includes(id))) expect(res.text).not.toContain(id);
    });
  });

  describe('the scope is checked before the body', () => {
    it.each(TOKEN_ROUTES.filter((r) => r.method !== 'GET').map((r) => [r.name, r] as const))(
      '%s: an invalid body with the wrong scope is 403, not 400/415/422',
      async (_name, route) => {
        const token = await tokenWith(othersThan(route));
        const path = sampleRequest(route, ids).path;
        const broken = await api.request(route.method, path, {
          token,
          rawBody: '{"not json',
          headers: { 'content-type': 'text/plain' },
        });
        expectInsufficientScope(broken, gateOf(route));
      },
    );
  });

  it('none of the refused requests above (403, 401, another business’s token) changed anything of this business', async () => {
    expect(await state()).toEqual(before);
  });
});

describe.each(TOKEN_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_label, route) => {
  it(`a token with only ${route.scope} (and what the body asks for) is admitted`, async () => {
    const res = await send(route, await tokenWith([route.scope, ...(sampleRequest(route, ids).alsoNeeds ?? [])]));
    // An export started here runs on beside the requests: done before the next request.
    if (res.status === 202) await exportDone(api, full, res.body.id as string);
    expect({ status: res.status, body: admitted(res) ? 'ok' : res.body }).toEqual({
      status: successStatus(route),
      body: 'ok',
    });
  });
});

describe('tokens of the import and of new admin tokens', () => {
  it('a token from import carries every scope', async () => {
    for (const route of TOKEN_ROUTES.filter((r) => r.method === 'GET'))
      expect({ route: route.name, status: (await send(route, full)).status }).toEqual({
        route: route.name,
        status: 200,
      });
  });

  it('a created token without scopes named has every scope and no expiry', async () => {
    const created = await createToken(OURS, { name: 'all' });
    expect(created).toEqual({ token: expect.stringMatching(/^hr_/), scopes: [...SCOPES], expires_at: null });
  });

  it('expires_at is a UTC datetime N days ahead', async () => {
    const created = await createToken(OURS, { scopes: ['employees:read'], expiresInDays: 30 });
    expect(created.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    const days = (Date.parse(created.expires_at ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const res = await api.request('GET', `${API}/employees/${ids.employee}`, { token: created.token });
    expect(res.status).toBe(200);
  });
});

/**
 * Contract §16: every 4xx of every route answers in the language
 * `Accept-Language` picks (en/de/it, q-values, regional tags, fallback en),
 * says so in `Content-Language`, and keeps field keys and `error` codes.
 * The case table is checked against the OpenAPI document, so a documented
 * 4xx without a case here fails this file.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { ROUTES, scopesOf, type RouteName } from '../../src/http/routes';
import { MESSAGES, type FieldMessages, type LocalizedMessage } from '../../src/domain/errors';
import { translateFields, translateMessage } from '../../src/http/i18n/language';
import { CATALOGUES, type Language } from '../../src/http/i18n/messages';
import { JSON_LIMITS } from '../../src/domain/json-shape';
import { MAX_BODY_BYTES } from '../../src/http/middleware';
import { buildOpenApiDocument } from '../../src/openapi/build-document';
import { createToken } from '../../src/data/token-store';
import { API, startApi, type ApiResponse, type TestApi } from '../support/harness';
import { setEnvForFile } from '../support/env';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { LANE_COUNT, encodeCursor } from '../../src/domain/change-feed';
import { feedAppendWrites, readLaneCounters } from '../../src/data/feed-store';
import { transactWrite } from '../../src/data/dynamo/transact-write';
import { db } from '../../src/data/dynamo/client';
import { tableName } from '../../src/data/config';
import { keys } from '../../src/data/dynamo/keys';

// Tokens are kept 60 s as deployed (lib/api-stack.ts): the answers are the same (an expired token is refused on
// every request, an unknown one is never kept, scopes are checked each time), with one lookup per token instead of
// one per request. The refusals with the cache off are token-scopes.test.ts's and token-format.test.ts's.
setEnvForFile('AUTH_CACHE_SECONDS', '60');

const FIXTURE = JSON.parse(fs.readFileSync(`${__dirname}/../fixtures/two-locales.json`, 'utf8')) as object;

let api: TestApi;
let token: string;
let employeeId: string;
let subscriptionId: string;
let applicationId: string;
/** An import cancelled in the setup: its DELETE answers 409 import_finished. */
let cancelledImport: string;
/** A change-feed cursor whose following entries TTL removed (contract §13: 410). */
let expiredCursor: string;
/** A cursor with changes after it that are all older than retention (their day is past 30 days): resume's 410. */
let agedCursor: string;
/** A token of the business without any scope, and one that has expired (contract §15). */
let scopelessToken: string;
let expiredToken: string;

const EMPLOYEE = { first_name: 'Anna', last_name: 'Huber', cf_5: 1 };
const APPLICANT = { accept_terms_and_conditions: true, first_name: 'Lena', last_name: 'Huber', email: 'l@example.com' };
const JOB = (employee: string) => ({ employee_id: employee, name: 'Cook', from: '2026-01-01' });
const REUSED_KEY = 'i18n-reused-key';
/** The key of a create whose application was erased afterwards (contract §17: 410). */
const ERASED_KEY = 'i18n-erased-key';
/** The key of a create whose webhook subscription was deleted afterwards (contract §14: 410). */
const DELETED_SUBSCRIPTION_KEY = 'i18n-deleted-subscription-key';
/** Local mode allows loopback http targets; nothing is delivered here (no dispatcher runs). */
const HOOK = { url: 'http://127.0.0.1:9/hook' };

const key = <K extends LocalizedMessage['key']>(k: K, params: Extract<LocalizedMessage, { key: K }>['params']) =>
  ({ key: k, params }) as LocalizedMessage;
const noParams = {} as Record<string, never>;

interface Case {
  /** Route row name, or `fallback` for the $default route (unknown path, wrong method). */
  readonly route: RouteName | 'fallback';
  readonly status: number;
  readonly code?: string;
  readonly request: () => {
    method: string;
    path: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    token?: string | null;
  };
  /** What the client reads, in en; translated per language for the comparison. */
  readonly expected: { message: LocalizedMessage } | { fields: FieldMessages };
}

const path = (route: RouteName): string => ROUTES.find((r) => r.name === route)!.path;
const idPath = (route: RouteName, id: string): string =>
  path(route).replace('{id}', encodeURIComponent(id)).replace('{attachment_id}', encodeURIComponent(id));
const withToken = (r: ReturnType<Case['request']>) => ({ token, ...r });

/** Per route, one request per documented 4xx. */
function casesOf(): Case[] {
  const cases: Case[] = [];
  for (const route of ROUTES) {
    const name = route.name as RouteName;
    const hasId = route.path.includes('{id}');
    const target = (): string => {
      if (!hasId) return route.path;
      return idPath(name, 'no-such-id');
    };
    if (route.auth) {
      cases.push({
        route: name,
        status: 401,
        code: 'unauthorized',
        request: () => ({ method: route.method, path: target(), token: null }),
        expected: { message: key('missing_authorization', noParams) },
      });
      cases.push(
        {
          route: name,
          status: 401,
          code: 'unauthorized',
          request: () => ({
            method: route.method,
            path: target(),
            headers: { authorization: 'Token abc' },
            token: null,
          }),
          expected: { message: key('malformed_authorization', noParams) },
        },
        {
          route: name,
          status: 401,
          code: 'unauthorized',
          request: () => ({ method: route.method, path: target(), token: 'hr_not-a-known-token' }),
          expected: { message: key('unknown_token', noParams) },
        },
        {
          route: name,
          status: 401,
          code: 'unauthorized',
          request: () => ({ method: route.method, path: target(), token: expiredToken }),
          expected: { message: key('expired_token', noParams) },
        },
        {
          route: name,
          status: 403,
          code: 'insufficient_scope',
          request: () => ({ method: route.method, path: target(), token: scopelessToken }),
          expected: { message: key('insufficient_scope', { scope: scopesOf(route).join(' ') }) },
        },
      );
    }
    if (!route.auth) {
      const available = route.name === 'get-docs' ? 'text/html' : 'application/json';
      cases.push({
        route: name,
        status: 406,
        code: 'not_acceptable',
        request: () => ({ method: 'GET', path: route.path, headers: { accept: 'image/png' } }),
        expected: { message: key('not_acceptable', { available }) },
      });
    }
    if ('query' in route && name === 'list-changes') {
      cases.push(
        {
          route: name,
          status: 400,
          request: () => withToken({ method: 'GET', path: `${route.path}?limit=0&after=x` }),
          expected: { fields: { limit: [MESSAGES.invalid], after: [MESSAGES.invalid] } },
        },
        {
          route: name,
          status: 410,
          code: 'cursor_expired',
          request: () => withToken({ method: 'GET', path: `${route.path}?after=${expiredCursor}` }),
          expected: { message: key('cursor_expired', { days: 30 }) },
        },
      );
    } else if ('query' in route && 'list' in route) {
      cases.push({
        route: name,
        status: 400,
        request: () => withToken({ method: 'GET', path: `${route.path}?per_page=0&page=x` }),
        expected: { fields: { per_page: [MESSAGES.invalid], page: [MESSAGES.invalid] } },
      });
    } else if ('query' in route && name === 'get-employee') {
      cases.push({
        route: name,
        status: 400,
        request: () => withToken({ method: 'GET', path: `${idPath(name, 'any')}?as_of=2026-02-30` }),
        expected: { fields: { as_of: [MESSAGES.invalid] } },
      });
    } else if ('query' in route) {
      throw new Error(`${name}: a query case for this route's parameters`);
    }
    if (hasId) {
      const record = {
        'get-employee': 'employee',
        'update-employee': 'employee',
        'get-employee-job': 'employee_job',
        'get-application': 'application',
        'update-application': 'application',
        'delete-application': 'application',
        'get-location': 'location',
        'get-employee-payout-field': 'payout_field',
        'get-webhook-subscription': 'webhook_subscription',
        'delete-webhook-subscription': 'webhook_subscription',
        'list-webhook-deliveries': 'webhook_subscription',
        'resume-webhook-subscription': 'webhook_subscription',
        'ping-webhook-subscription': 'webhook_subscription',
        'get-export': 'export',
        'get-import': 'import',
        'delete-import': 'import',
        'create-attachment': 'application',
        'list-attachments': 'application',
        'get-attachment': 'attachment',
        'delete-attachment': 'attachment',
      } as const;
      cases.push({
        route: name,
        status: 404,
        code: 'not_found',
        request: () =>
          withToken({
            method: route.method,
            path: target(),
            ...(route.method === 'PUT' || route.method === 'POST' ? { body: {} } : {}),
          }),
        expected: {
          message: key('record_not_found', { record: record[name as keyof typeof record], id: 'no-such-id' }),
        },
      });
    }
    // Contract §26: resume from a cursor past retention; a ping under a key another request used.
    if (name === 'resume-webhook-subscription')
      cases.push({
        route: name,
        status: 410,
        code: 'cursor_expired',
        request: () =>
          withToken({ method: 'POST', path: idPath(name, subscriptionId), body: { from_cursor: agedCursor } }),
        expected: { message: key('cursor_expired', { days: 30 }) },
      });
    if (name === 'ping-webhook-subscription')
      cases.push({
        route: name,
        status: 409,
        code: 'idempotency_key_reused',
        request: () =>
          withToken({
            method: 'POST',
            path: idPath(name, subscriptionId),
            headers: { 'idempotency-key': `${REUSED_KEY}-create-employee` },
          }),
        expected: { message: key('idempotency_key_reused', noParams) },
      });
    if (!('request' in route)) continue;
    // Routes with a body: 400 (JSON), 413, 415, 422, and 409 (POST) or 412 (PUT).
    const existing = (): string =>
      route.path.includes('applications')
        ? applicationId
        : route.path.includes('webhook_subscriptions')
          ? subscriptionId
          : employeeId;
    const bodyPath = (): string => (hasId ? route.path.replace('{id}', existing()) : route.path);
    cases.push(
      {
        route: name,
        status: 400,
        code: 'bad_request',
        request: () =>
          withToken({
            method: route.method,
            path: bodyPath(),
            rawBody: '{"a":',
            headers: { 'content-type': 'application/json' },
          }),
        expected: { message: key('invalid_json', noParams) },
      },
      {
        route: name,
        status: 400,
        code: 'bad_request',
        request: () =>
          withToken({
            method: route.method,
            path: bodyPath(),
            rawBody: `{"notes":${'['.repeat(JSON_LIMITS.maxDepth)}${']'.repeat(JSON_LIMITS.maxDepth)}}`,
            headers: { 'content-type': 'application/json' },
          }),
        expected: { message: key('body_too_deep', { levels: JSON_LIMITS.maxDepth }) },
      },
      {
        route: name,
        status: 400,
        code: 'bad_request',
        request: () =>
          withToken({
            method: route.method,
            path: bodyPath(),
            body: Object.fromEntries(Array.from({ length: JSON_LIMITS.maxKeys + 1 }, (_, i) => [`k${i}`, i])),
          }),
        expected: { message: key('body_too_wide', { keys: JSON_LIMITS.maxKeys }) },
      },
      {
        route: name,
        status: 413,
        code: 'payload_too_large',
        request: () =>
          withToken({
            method: route.method,
            path: bodyPath(),
            rawBody: `{"notes":"${'x'.repeat(MAX_BODY_BYTES)}"}`,
            headers: { 'content-type': 'application/json' },
          }),
        expected: { message: key('payload_too_large', { limit: MAX_BODY_BYTES }) },
      },
      {
        route: name,
        status: 415,
        code: 'unsupported_media_type',
        request: () =>
          withToken({
            method: route.method,
            path: bodyPath(),
            rawBody: '{}',
            headers: { 'content-type': 'text/plain' },
          }),
        expected: { message: key('unsupported_media_type', noParams) },
      },
    );
    const invalid: Record<string, { body: unknown; fields: FieldMessages }> = {
      'create-employee': {
        body: { last_name: ' ', gender: 'other', frist_name: 'A' },
        fields: {
          first_name: [MESSAGES.blank],
          last_name: [MESSAGES.blank],
          gender: [MESSAGES.inclusion],
          frist_name: [MESSAGES.unknownField],
          cf_5: [MESSAGES.blank],
        },
      },
      'update-employee': {
        body: { employee_status_id: 'ghost', email: 'nope', employee_number: null },
        fields: { employee_status_id: [MESSAGES.missingReference], email: [MESSAGES.invalid] },
      },
      'create-employee-job': {
        body: { employee_id: 'x', name: 'Cook', from: '2026-02-01', to: '2026-01-01' },
        fields: { to: [MESSAGES.toBeforeFrom] },
      },
      'create-application': {
        body: { ...APPLICANT, accept_terms_and_conditions: false, job_id: 'ghost' },
        fields: { accept_terms_and_conditions: [MESSAGES.accepted], job_id: [MESSAGES.missingReference] },
      },
      'update-application': {
        body: { first_name: null, gender: 'x' },
        fields: { first_name: [MESSAGES.blank], gender: [MESSAGES.inclusion] },
      },
      'create-webhook-subscription': {
        body: { url: 'http://10.0.0.7/hook' },
        fields: { url: [MESSAGES.notAllowed] },
      },
      'resume-webhook-subscription': {
        body: { from_cursor: 'nope' },
        fields: { from_cursor: [MESSAGES.invalid] },
      },
      'create-export': {
        body: { types: ['payroll'] },
        fields: { types: [MESSAGES.inclusion] },
      },
      'create-import': {
        body: { type: 'people', format: 'csv', size: 0 },
        fields: { type: [MESSAGES.inclusion], size: [MESSAGES.invalid] },
      },
      'create-attachment': {
        body: { file_name: 'a/b.pdf', content_type: 'text/html', size: 0 },
        fields: { file_name: [MESSAGES.invalid], content_type: [MESSAGES.inclusion], size: [MESSAGES.invalid] },
      },
    };
    const bad = invalid[name];
    if (!bad) throw new Error(`no 422 case for ${name}`);
    cases.push({
      route: name,
      status: 422,
      request: () => withToken({ method: route.method, path: bodyPath(), body: bad.body }),
      expected: { fields: bad.fields },
    });
    if (route.method === 'POST') {
      cases.push({
        route: name,
        status: 409,
        code: 'idempotency_key_reused',
        request: () =>
          withToken({
            method: 'POST',
            path: bodyPath(),
            body: secondBody(name),
            headers: { 'idempotency-key': `${REUSED_KEY}-${name}` },
          }),
        expected: { message: key('idempotency_key_reused', noParams) },
      });
      cases.push({
        route: name,
        status: 400,
        code: 'bad_request',
        request: () =>
          withToken({
            method: 'POST',
            path: bodyPath(),
            body: firstBody(name),
            headers: { 'idempotency-key': 'not\tprintable' },
          }),
        expected: { message: key('idempotency_key_invalid', noParams) },
      });
    }
    if (route.method === 'PUT') {
      cases.push({
        route: name,
        status: 412,
        code: 'precondition_failed',
        request: () =>
          withToken({ method: 'PUT', path: bodyPath(), body: { first_name: 'X' }, headers: { 'if-match': '"stale"' } }),
        expected: { message: key('precondition_failed', noParams) },
      });
    }
  }
  cases.push(
    {
      route: 'delete-import',
      status: 409,
      code: 'import_finished',
      request: () => withToken({ method: 'DELETE', path: idPath('delete-import', cancelledImport) }),
      // Read when the case runs: the import is cancelled in the setup.
      get expected() {
        return { message: key('import_finished', { id: cancelledImport, status: 'cancelled' }) };
      },
    },
    {
      route: 'create-application',
      status: 410,
      code: 'application_erased',
      request: () =>
        withToken({
          method: 'POST',
          path: path('create-application'),
          body: APPLICANT,
          headers: { 'idempotency-key': ERASED_KEY },
        }),
      expected: { message: key('application_erased', noParams) },
    },
    {
      route: 'create-webhook-subscription',
      status: 410,
      code: 'subscription_deleted',
      request: () =>
        withToken({
          method: 'POST',
          path: path('create-webhook-subscription'),
          body: HOOK,
          headers: { 'idempotency-key': DELETED_SUBSCRIPTION_KEY },
        }),
      expected: { message: key('subscription_deleted', noParams) },
    },
    {
      route: 'create-employee-job',
      status: 404,
      code: 'not_found',
      request: () => withToken({ method: 'POST', path: path('create-employee-job'), body: JOB('ghost-42') }),
      expected: { message: key('record_not_found', { record: 'employee', id: 'ghost-42' }) },
    },
    {
      route: 'fallback',
      status: 404,
      code: 'not_found',
      request: () => withToken({ method: 'GET', path: `${API}/nowhere` }),
      expected: { message: key('route_not_found', { method: 'GET', path: `${API}/nowhere` }) },
    },
    {
      route: 'fallback',
      status: 405,
      code: 'method_not_allowed',
      request: () => withToken({ method: 'DELETE', path: `${API}/employees` }),
      expected: { message: key('method_not_allowed', { allowed: ['POST', 'GET'] }) },
    },
  );
  return cases;
}

/** The body an Idempotency-Key was first used with, and another one. */
const firstBody = (route: RouteName): object =>
  route === 'create-employee'
    ? EMPLOYEE
    : route === 'create-application'
      ? APPLICANT
      : route === 'create-webhook-subscription'
        ? HOOK
        : route === 'create-export'
          ? { types: ['employees'] }
          : route === 'create-attachment'
            ? CV
            : route === 'create-import'
              ? IMPORT
              : route === 'resume-webhook-subscription'
                ? {}
                : JOB(employeeId);
const secondBody = (route: RouteName): object =>
  route === 'create-employee-job'
    ? { ...JOB(employeeId), name: 'Other' }
    : route === 'create-webhook-subscription'
      ? { ...HOOK, types: ['employee.created'] }
      : route === 'create-export'
        ? { types: ['applications'] }
        : route === 'create-attachment'
          ? { ...CV, size: 11 }
          : route === 'create-import'
            ? { ...IMPORT, size: 11 }
            : route === 'resume-webhook-subscription'
              ? { from_cursor: 'x' }
              : { ...firstBody(route), first_name: 'Other' };
const CV = { file_name: 'cv.pdf', content_type: 'application/pdf', size: 10 };
const IMPORT = { type: 'employees', format: 'csv', mode: 'validate', size: 10 };

const CASES = casesOf();

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = '1';
  process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString('base64');
  api = await startApi();
  token = await api.provision(FIXTURE);
  const businessId = (FIXTURE as { business: { id: string } }).business.id;
  scopelessToken = (await createToken(businessId, { scopes: [] })).token;
  expiredToken = (await createToken(businessId, { expiresInDays: -1 })).token;
  employeeId = (await api.request('POST', path('create-employee'), { token, body: EMPLOYEE })).body.id;
  applicationId = (await api.request('POST', path('create-application'), { token, body: APPLICANT })).body.id;
  for (const route of [
    'create-employee',
    'create-application',
    'create-employee-job',
    'create-webhook-subscription',
    'create-export',
    'create-import',
  ] as const) {
    const first = await api.request('POST', path(route), {
      token,
      body: firstBody(route),
      headers: { 'idempotency-key': `${REUSED_KEY}-${route}` },
    });
    expect(first.status).toBe(route === 'create-export' ? 202 : 201);
    if (route === 'create-webhook-subscription') subscriptionId = first.body.id;
    if (route === 'create-import') {
      cancelledImport = first.body.id;
      expect((await api.request('DELETE', idPath('delete-import', cancelledImport), { token })).status).toBe(204);
    }
  }
  const resumed = await api.request('POST', idPath('resume-webhook-subscription', subscriptionId), {
    token,
    body: firstBody('resume-webhook-subscription'),
    headers: { 'idempotency-key': `${REUSED_KEY}-resume-webhook-subscription` },
  });
  expect(resumed.status).toBe(200);
  const attachment = await api.request('POST', idPath('create-attachment', applicationId), {
    token,
    body: CV,
    headers: { 'idempotency-key': `${REUSED_KEY}-create-attachment` },
  });
  expect(attachment.status).toBe(201);
  const erased = await api.request('POST', path('create-application'), {
    token,
    body: APPLICANT,
    headers: { 'idempotency-key': ERASED_KEY },
  });
  expect(
    (await api.request('DELETE', `${path('create-application')}/${erased.body.id as string}`, { token })).status,
  ).toBe(204);
  const deleted = await api.request('POST', path('create-webhook-subscription'), {
    token,
    body: HOOK,
    headers: { 'idempotency-key': DELETED_SUBSCRIPTION_KEY },
  });
  const deletedPath = `${path('create-webhook-subscription')}/${deleted.body.id as string}`;
  expect((await api.request('DELETE', deletedPath, { token })).status).toBe(204);
});
afterAll(() => api?.close());

/** Two changes 40 days ago in lane 0; TTL removed the second; a reader stopped after the first. */
beforeAll(async () => {
  const business = (FIXTURE as { business: { id: string } }).business.id;
  const at = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000).toISOString();
  const old = { type: 'employee.created', id: 'old', occurred_at: at, data: { id: 'old' } } as const;
  // Lane 0 may already hold entries of the records created above (a record's lane is a hash of its id).
  const [lane0] = await readLaneCounters(business);
  const n = lane0?.n ?? 0;
  await transactWrite(feedAppendWrites(business, { lane: 0, n, days: lane0?.days ?? {} }, [old, old]));
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.feedEntry(business, 0, n + 2) }));
  expiredCursor = encodeCursor(
    business,
    Array.from({ length: LANE_COUNT }, (_, lane) => (lane === 0 ? n + 1 : 0)),
  );
  // Two changes 40 days ago, as their writer appended them then, in a lane that had none; stopped after the first.
  const counters = await readLaneCounters(business);
  const empty = counters.findIndex((c) => c.n === 0);
  const long = Date.now() - 40 * 24 * 60 * 60 * 1000;
  const aged = { ...old, occurred_at: new Date(long).toISOString() };
  await transactWrite(feedAppendWrites(business, { lane: empty, n: 0, days: {} }, [aged, aged], long));
  agedCursor = encodeCursor(
    business,
    counters.map((c, lane) => (lane === empty ? 1 : c.n)),
  );
});

async function send(c: Case, acceptLanguage?: string): Promise<ApiResponse> {
  const { method, path: p, body, rawBody, headers, token: t } = c.request();
  return api.request(method, p, {
    token: t,
    body,
    rawBody,
    headers: { ...headers, ...(acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage }) },
  });
}

function expectedBody(c: Case, language: Language): unknown {
  if ('fields' in c.expected) return translateFields(c.expected.fields, language);
  return { error: c.code, message: translateMessage(c.expected.message, language), request_id: expect.any(String) };
}

describe('every documented 4xx of every route has a case', () => {
  it('covers the document', () => {
    const doc = buildOpenApiDocument();
    const documented = ROUTES.flatMap((route) =>
      Object.keys(doc.paths[route.path]![route.method.toLowerCase()]!.responses)
        // 429 rate_limited is the same answer on every route (authMiddleware): its three languages are checked in
        // test/integration/rate-limits.test.ts; API Gateway's stage throttle answers before our code, in English only.
        .filter((s) => s.startsWith('4') && s !== '429')
        .map((s) => `${route.name} ${s}`),
    );
    const covered = new Set(CASES.map((c) => `${c.route} ${c.status}`));
    expect(documented.filter((d) => !covered.has(d))).toEqual([]);
    expect(documented.length).toBeGreaterThan(40);
  });
});

/** One request per language: de and it in their wording, en without a header; field keys and codes alike. */
describe('every case in de, it and en', () => {
  it.each(CASES.map((c) => [`${c.route} ${c.status}`, c] as const))('%s', async (_label, c) => {
    const english = await send(c);
    expect({ status: english.status, body: english.body }).toEqual({ status: c.status, body: expectedBody(c, 'en') });
    expect(english.headers.get('content-language')).toBe('en');
    for (const language of ['de', 'it'] as const) {
      const res = await send(c, language);
      expect({ language, status: res.status, body: res.body }).toEqual({
        language,
        status: c.status,
        body: expectedBody(c, language),
      });
      expect(res.headers.get('content-language')).toBe(language);
      // Field keys and error codes are the same as in English; the texts are not.
      if ('fields' in c.expected) {
        expect(Object.keys(res.body as object).sort()).toEqual(Object.keys(english.body as object).sort());
      } else {
        expect(res.body.error).toBe(english.body.error);
        expect(res.body.message).not.toBe(english.body.message);
      }
    }
  });
});

/**
 * Regional tags and q-value lists on one case of each kind of refusal (every message, field errors of a body and
 * of a query, the $default route): the language is picked once per request (src/http/middleware.ts errorResponse),
 * whichever route refuses it; every route's wording is checked above in de and it.
 */
const kindOf = (c: Case): string => `${c.status} ${'message' in c.expected ? c.expected.message.key : 'fields'}`;
const KINDS = [...new Map(CASES.map((c) => [`${c.route === 'fallback'} ${kindOf(c)}`, c] as const)).values()];
describe.each([
  ['de-AT', 'de'],
  ['it-CH;q=0.9, de;q=0.5', 'it'],
] as const)('Accept-Language: %s', (header, language) => {
  it.each(KINDS.map((c) => [`${c.route} ${kindOf(c)}`, c] as const))('%s', async (_label, c) => {
    const res = await send(c, header);
    expect({ status: res.status, body: res.body }).toEqual({ status: c.status, body: expectedBody(c, language) });
    expect(res.headers.get('content-language')).toBe(language);
  });

  it('covers both shapes: field errors and messages', () => {
    expect(KINDS.some((c) => 'fields' in c.expected)).toBe(true);
    expect(KINDS.some((c) => 'message' in c.expected)).toBe(true);
  });
});

describe('negotiation (q-values, regional tags, fallback to en)', () => {
  const missing = CASES.find((c) => c.route === 'get-employee' && c.status === 404)!;
  it.each([
    ['en', 'en'],
    ['de-CH', 'de'],
    ['DE', 'de'],
    ['fr, it;q=0.2', 'it'],
    ['it;q=0.5, de;q=0.8', 'de'],
    ['de;q=0.5, it;q=0.6, en;q=0.4', 'it'],
    ['en-GB;q=0.9, it;q=0.95', 'it'],
    ['de;q=0', 'en'],
    ['*', 'en'],
    ['*;q=0.1, it', 'it'],
    ['fr', 'en'],
    ['fr-FR, es;q=0.9', 'en'],
    ['', 'en'],
    ['de;q=abc', 'en'],
    [';;;,,,', 'en'],
    [undefined, 'en'],
  ] as const)('%p -> %s', async (header, language) => {
    const res = await send(missing, header);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-language')).toBe(language);
    expect(res.body.message).toBe(CATALOGUES[language].records.employee('no-such-id'));
  });

  it('uses the Rails wording of each language (contract §16)', async () => {
    const res = await send(
      CASES.find((c) => c.route === 'create-employee' && c.status === 422)!,
      'de',
    );
    expect(res.body).toEqual({
      first_name: ['muss ausgefüllt werden'],
      last_name: ['muss ausgefüllt werden'],
      gender: ['ist kein gültiger Wert'],
      frist_name: ['ist kein bekanntes Feld'],
      cf_5: ['muss ausgefüllt werden'],
    });
    const it422 = await send(
      CASES.find((c) => c.route === 'create-application' && c.status === 422)!,
      'it',
    );
    expect(it422.body).toEqual({ accept_terms_and_conditions: ['deve essere accettata'], job_id: ['non esiste'] });
    const job = await send(
      CASES.find((c) => c.route === 'create-employee-job' && c.status === 422)!,
      'it',
    );
    expect(job.body).toEqual({ to: ['deve essere uguale o successiva a from'] });
  });

  it('success responses carry no Content-Language (records are data, not prose)', async () => {
    const res = await api.request('GET', idPath('get-employee', employeeId), {
      token,
      headers: { 'accept-language': 'de' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-language')).toBeNull();
  });
});

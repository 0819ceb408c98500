/**
 * Contract §12: the OpenAPI document (generated from the route table and the
 * schema registry) is valid, complete, served without a token, rendered at
 * /docs without any network dependency; and the contract checker the harness
 * runs on every response works (reference endpoints pass, deviations fail).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import Ajv2020 from 'ajv/dist/2020';
import { ROUTES, scopesOf } from '../../src/http/routes';
import { SCOPES } from '../../src/domain/scopes';
import { CHANGE_TYPES } from '../../src/domain/change-feed';
import { SCHEMAS } from '../../src/schemas';
import { buildOpenApiDocument, documented, type OpenApiDocument } from '../../src/openapi/build-document';
import { jsonForScript, REDOC_PACKAGE_FILE } from '../../src/openapi/docs-page';
import { checkResponse, expectMatchesContract } from '../support/contract';

/** The kinds of change-feed entry, each with the record its `data` holds. */
const CHANGE_KINDS = [
  'EmployeeChange',
  'EmployeeJobChange',
  'ApplicationChange',
  'AttachmentChange',
  'DeletionChange',
  'ImportChange',
];
import { API, startApi, type TestApi } from '../support/harness';

const FIXTURE = JSON.parse(fs.readFileSync(`${__dirname}/../fixtures/two-locales.json`, 'utf8')) as object;

let api: TestApi;
let token: string;
let doc: OpenApiDocument;

beforeAll(async () => {
  doc = buildOpenApiDocument();
  api = await startApi();
  token = await api.provision(FIXTURE);
});
afterAll(() => api?.close());

const operationOf = (method: string, path: string) => doc.paths[path]?.[method.toLowerCase()];

/**
 * @apidevtools/swagger-parser's dependencies are ES modules, which jest's CommonJS runtime
 * cannot load untransformed; a plain node process (require(esm) since Node 20.19) can.
 * Resolves to its verdict on a deep clone of the document (validate() dereferences in place).
 */
function swaggerParserValidate(document: unknown): { ok: boolean; message: string } {
  const script = `
    const SwaggerParser = require('@apidevtools/swagger-parser');
    const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    SwaggerParser.validate(input).then(
      () => process.stdout.write(JSON.stringify({ ok: true, message: '' })),
      (e) => process.stdout.write(JSON.stringify({ ok: false, message: String(e && e.message) })),
    );`;
  const run = spawnSync(process.execPath, ['--no-warnings', '-e', script], {
    cwd: `${__dirname}/../..`,
    input: JSON.stringify(structuredClone(document)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`swagger-parser did not run: ${run.stderr}`);
  return JSON.parse(run.stdout) as { ok: boolean; message: string };
}

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser, zero errors)', () => {
    expect(swaggerParserValidate(doc)).toEqual({ ok: true, message: '' });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
    expect(doc.info.description.length).toBeGreaterThan(100);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it("its schemas (components and every response's) are valid JSON Schema 2020-12 by ajv's meta-schema", () => {
    // Checked here once: the harness's response checker (test/support/contract.ts) compiles them without.
    const meta = new Ajv2020({ strict: false, allowUnionTypes: true, logger: false });
    const schemas: [string, unknown][] = Object.entries(doc.components.schemas);
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(operations as Record<string, { responses?: object }>))
        for (const [status, response] of Object.entries(operation.responses ?? {}))
          schemas.push([
            `${method} ${path} ${status}`,
            (response as { content?: Record<string, { schema?: unknown }> }).content?.['application/json']?.schema,
          ]);
    const checked = schemas.filter(([, schema]) => schema !== undefined);
    expect(checked.length).toBeGreaterThan(Object.keys(doc.components.schemas).length);
    const invalid = checked
      .filter(([, schema]) => !meta.validateSchema(schema as object))
      .map(([name]) => `${name}: ${meta.errorsText()}`);
    expect(invalid).toEqual([]);
    expect(meta.validateSchema({ type: 'object', required: 'id' })).toBe(false);
  });

  it('its enums and consts are strings, numbers, booleans or null', () => {
    // The harness's response checker shares compiled validators between the files of a jest worker
    // (test/support/contract.ts): ajv compares an object constant by its constructor, which another file's differs in.
    const constants: unknown[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== 'object') return;
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'const') constants.push(inner);
        else if (key === 'enum' && Array.isArray(inner)) constants.push(...inner);
        else walk(inner);
      }
    };
    walk(doc);
    expect(constants.length).toBeGreaterThan(10);
    expect(constants.filter((c) => c !== null && typeof c === 'object')).toEqual([]);
  });

  it('is checked for real: swagger-parser rejects a broken copy', () => {
    const broken = structuredClone(doc) as unknown as {
      paths: Record<string, Record<string, { responses?: unknown }>>;
    };
    delete broken.paths[`${API}/locations`]!.get!.responses;
    broken.paths[`${API}/locations/{id}`]!.get!.responses = {
      200: { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } },
    };
    expect(swaggerParserValidate(broken).ok).toBe(false);
  });

  it('is pure: building twice gives equal documents, and the registry is not mutated', () => {
    const before = JSON.stringify(SCHEMAS);
    expect(buildOpenApiDocument()).toEqual(buildOpenApiDocument());
    expect(JSON.stringify(SCHEMAS)).toBe(before);
  });

  it('carries every registry schema a route refers to as a component (no hand-written copies), decimals also as multipleOf', () => {
    // + the bodies of webhook deliveries (the document's `webhooks`): a change (of its kinds), a ping
    const referenced = new Set(['ErrorBody', 'FieldErrors', 'ChangeEntry', ...CHANGE_KINDS, 'WebhookPingEntry']);
    for (const route of ROUTES) {
      if ('request' in route) referenced.add(route.request);
      if ('response' in route) referenced.add(route.response);
    }
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      if (referenced.has(name)) expect(doc.components.schemas[name]).toEqual(documented(schema));
      // Query schemas are spelled out as parameters; an unreferenced component is dropped.
      else expect(doc.components.schemas[name]).toBeUndefined();
    }
    // `x-max-decimals` is the server's; generic tools read the standard keyword beside it.
    expect(doc.components.schemas.EmployeeJobCreate).toMatchObject({
      properties: {
        time_hours: {
          'x-max-decimals': 6,
          multipleOf: 0.000001,
        },
      },
    });
  });

  it('types what it serves: the data of a change entry by its type, custom field values, a webhook url', () => {
    const schemas = doc.components.schemas as Record<string, Record<string, unknown>>;
    const entry = schemas.ChangeEntry as {
      oneOf: { $ref: string }[];
      discriminator: { mapping: Record<string, string> };
    };
    expect(entry.oneOf.map((kind) => kind.$ref.split('/').pop()).sort()).toEqual([...CHANGE_KINDS].sort());
    // Every change type has its kind, and each kind names exactly the types that map to it.
    expect(Object.keys(entry.discriminator.mapping).sort()).toEqual([...CHANGE_TYPES].sort());
    for (const [type, ref] of Object.entries(entry.discriminator.mapping)) {
      const kind = schemas[ref.split('/').pop()!] as { properties: { type: { enum: string[] } } };
      expect(kind.properties.type.enum).toContain(type);
    }
    const dataOf = (kind: string) => (schemas[kind] as { properties: { data: object } }).properties.data;
    expect(dataOf('EmployeeChange')).toMatchObject({ $ref: '#/components/schemas/Employee' });
    expect(dataOf('ApplicationChange')).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/Application' }, { type: 'null' }],
    });
    expect(dataOf('DeletionChange')).toMatchObject({ type: 'null' });
    for (const record of ['Employee', 'EmployeeJob', 'Application'])
      expect(Object.keys(schemas[record]!.patternProperties as object)).toEqual(['^cf_[0-9]+$']);
    // Request bodies admit cf_{id} keys by propertyNames only: generated request types stay strict.
    for (const body of [
      'EmployeeCreate',
      'EmployeeUpdate',
      'EmployeeJobCreate',
      'ApplicationCreate',
      'ApplicationUpdate',
    ])
      expect(schemas[body]!.patternProperties).toBeUndefined();
    for (const subscription of ['WebhookSubscriptionCreate', 'WebhookSubscription', 'WebhookSubscriptionCreated'])
      expect(schemas[subscription]).toMatchObject({ properties: { url: { type: 'string', format: 'uri' } } });
    // The scope's text names only the operations there are.
    const updatesWebhooks = ROUTES.some(
      (route) => scopesOf(route).includes('webhooks:manage') && route.method === 'PUT',
    );
    if (!updatesWebhooks) expect(doc.info.description).not.toMatch(/webhooks:manage`: [^\n]*update/);
  });

  it('describes every operation, its contact and license, and the language headers', () => {
    expect(doc.info.contact.name).toEqual(expect.any(String));
    expect(doc.info.license).toEqual(
      expect.objectContaining({ name: expect.any(String), identifier: 'LicenseRef-Proprietary' }),
    );
    for (const route of ROUTES) {
      const op = operationOf(route.method, route.path)!;
      expect({ route: route.name, described: (op.description ?? '').length > 10 }).toEqual({
        route: route.name,
        described: true,
      });
      expect(op.parameters).toContainEqual(
        expect.objectContaining({ name: 'Accept-Language', in: 'header', required: false }),
      );
      for (const [status, response] of Object.entries(op.responses)) {
        // 429 is API Gateway's own answer (stage throttling), in English only.
        if (Number(status) >= 400 && status !== '429')
          expect({ route: route.name, status, header: response.headers?.['Content-Language'] }).toEqual({
            route: route.name,
            status,
            header: { $ref: '#/components/headers/ContentLanguage' },
          });
      }
    }
  });

  it('passes redocly lint (recommended rules) with 0 warnings and 0 errors', () => {
    const dir = fs.mkdtempSync(`${os.tmpdir()}/openapi-lint-`);
    try {
      fs.writeFileSync(`${dir}/openapi.json`, JSON.stringify(doc));
      const run = spawnSync(
        process.execPath,
        [require.resolve('@redocly/cli/bin/cli.js'), 'lint', `${dir}/openapi.json`, '--format=json'],
        {
          cwd: dir,
          encoding: 'utf8',
          timeout: 120_000,
          // Offline: no telemetry, no update check.
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
        },
      );
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string }[];
      };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
      expect(run.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has one operation per route row, with its summary, tag and security (the route's scope)", () => {
    const operations = Object.values(doc.paths).flatMap((ops) => Object.keys(ops));
    expect(operations).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const op = operationOf(route.method, route.path);
      expect({ route: route.name, found: op !== undefined }).toEqual({ route: route.name, found: true });
      expect(op?.summary).toBe(route.summary);
      expect(op?.tags).toEqual([route.tag]);
      if (route.auth) {
        expect(op?.security).toEqual(scopesOf(route).map((scope) => ({ bearerAuth: [scope] })));
        expect(op?.description).toContain(`Scope: \`${route.scope}\``);
      } else expect(op?.security).toEqual([]);
    }
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    for (const scope of SCOPES) expect(doc.info.description).toContain(`\`${scope}\``);
  });

  it('documents the webhook cap (422) and the replay of a deleted subscription (410 subscription_deleted)', () => {
    const route = ROUTES.find((r) => r.name === 'create-webhook-subscription')!;
    const op = operationOf(route.method, route.path)!;
    expect(JSON.stringify(op.responses['410'])).toContain('subscription_deleted');
    expect(op.description).toContain('at most 20 subscriptions');
    expect(op.description).toContain('must be less than or equal to 20');
  });

  it('documents the rate limits on every operation with a token: the RateLimit fields on every answer but 401, and 429 rate_limited (contract §18)', () => {
    const tokenRoutes = ROUTES.filter((r) => r.auth);
    expect(tokenRoutes.length).toBeGreaterThan(10);
    for (const route of tokenRoutes) {
      const op = operationOf(route.method, route.path)!;
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = Object.keys((response as { headers?: object }).headers ?? {});
        const expected = status === '401' ? [] : ['RateLimit-Policy', 'RateLimit'];
        expect({ route: route.name, status, rate: headers.filter((h) => h.startsWith('RateLimit')) }).toEqual({
          route: route.name,
          status,
          rate: expected,
        });
      }
      const limited = JSON.stringify(op.responses['429']);
      expect(limited).toContain('rate_limited');
      // Contract §18 as amended: windows 10..3600 s, Retry-After 1..W + 1.
      expect(op.responses['429']?.headers?.['Retry-After']).toMatchObject({
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 3601 },
      });
    }
    const headerText = (name: string): string =>
      String((doc.components.headers as Record<string, { description?: unknown }>)[name]?.description);
    expect(headerText('RateLimitPolicy')).toContain('`w` 10 to 3600 seconds');
    expect(headerText('RateLimit')).toContain('0 to `w` of that limit');
    expect(doc.info.description).toContain('1 to W + 1');
    for (const route of ROUTES.filter((r) => !r.auth))
      expect(JSON.stringify(operationOf(route.method, route.path)!.responses)).not.toContain('RateLimit');
  });

  it('documents the statuses each kind of route can answer', () => {
    for (const route of ROUTES) {
      const op = operationOf(route.method, route.path)!;
      const statuses = Object.keys(op.responses).map(Number);
      const hasBody = 'request' in route;
      const expected = new Set<number>([429, 500]);
      expected.add(
        'accepted' in route
          ? 202
          : route.method === 'POST' && !('acts' in route)
            ? 201
            : route.method === 'DELETE'
              ? 204
              : 200,
      );
      if (route.auth) [401, 403].forEach((s) => expected.add(s));
      else expected.add(406);
      if (route.path.includes('{')) expected.add(404);
      for (const s of 'extraStatuses' in route ? route.extraStatuses : []) expected.add(s);
      if (route.method === 'POST') expected.add(409);
      if (route.method === 'PUT') expected.add(412);
      if (hasBody) [400, 413, 415, 422].forEach((s) => expected.add(s));
      if ('query' in route) expected.add(400);
      if (route.access !== 'none') expected.add(503);
      expect({ route: route.name, statuses: statuses.sort() }).toEqual({
        route: route.name,
        statuses: [...expected].sort(),
      });
      // 429 comes from API Gateway's stage throttling, before our code: none of our headers.
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => s !== '429')) {
        expect({ status, header: response.headers?.['X-Request-Id'] }).toEqual({
          status,
          header: { $ref: '#/components/headers/XRequestId' },
        });
      }
      const accepted = 'accepted' in route;
      // A POST that acts on an existing record answers 200 with it (its ETag, no Location).
      const creates = route.method === 'POST' && !('acts' in route);
      const success = op.responses[accepted ? '202' : creates ? '201' : '200']!;
      if (accepted) expect(Object.keys(success.headers ?? {})).toEqual(expect.arrayContaining(['Location']));
      else if (creates)
        expect(Object.keys(success.headers ?? {})).toEqual(expect.arrayContaining(['Location', 'ETag']));
      if ('list' in route && route.list) expect(success.headers).toHaveProperty('Link');
      else if ('etag' in route && route.etag === false) expect(success.headers).not.toHaveProperty('ETag');
      else if ('response' in route && !accepted) expect(success.headers).toHaveProperty('ETag');
      if (route.auth) expect(op.responses['401']?.headers).toHaveProperty('WWW-Authenticate');
      if (route.auth) expect(op.responses['403']?.headers).toHaveProperty('WWW-Authenticate');
      if (route.access !== 'none') expect(op.responses['503']?.headers).toHaveProperty('Retry-After');
      if (hasBody) {
        expect(op.requestBody).toEqual({
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.request}` } } },
        });
        expect(op.responses['422']?.content?.['application/json']?.schema).toEqual({
          $ref: '#/components/schemas/FieldErrors',
        });
      }
    }
  });

  it('documents path, query and header parameters', () => {
    const params = (method: string, path: string) =>
      (operationOf(method, path)?.parameters ?? []) as {
        name: string;
        in: string;
        required: boolean;
        description?: string;
      }[];
    expect(params('GET', `${API}/locations/{id}`)).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
      expect.objectContaining({ name: 'Accept-Language', in: 'header', required: false }),
    ]);
    const listParams = params('GET', `${API}/applications`);
    for (const name of [
      'page',
      'per_page',
      'application_status_id',
      'job_id',
      'created_at_since',
      'updated_at_since',
    ]) {
      expect(listParams).toContainEqual(
        expect.objectContaining({ name, in: 'query', description: expect.any(String) }),
      );
    }
    expect(params('POST', `${API}/employees`)).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    );
    expect(params('PUT', `${API}/employees/{id}`)).toContainEqual(
      expect.objectContaining({ name: 'If-Match', in: 'header' }),
    );
    expect(params('PUT', `${API}/employees/{id}`)).toContainEqual(expect.objectContaining({ name: 'id', in: 'path' }));
  });

  it('wraps list responses in the page envelope of their records', () => {
    const op = operationOf('GET', `${API}/locations`)!;
    expect(op.responses['200']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/LocationPage',
    });
    expect(doc.components.schemas.LocationPage).toEqual(
      expect.objectContaining({
        required: ['entries', 'current_page', 'per_page', 'total_entries'],
        properties: expect.objectContaining({
          entries: { type: 'array', items: { $ref: '#/components/schemas/Location' } },
        }),
      }),
    );
  });

  it('refuses a route that names a schema the registry lacks', () => {
    const route = { ...ROUTES[0], request: 'NoSuchSchema' };
    expect(() => buildOpenApiDocument([route], SCHEMAS)).toThrow(/NoSuchSchema/);
  });
});

describe('GET /services/api/v1/openapi.json', () => {
  it('serves the document as JSON without a token', async () => {
    const res = await api.request('GET', `${API}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('etag')).toMatch(/^".+"$/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('serves the same document (and ETag) on every request', async () => {
    const [a, b] = await Promise.all([
      api.request('GET', `${API}/openapi.json`),
      api.request('GET', `${API}/openapi.json`),
    ]);
    expect(a.text).toBe(b.text);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
  });

  it('ignores a bad token (public route)', async () => {
    const res = await api.request('GET', `${API}/openapi.json`, { token: 'not-a-token' });
    expect(res.status).toBe(200);
  });
});

describe('GET /docs', () => {
  let html: string;
  let contentType: string | null;
  let csp: string | null;

  beforeAll(async () => {
    const res = await api.request('GET', '/docs');
    expect(res.status).toBe(200);
    html = res.text;
    contentType = res.headers.get('content-type');
    csp = res.headers.get('content-security-policy');
  });

  it('is an HTML page', () => {
    expect(contentType).toBe('text/html; charset=utf-8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
  });

  it('inlines the Redoc standalone bundle and the document', () => {
    const bundle = fs.readFileSync(require.resolve(REDOC_PACKAGE_FILE), 'utf8');
    expect(html).toContain(`<script id="redoc-standalone" type="application/json">${jsonForScript(bundle)}</script>`);
    const embedded = /<script id="openapi-document" type="application\/json">([^<]*)<\/script>/.exec(html);
    expect(JSON.parse(embedded?.[1] ?? 'null')).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(html).toContain('Redoc.init(');
  });

  it('loads nothing from the network', () => {
    expect(html).not.toMatch(/<script[^>]*\ssrc\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link[^>]*\shref\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(\s*["']?(https?:)?\/\//i);
  });

  it('forbids the browser every other origin (Content-Security-Policy)', () => {
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).not.toMatch(/https?:/);
  });

  it('has no literal "<" inside the inlined JSON, so nothing can end the script elements early', () => {
    const scripts = [...html.matchAll(/<script id="[^"]+" type="application\/json">([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(3);
    for (const [, body] of scripts) expect(body).not.toContain('<');
  });
});

describe('contract checks (run by the harness on every response)', () => {
  it('pass for the reference endpoints, their errors and the fallback', async () => {
    const calls: [string, string, number, string | null][] = [
      ['GET', `${API}/locations`, 200, token],
      ['GET', `${API}/locations?per_page=1&page=2`, 200, token],
      ['GET', `${API}/locations/garden`, 200, token],
      ['GET', `${API}/locations/nope`, 404, token],
      ['GET', `${API}/locations?per_page=0`, 400, token],
      ['GET', `${API}/locations`, 401, null],
      ['GET', `${API}/employee_payout_fields`, 200, token],
      ['GET', `${API}/employee_payout_fields/7`, 200, token],
      ['GET', `${API}/employee_fields`, 200, token],
      ['GET', `${API}/employee_job_fields`, 200, token],
      ['GET', `${API}/application_fields`, 200, token],
      ['DELETE', `${API}/locations/garden`, 405, token],
      ['GET', `${API}/nowhere`, 404, token],
    ];
    for (const [method, path, status, t] of calls) {
      const res = await api.request(method, path, { token: t });
      expect({ path, status: res.status }).toEqual({ path, status });
    }
  });

  it('accepts a path template as well as a request path', () => {
    const error = { error: 'not_found', message: 'x', request_id: 'r' };
    expect(() => expectMatchesContract('GET', `${API}/locations/{id}`, 404, error)).not.toThrow();
    expect(() => expectMatchesContract('get', `${API}/locations/abc`, 404, error)).not.toThrow();
  });

  it('fails an undocumented status', () => {
    expect(() => expectMatchesContract('GET', `${API}/locations/abc`, 422, {})).toThrow(/status 422 is not documented/);
    expect(() => checkResponse('GET', `${API}/locations`, 409, { error: 'x', message: 'y', request_id: 'z' })).toThrow(
      /not documented/,
    );
  });

  it('fails a body that does not match the schema, naming the problem', () => {
    expect(() => expectMatchesContract('GET', `${API}/locations/abc`, 404, { error: 'not_found' })).toThrow(/message/);
    expect(() =>
      checkResponse('GET', `${API}/locations?page=1`, 200, {
        entries: [{ id: 1 }],
        current_page: 1,
        per_page: 30,
        total_entries: 1,
      }),
    ).toThrow(/does not match/);
  });

  it('fails a response without a documented required header', () => {
    const record = { entries: [], current_page: 1, per_page: 30, total_entries: 0 };
    expect(() => checkResponse('GET', `${API}/locations`, 200, record, {})).toThrow(/X-Request-Id/);
    expect(() => checkResponse('GET', `${API}/locations`, 200, record, { 'x-request-id': 'r' })).not.toThrow();
    expect(() =>
      checkResponse(
        'GET',
        `${API}/locations`,
        401,
        { error: 'unauthorized', message: 'm', request_id: 'r' },
        { 'x-request-id': 'r' },
      ),
    ).toThrow(/WWW-Authenticate/);
  });

  it('holds unmatched requests to the fallback 404/405', () => {
    const error = { error: 'not_found', message: 'm', request_id: 'r' };
    expect(() => checkResponse('GET', `${API}/nowhere`, 404, error)).not.toThrow();
    expect(() => checkResponse('GET', `${API}/nowhere`, 200, error)).toThrow(/expected the fallback's 404/);
    expect(() =>
      checkResponse(
        'PATCH',
        `${API}/locations/x`,
        405,
        { ...error, error: 'method_not_allowed' },
        { 'x-request-id': 'r' },
      ),
    ).toThrow(/Allow/);
  });
});

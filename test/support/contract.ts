/**
 * Contract tests: every response a test receives is checked against the
 * OpenAPI document the API serves (built from the same route table and
 * schemas). A status the document does not list for the route, a body that
 * does not match the documented schema, or a missing required header
 * (X-Request-Id, ETag, Location, Retry-After, WWW-Authenticate, ...) fails
 * the test that made the request.
 */
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { matchRoute } from '../../src/http/routes';
import { isBic, isCountryCode, isDate, isHttpUrl, isIban } from '../../src/domain/formats';
import {
  buildOpenApiDocument,
  type JsonObject,
  type OpenApiDocument,
  type OpenApiResponse,
} from '../../src/openapi/build-document';
import { workerMap } from './worker-cache';

const COMPONENTS_ID = 'https://contract.test/components.json';
const COMPONENT_REF = '#/components/schemas/';

type HeadersLike = Headers | Record<string, string | undefined>;

let document: OpenApiDocument | undefined;
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/**
 * Validators compiled by earlier files of this jest worker (test/support/worker-environment.cjs), by what they were
 * compiled from: the document's components and the response's schema. Compiling is most of the ~0.2 s of CPU the
 * checks cost a file, and every file checks against the same document. A validator of an earlier file validates this
 * file's bodies alike: they are plain JSON, and the document's enums and consts hold no objects (openapi.test.ts).
 */
const workerValidators = workerMap<string, ValidateFunction>('contractValidators');
let componentsHash: string | undefined;

/**
 * The document under test, built once per jest worker and parsed once per file: the document is a function of the
 * code alone, the same in every file, and its JSON (a string, which crosses the files' realms as it is) parses in
 * a tenth of the ~40 ms of CPU a build costs.
 */
const workerDocument = workerMap<'json', string>('contractDocument');
export function contractDocument(): OpenApiDocument {
  if (document) return document;
  let json = workerDocument.get('json');
  if (json === undefined) workerDocument.set('json', (json = JSON.stringify(buildOpenApiDocument())));
  return (document = JSON.parse(json) as OpenApiDocument);
}

/** `#/components/schemas/X` -> an absolute ref into the components schema registered with ajv. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF)
        ? `${COMPONENTS_ID}#/$defs/${v.slice(COMPONENT_REF.length)}`
        : rewriteRefs(v),
    ]),
  );
}

function contractAjv(): Ajv2020 {
  if (ajv) return ajv;
  // The document's schemas are not checked against the JSON Schema meta-schema here (its compile costs ~65 ms in
  // every test file): openapi.test.ts validates the whole document (swagger-parser, redocly lint) once.
  const instance = new Ajv2020({
    strict: false,
    allErrors: true,
    allowUnionTypes: true,
    logger: false,
    validateSchema: false,
  });
  addFormats(instance);
  // The API's own formats (src/schemas/ajv.ts), so a response is held to what a request is.
  instance.addFormat('date', { type: 'string', validate: isDate });
  instance.addFormat('http-url', { type: 'string', validate: isHttpUrl });
  instance.addFormat('iban', { type: 'string', validate: isIban });
  instance.addFormat('bic', { type: 'string', validate: (v: string) => isBic(v.toUpperCase()) });
  instance.addFormat('country-code', { type: 'string', validate: isCountryCode });
  instance.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(contractDocument().components.schemas) as JsonObject });
  return (ajv = instance);
}

/** The validator of `schema` (of the operation and status `key`): this file's, an earlier file's, or compiled now. */
function validatorFor(key: string, schema: JsonObject): ValidateFunction {
  const known = validators.get(key);
  if (known) return known;
  componentsHash ??= createHash('sha256').update(JSON.stringify(contractDocument().components.schemas)).digest('hex');
  const compiledFrom = `${componentsHash} ${JSON.stringify(schema)}`;
  const validate = workerValidators.get(compiledFrom) ?? contractAjv().compile(rewriteRefs(schema) as JsonObject);
  workerValidators.set(compiledFrom, validate);
  validators.set(key, validate);
  return validate;
}

function resolveHeader(header: JsonObject): JsonObject {
  const ref = header.$ref;
  if (typeof ref !== 'string') return header;
  const name = ref.replace('#/components/headers/', '');
  const resolved = contractDocument().components.headers[name];
  if (!resolved) throw new Error(`OpenAPI document: dangling header ref ${ref}`);
  return resolved;
}

const headerOf = (headers: HeadersLike, name: string): string | null | undefined =>
  headers instanceof Headers
    ? headers.get(name)
    : Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

const excerpt = (body: unknown): string => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

/** The path template a request path belongs to: itself when it is one, else via the route table. */
function templateOf(method: string, path: string): string | undefined {
  const doc = contractDocument();
  if (doc.paths[path]?.[method.toLowerCase()]) return path;
  return matchRoute(method, path).match?.route.path;
}

function checkAgainst(
  where: string,
  documented: OpenApiResponse,
  status: number,
  body: unknown,
  headers: HeadersLike | undefined,
  key: string,
): void {
  if (headers) {
    const missing = Object.entries(documented.headers ?? {})
      .filter(([name, h]) => resolveHeader(h).required === true && !headerOf(headers, name))
      .map(([name]) => name);
    if (missing.length > 0)
      throw new Error(`${where}: response ${status} lacks the documented header(s) ${missing.join(', ')}`);
  }
  // Non-JSON bodies (HTML, empty) are not schema-checked; the status still had to be documented.
  if (typeof body === 'string' || body === undefined) return;
  const schema = documented.content?.['application/json']?.schema;
  if (!schema) {
    throw new Error(
      `${where}: response ${status} has a JSON body, but the document gives no application/json schema for it`,
    );
  }
  // A response to a token with a field grant leaves out the fields its Restricted-Fields names (contract §25): the
  // record schemas it refers to are checked with those fields no longer required, every other rule kept.
  // Feed entries name theirs in the body, as `restricted_fields` beside `data`.
  const named = [
    ...(headers ? (headerOf(headers, 'Restricted-Fields')?.split(', ') ?? []) : []),
    ...restrictedInBody(body),
  ].filter(Boolean);
  const withheld = named.length ? [...new Set(named)].sort().join(', ') : undefined;
  const validate = withheld
    ? validatorFor(`${key} without ${withheld}`, withoutRequired(schema, new Set(withheld.split(', '))))
    : validatorFor(key, schema);
  if (!validate(body)) {
    throw new Error(
      `${where}: response ${status} does not match the OpenAPI document:\n  ` +
        `${contractAjv().errorsText(validate.errors, { separator: '\n  ', dataVar: 'body' })}\n  body: ${excerpt(body)}`,
    );
  }
}

/** The fields a list of feed entries names as withheld (`restricted_fields` of each entry). */
function restrictedInBody(body: unknown): string[] {
  const entries = (body as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((e) =>
    Array.isArray((e as { restricted_fields?: unknown })?.restricted_fields)
      ? ((e as { restricted_fields: unknown[] }).restricted_fields.map(String) as string[])
      : [],
  );
}

/** `schema` with the component schemas it refers to inlined and `fields` dropped from their `required`. */
function withoutRequired(schema: unknown, fields: ReadonlySet<string>): JsonObject {
  // Every component on the way is inlined (a feed entry reaches its record through two), except one already
  // being inlined above (a recursive schema keeps its reference there).
  const walk = (value: unknown, inlining: ReadonlySet<string>): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, inlining));
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as JsonObject).$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENT_REF) && !inlining.has(ref)) {
      const component = contractDocument().components.schemas[ref.slice(COMPONENT_REF.length)];
      if (component) return walk(component, new Set([...inlining, ref]));
    }
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === 'required' && Array.isArray(v) ? v.filter((f) => !fields.has(String(f))) : walk(v, inlining),
      ]),
    );
  };
  return walk(schema, new Set()) as JsonObject;
}

/**
 * Throws (with ajv's errors) unless `status` is documented for this operation
 * and `body` matches its schema (and, given `headers`, the required headers are there).
 * `path` is a template of the document (`/services/api/v1/locations/{id}`) or a request path.
 */
export function expectMatchesContract(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers?: HeadersLike,
): void {
  const verb = method.toUpperCase();
  const template = templateOf(verb, path);
  if (!template) throw new Error(`${verb} ${path}: no operation in the OpenAPI document`);
  const operation = contractDocument().paths[template]?.[verb.toLowerCase()];
  if (!operation) throw new Error(`${verb} ${template}: no operation in the OpenAPI document`);
  const where = `${verb} ${template}`;
  const documented = operation.responses[String(status)];
  if (!documented) {
    throw new Error(
      `${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}); body: ${excerpt(body)}`,
    );
  }
  checkAgainst(where, documented, status, body, headers, `${verb} ${template} ${status}`);
}

/** What the `$default` fallback answers for a request no operation matches (contract §3). */
const FALLBACK_RESPONSE: OpenApiResponse = {
  description: 'unknown route or method',
  headers: {
    'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
    'Content-Language': { $ref: '#/components/headers/ContentLanguage' },
  },
  content: { 'application/json': { schema: { $ref: `${COMPONENT_REF}ErrorBody` } } },
};

/**
 * The harness's hook, called on every response: requests that match a route
 * are checked with expectMatchesContract; others must be the fallback's
 * 404 / 405 (with Allow) error body.
 */
export function checkResponse(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers?: HeadersLike,
): void {
  const verb = method.toUpperCase();
  const pathname = path.split('?')[0]?.split('#')[0] ?? path;
  const { match, allowed } = matchRoute(verb, pathname);
  if (match) {
    expectMatchesContract(verb, match.route.path, status, body, headers);
    return;
  }
  const where = `${verb} ${pathname} (no route)`;
  const expected = allowed.length > 0 ? 405 : 404;
  if (status !== expected)
    throw new Error(`${where}: expected the fallback's ${expected}, got ${status}; body: ${excerpt(body)}`);
  if (expected === 405 && headers && !headerOf(headers, 'Allow'))
    throw new Error(`${where}: 405 without an Allow header`);
  checkAgainst(where, FALLBACK_RESPONSE, status, body, headers, `fallback ${status}`);
}

/**
 * A webhook delivery as a receiver got it, against the document's `webhooks`:
 * every documented header is there and the body matches the request schema.
 */
export function expectDeliveryMatchesContract(
  body: string,
  headers: Record<string, string | string[] | undefined>,
): void {
  const operation = contractDocument().webhooks.change?.post as
    | {
        parameters: { name: string; required: boolean }[];
        requestBody: { content: Record<string, { schema: JsonObject }> };
      }
    | undefined;
  if (!operation) throw new Error('the OpenAPI document describes no webhook delivery');
  const missing = operation.parameters.filter((p) => p.required && !headers[p.name.toLowerCase()]).map((p) => p.name);
  if (missing.length > 0) throw new Error(`webhook delivery lacks the documented header(s) ${missing.join(', ')}`);
  const validate = validatorFor('webhook change', operation.requestBody.content['application/json']?.schema ?? {});
  const parsed: unknown = JSON.parse(body);
  if (!validate(parsed)) {
    throw new Error(
      `webhook delivery does not match the OpenAPI document:\n  ` +
        `${contractAjv().errorsText(validate.errors, { separator: '\n  ', dataVar: 'body' })}\n  body: ${excerpt(body)}`,
    );
  }
}

import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency-key';
import { MAX_BODY_BYTES } from '../http/middleware';
import { ROUTES, scopesOf, type RouteDefinition } from '../http/routes';
import { pageEnvelope } from '../schemas/common';
import { SCHEMAS } from '../schemas';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../domain/scopes';
import { RATE_LIMIT_BOUNDS } from '../domain/rate-window';
import { proseSections, proseText } from './prose';
import { HEADERS, schemaRef } from './responses';
import { pathParamsOf, responsesOf } from './operation-responses';
import type { JsonObject, OpenApiDocument, OpenApiOperation } from './types';
import { WEBHOOKS } from './webhook-delivery';

export type { JsonObject, OpenApiDocument, OpenApiOperation, OpenApiResponse } from './types';

/**
 * The OpenAPI 3.1 document (contract §12), generated from the route table and
 * the schema registry: the schemas the handlers validate with are the
 * document's components, so the two cannot drift. Pure: same input, same
 * document; nothing here touches the network, the table or the file system.
 *
 * Statuses per operation follow from the route row (contract §3, §11):
 * - success: 201 + Location + ETag (POST), 200 + ETag (single read, PUT), 200 + Link (lists);
 * - 400: bad JSON (routes with a body, ErrorBody) / query field errors (routes with a query, FieldErrors);
 * - 401 and 403 with WWW-Authenticate (auth routes; the route's scope is the operation's security
 *   requirement); 404 (`{id}` routes and `extraStatuses`);
 * - 409 Idempotency-Key reuse (POST); 412 If-Match (PUT); 413, 415, 422 (routes with a body);
 * - 503 with Retry-After (routes that touch the table); 500 and 429 (stage throttling) on every route.
 * Unknown paths and wrong methods (404/405 with Allow) are answered by the
 * `$default` fallback, which is not an operation; the description says so.
 */

/** The body limit the runtime enforces, as the document states it. */
const MAX_BODY_MIB = MAX_BODY_BYTES / (1024 * 1024);
export const BEARER_SCHEME = 'bearerAuth';
const API_VERSION = '1.0.0';

/** The API prose (src/openapi/prose/*.md): the document's introduction, each tag's and each operation's text. */
const { requests: REQUESTS, windowSeconds: WINDOW } = RATE_LIMIT_BOUNDS;
const DESCRIPTION = proseText('overview', {
  scopes: SCOPES.map((scope) => `- \`${scope}\`: ${SCOPE_DESCRIPTIONS[scope]}`).join('\n'),
  'requests.min': REQUESTS.min,
  'requests.max': REQUESTS.max,
  'window.min': WINDOW.min,
  'window.max': WINDOW.max,
  max_body_mib: MAX_BODY_MIB,
});
const TAG_DESCRIPTIONS = proseSections('tags');
const OPERATION_DESCRIPTIONS = proseSections('operations');

/** `create-employee-job` -> `createEmployeeJob` */
const operationIdOf = (name: string): string => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A schema's properties, including those of `allOf` parts (query schemas may be composed). */
function propertiesOf(schema: JsonObject): { properties: Record<string, JsonObject>; required: Set<string> } {
  const properties: Record<string, JsonObject> = {};
  const required = new Set<string>();
  const visit = (s: JsonObject): void => {
    Object.assign(properties, (s.properties as Record<string, JsonObject> | undefined) ?? {});
    for (const r of (s.required as string[] | undefined) ?? []) required.add(r);
    for (const part of (s.allOf as JsonObject[] | undefined) ?? []) visit(part);
  };
  visit(schema);
  return { properties, required };
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The schemas as the document shows them: `x-max-decimals: n` (the server's exact check) also as the standard
 * `multipleOf: 10^-n`, so a generic tool knows it too (not given to the server's ajv: in binary floating point
 * 0.3 is no multiple of 0.000001).
 */
export const documented = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
    v && typeof v === 'object' && typeof (v as JsonObject)['x-max-decimals'] === 'number'
      ? { ...v, multipleOf: Number(`1e-${(v as JsonObject)['x-max-decimals'] as number}`) }
      : v,
  ) as T;

function requireSchema(
  schemas: Record<string, object>,
  route: RouteDefinition,
  name: string | undefined,
): string | undefined {
  if (name === undefined) return undefined;
  if (!(name in schemas))
    throw new Error(`Route ${route.name} refers to schema ${name}, which is not in SCHEMAS (src/schemas/index.ts)`);
  return name;
}

function parametersOf(route: RouteDefinition, schemas: Record<string, object>): JsonObject[] {
  const parameters: JsonObject[] = pathParamsOf(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: 'Id of the record',
    schema: { type: 'string', minLength: 1 },
  }));
  const query = requireSchema(schemas, route, route.query);
  if (query) {
    const { properties, required } = propertiesOf(schemas[query] as JsonObject);
    for (const [name, prop] of Object.entries(properties)) {
      const schema = clone(prop);
      const description = typeof schema.description === 'string' ? schema.description : undefined;
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(description ? { description } : {}),
        schema,
      });
    }
  }
  parameters.push({
    name: 'Accept-Language',
    in: 'header',
    required: false,
    description:
      'Language of error texts: `en`, `de` or `it`, q-values allowed (`de-AT` counts as `de`); anything else is `en`. The answer names it in `Content-Language`.',
    schema: { type: 'string' },
    example: 'de-AT, it;q=0.8',
  });
  if (route.method === 'POST') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes the POST safe to retry: the same key with the same body within 24 hours returns the first response and creates nothing new; the same key with a different body answers 409.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
    });
  }
  if (route.method === 'PUT') {
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'The ETag last read; when the record changed since, the answer is 412 and nothing is written.',
      schema: { type: 'string' },
    });
  }
  return parameters;
}

function descriptionOf(route: RouteDefinition): string {
  const description = OPERATION_DESCRIPTIONS[route.name];
  if (!description) throw new Error(`Route ${route.name} has no section in src/openapi/prose/operations.md`);
  return description;
}

/** The component schemas the document refers to, directly or through other components. */
function referencedOnly(components: Record<string, JsonObject>, paths: unknown): Record<string, JsonObject> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
          const name = v.slice('#/components/schemas/'.length);
          if (!used.has(name)) {
            used.add(name);
            visit(components[name]);
          }
        } else visit(v);
      }
    }
  };
  visit(paths);
  return Object.fromEntries(Object.entries(components).filter(([name]) => used.has(name)));
}

function operationOf(route: RouteDefinition, schemas: Record<string, object>): OpenApiOperation {
  const request = requireSchema(schemas, route, route.request);
  const responseName = requireSchema(schemas, route, route.response);
  const responses = responsesOf(route, request !== undefined, responseName);
  const parameters = parametersOf(route, schemas);
  return {
    operationId: operationIdOf(route.name),
    summary: route.summary,
    description: route.auth
      ? `${descriptionOf(route)}\n\nScope: ${scopesOf(route)
          .map((s) => `\`${s}\``)
          .join(' or ')}.`
      : descriptionOf(route),
    tags: [route.tag],
    // OpenAPI 3.1 lets a requirement of any scheme list the roles (here: token scopes) it needs.
    // Alternatives: any one of the route's scopes admits the token.
    security: scopesOf(route).map((scope) => ({ [BEARER_SCHEME]: [scope] })),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(request
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaRef(request) } } } }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The document for these routes and schemas (defaults: the deployed ones). */
export function buildOpenApiDocument(
  routes: readonly RouteDefinition[] = ROUTES,
  schemas: Record<string, object> = SCHEMAS,
): OpenApiDocument {
  const componentSchemas: Record<string, JsonObject> = documented(schemas) as Record<string, JsonObject>;
  for (const required of ['ErrorBody', 'FieldErrors']) {
    if (!(required in componentSchemas)) throw new Error(`SCHEMAS must contain ${required}`);
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const operations = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (operations[method]) throw new Error(`Two routes for ${route.method} ${route.path}`);
    operations[method] = operationOf(route, schemas);
    if (route.list && route.response) {
      const pageName = `${route.response}Page`;
      componentSchemas[pageName] ??= {
        ...(pageEnvelope(schemaRef(route.response)) as JsonObject),
        description: `A page of ${route.response} records`,
      };
    }
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({
    name,
    ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'HR API',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: { name: 'The operators of this deployment (see the README of the service)' },
      license: {
        name: 'Proprietary (UNLICENSED): use only under your agreement with the operator',
        identifier: 'LicenseRef-Proprietary',
      },
    },
    servers: [{ url: '/', description: 'This deployment' }],
    security: [{ [BEARER_SCHEME]: [] }],
    tags,
    paths,
    webhooks: WEBHOOKS,
    components: {
      // Query schemas appear as parameters; a component nothing refers to is noise for tools.
      schemas: referencedOnly(componentSchemas, { paths, webhooks: WEBHOOKS }),
      headers: clone(HEADERS),
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'API token of one business with scopes (`npm run admin -- token create BUSINESS_ID --scopes ...` prints one). ' +
            'Each operation lists the scope it needs.',
        },
      },
    },
  };
}

/**
 * The route table: the single source for the CDK stack (one function per row),
 * the local server (same handlers, same matching), the OpenAPI document and
 * each route's token scope (contract §15).
 * Adding an endpoint = one row here + its grants in src/http/grants.ts (the
 * compiler asks for them) + `functions/<name>.ts` exporting `handler`.
 *
 * Kept free of runtime imports (only the import-free API prefix and the scope
 * names): every function's handler reads its row, so what this imports is in
 * every bundle. The grants, which read the entities' index names, live apart.
 */
import { API_PREFIX } from '../domain/api-paths';
import type { Scope } from '../domain/scopes';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Whether the function uses the table and may write; the exact IAM grant is TABLE_GRANTS below. */
export type TableAccess = 'none' | 'read' | 'write';

interface RouteFields {
  /** verb-noun, also the handler file name: functions/<name>.ts */
  readonly name: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: {param} */
  readonly path: string;
  readonly access: TableAccess;
  readonly summary: string;
  readonly tag: string;
  /** Names of schemas in src/schemas (see schema registry) used by the OpenAPI document. */
  readonly request?: string;
  readonly response?: string;
  /** The response is a page envelope of `response` records. */
  readonly list?: boolean;
  /** Query schema name (lists and filters). */
  readonly query?: string;
  /** Extra documented statuses beyond the ones implied by auth/access/body. */
  readonly extraStatuses?: readonly number[];
  /** Media type of a success body that is not JSON (documented as a string). */
  readonly responseMediaType?: string;
  /** false: the success body is not one record (no ETag). */
  readonly etag?: false;
  /** A POST that starts work and answers 202 with its Location (no record, no ETag). */
  readonly accepted?: true;
  /** A POST that acts on an existing record and answers 200 with it (resume). */
  readonly acts?: true;
  /**
   * Scopes that admit the token as well as `scope` (any one of them suffices): routes whose records' scope depends
   * on the body or the record (imports: their type), which then check that scope themselves.
   */
  readonly orScopes?: readonly Scope[];
  /** Package files (paths under node_modules) the function reads at run time; CDK ships each next to the handler. */
  readonly bundleFiles?: readonly string[];
  /**
   * A read whose service takes a cold token along in its BatchGetItem (the handler passes `request.auth.along`:
   * list pages): one call fewer than the token's own GetItem beside the read (src/http/auth.ts).
   */
  readonly tokenAlong?: true;
}

/**
 * A route needs a bearer token with its `scope` (contract §15), or, only the
 * self-description routes, no token at all. The scope lives here alone: the
 * auth middleware, the OpenAPI document and the scope tests read it from this row.
 */
export type RouteDefinition = RouteFields &
  ({ readonly auth: true; readonly scope: Scope } | { readonly auth: false; readonly scope?: undefined });

/** The docs renderer get-docs inlines into its page (see src/openapi/docs-page.ts). */
export const REDOC_PACKAGE_FILE = 'redoc/bundles/redoc.standalone.js';

const p = (path: string): string => `${API_PREFIX}${path}`;

export const ROUTES = [
  {
    name: 'create-employee',
    method: 'POST',
    path: p('/employees'),
    access: 'write',
    auth: true,
    scope: 'employees:write',
    tag: 'Employees',
    summary: 'Create an employee',
    request: 'EmployeeCreate',
    response: 'Employee',
  },
  {
    name: 'list-employees',
    method: 'GET',
    path: p('/employees'),
    access: 'read',
    tokenAlong: true,
    auth: true,
    scope: 'employees:read',
    tag: 'Employees',
    summary: 'List employees',
    response: 'Employee',
    list: true,
    query: 'EmployeeQuery',
  },
  {
    name: 'get-employee',
    method: 'GET',
    path: p('/employees/{id}'),
    access: 'read',
    auth: true,
    scope: 'employees:read',
    tag: 'Employees',
    summary: 'Show an employee',
    response: 'Employee',
    query: 'EmployeeShowQuery',
  },
  {
    name: 'update-employee',
    method: 'PUT',
    path: p('/employees/{id}'),
    access: 'write',
    auth: true,
    scope: 'employees:write',
    tag: 'Employees',
    summary: 'Update an employee (partial)',
    request: 'EmployeeUpdate',
    response: 'Employee',
  },
  {
    name: 'create-employee-job',
    method: 'POST',
    path: p('/employee_jobs'),
    access: 'write',
    auth: true,
    scope: 'employees:write',
    tag: 'Employee jobs',
    summary: 'Create an employee job',
    request: 'EmployeeJobCreate',
    response: 'EmployeeJob',
    extraStatuses: [404],
  },
  {
    name: 'list-employee-jobs',
    method: 'GET',
    path: p('/employee_jobs'),
    access: 'read',
    tokenAlong: true,
    auth: true,
    scope: 'employees:read',
    tag: 'Employee jobs',
    summary: 'List employee jobs',
    response: 'EmployeeJob',
    list: true,
    query: 'EmployeeJobQuery',
  },
  {
    name: 'get-employee-job',
    method: 'GET',
    path: p('/employee_jobs/{id}'),
    access: 'read',
    auth: true,
    scope: 'employees:read',
    tag: 'Employee jobs',
    summary: 'Show an employee job',
    response: 'EmployeeJob',
  },
  {
    name: 'list-employee-payout-fields',
    method: 'GET',
    path: p('/employee_payout_fields'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'List payout field definitions',
    response: 'PayoutField',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'get-employee-payout-field',
    method: 'GET',
    path: p('/employee_payout_fields/{id}'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'Show a payout field definition',
    response: 'PayoutField',
  },
  {
    name: 'list-locations',
    method: 'GET',
    path: p('/locations'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'List locations',
    response: 'Location',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'get-location',
    method: 'GET',
    path: p('/locations/{id}'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'Show a location',
    response: 'Location',
  },
  {
    name: 'list-employee-fields',
    method: 'GET',
    path: p('/employee_fields'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'List custom employee field definitions',
    response: 'CustomField',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'list-employee-job-fields',
    method: 'GET',
    path: p('/employee_job_fields'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'List custom employee job field definitions',
    response: 'CustomField',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'list-application-fields',
    method: 'GET',
    path: p('/application_fields'),
    access: 'read',
    auth: true,
    scope: 'reference:read',
    tag: 'Reference data',
    summary: 'List custom application field definitions',
    response: 'CustomField',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'create-application',
    method: 'POST',
    path: p('/applications'),
    access: 'write',
    auth: true,
    scope: 'applications:write',
    tag: 'Applications',
    summary: 'Create an application',
    request: 'ApplicationCreate',
    response: 'Application',
    // A retried create whose application was erased since (application_erased, contract §17).
    extraStatuses: [410],
  },
  {
    name: 'list-applications',
    method: 'GET',
    path: p('/applications'),
    access: 'read',
    tokenAlong: true,
    auth: true,
    scope: 'applications:read',
    tag: 'Applications',
    summary: 'List applications',
    response: 'Application',
    list: true,
    query: 'ApplicationQuery',
  },
  {
    name: 'get-application',
    method: 'GET',
    path: p('/applications/{id}'),
    access: 'read',
    auth: true,
    scope: 'applications:read',
    tag: 'Applications',
    summary: 'Show an application',
    response: 'Application',
  },
  {
    name: 'update-application',
    method: 'PUT',
    path: p('/applications/{id}'),
    access: 'write',
    auth: true,
    scope: 'applications:write',
    tag: 'Applications',
    summary: 'Update an application (partial)',
    request: 'ApplicationUpdate',
    response: 'Application',
  },
  {
    name: 'list-changes',
    method: 'GET',
    path: p('/changes'),
    access: 'read',
    auth: true,
    scope: 'changes:read',
    tag: 'Change feed',
    summary: 'Read the change feed after a cursor',
    response: 'ChangePage',
    query: 'ChangesQuery',
    etag: false,
    extraStatuses: [410],
  },
  {
    name: 'delete-application',
    method: 'DELETE',
    path: p('/applications/{id}'),
    access: 'write',
    auth: true,
    scope: 'applications:write',
    tag: 'Applications',
    summary: 'Erase an application',
  },
  {
    name: 'create-attachment',
    method: 'POST',
    path: p('/applications/{id}/attachments'),
    access: 'write',
    auth: true,
    scope: 'applications:write',
    tag: 'Attachments',
    summary: 'Add an attachment (CV, document) to an application: answers the presigned upload',
    request: 'AttachmentCreate',
    response: 'AttachmentCreated',
    extraStatuses: [404],
  },
  {
    name: 'list-attachments',
    method: 'GET',
    path: p('/applications/{id}/attachments'),
    access: 'read',
    auth: true,
    scope: 'applications:read',
    tag: 'Attachments',
    summary: 'List the attachments of an application',
    response: 'Attachment',
    list: true,
    query: 'PageQuery',
    extraStatuses: [404],
  },
  {
    name: 'get-attachment',
    method: 'GET',
    path: p('/applications/{id}/attachments/{attachment_id}'),
    access: 'read',
    auth: true,
    scope: 'applications:read',
    tag: 'Attachments',
    summary: 'Show an attachment (with a short-lived download URL when available)',
    response: 'Attachment',
  },
  {
    name: 'delete-attachment',
    method: 'DELETE',
    path: p('/applications/{id}/attachments/{attachment_id}'),
    access: 'write',
    auth: true,
    scope: 'applications:write',
    tag: 'Attachments',
    summary: 'Delete an attachment and its bytes',
  },
  {
    name: 'create-webhook-subscription',
    method: 'POST',
    path: p('/webhook_subscriptions'),
    access: 'write',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'Subscribe a URL to changes (the signing secret is in this response only)',
    request: 'WebhookSubscriptionCreate',
    response: 'WebhookSubscriptionCreated',
    // A retried create whose subscription was deleted since (subscription_deleted, contract §14).
    extraStatuses: [410],
  },
  {
    name: 'list-webhook-subscriptions',
    method: 'GET',
    path: p('/webhook_subscriptions'),
    access: 'read',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'List webhook subscriptions',
    response: 'WebhookSubscription',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'get-webhook-subscription',
    method: 'GET',
    path: p('/webhook_subscriptions/{id}'),
    access: 'read',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'Show a webhook subscription (status, last delivery error; never the secret)',
    response: 'WebhookSubscription',
  },
  {
    name: 'delete-webhook-subscription',
    method: 'DELETE',
    path: p('/webhook_subscriptions/{id}'),
    access: 'write',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription; nothing more is delivered to it once this answers',
  },
  {
    name: 'list-webhook-deliveries',
    method: 'GET',
    path: p('/webhook_subscriptions/{id}/deliveries'),
    access: 'read',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'List the delivery attempts of a webhook subscription, newest first (the last 30 days)',
    response: 'WebhookDelivery',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'resume-webhook-subscription',
    method: 'POST',
    path: p('/webhook_subscriptions/{id}/resume'),
    access: 'write',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'Make a subscription active again, delivering what it missed or everything after a cursor',
    request: 'WebhookSubscriptionResume',
    response: 'WebhookSubscription',
    acts: true,
    // `from_cursor` past the feed's retention (cursor_expired, contract §26).
    extraStatuses: [410],
  },
  {
    name: 'ping-webhook-subscription',
    method: 'POST',
    path: p('/webhook_subscriptions/{id}/ping'),
    access: 'write',
    auth: true,
    scope: 'webhooks:manage',
    tag: 'Webhooks',
    summary: 'Send one signed `webhook.ping` entry to the subscription’s URL',
    response: 'WebhookPing',
    accepted: true,
  },
  {
    name: 'create-export',
    method: 'POST',
    path: p('/exports'),
    access: 'write',
    auth: true,
    // Plus the read scope of every type named in the body (contract §20), checked by the service.
    scope: 'changes:read',
    tag: 'Exports',
    summary: 'Start an export of every record of some types, with the change-feed cursor to follow after it',
    request: 'ExportCreate',
    response: 'ExportCreated',
    accepted: true,
  },
  {
    name: 'get-export',
    method: 'GET',
    path: p('/exports/{id}'),
    access: 'read',
    auth: true,
    scope: 'changes:read',
    tag: 'Exports',
    summary: 'Show an export: status, counts, feed cursor, download URL once completed',
    response: 'Export',
    etag: false,
  },
  {
    name: 'create-import',
    method: 'POST',
    path: p('/imports'),
    access: 'write',
    auth: true,
    // The write scope of the type named in the body (contract §22), checked by the function.
    scope: 'employees:write',
    orScopes: ['applications:write'],
    tag: 'Imports',
    summary: 'Start a bulk import: answers a presigned upload; the file is applied once it lands',
    request: 'ImportCreate',
    response: 'ImportCreated',
    extraStatuses: [409],
  },
  {
    name: 'list-imports',
    method: 'GET',
    path: p('/imports'),
    access: 'read',
    auth: true,
    scope: 'employees:read',
    orScopes: ['employees:write', 'applications:read', 'applications:write'],
    tag: 'Imports',
    summary:
      'The business’s imports, newest first (paginated); one of a type the token may not read comes without its results_url',
    response: 'Import',
    list: true,
    query: 'PageQuery',
  },
  {
    name: 'get-import',
    method: 'GET',
    path: p('/imports/{id}'),
    access: 'read',
    auth: true,
    // The read or write scope of the import's type, checked by the function.
    scope: 'employees:read',
    orScopes: ['employees:write', 'applications:read', 'applications:write'],
    tag: 'Imports',
    summary: 'Show an import: status, counts, results_url once completed',
    response: 'Import',
    etag: false,
  },
  {
    name: 'delete-import',
    method: 'DELETE',
    path: p('/imports/{id}'),
    access: 'write',
    auth: true,
    // The write scope of the import's type, checked by the function.
    scope: 'employees:write',
    orScopes: ['applications:write'],
    tag: 'Imports',
    summary: 'Cancel an import still awaiting its upload (204); a running or ended one answers 409',
    extraStatuses: [409],
  },
  {
    name: 'get-openapi',
    method: 'GET',
    path: p('/openapi.json'),
    access: 'none',
    auth: false,
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
  },
  {
    name: 'get-docs',
    method: 'GET',
    path: '/docs',
    access: 'none',
    auth: false,
    tag: 'Meta',
    summary: 'HTML API reference',
    responseMediaType: 'text/html',
    bundleFiles: [REDOC_PACKAGE_FILE],
  },
] as const satisfies readonly RouteDefinition[];

export type RouteName = (typeof ROUTES)[number]['name'];

/** The scopes any one of which admits a token to a route with a token (its `scope` first). */
export const scopesOf = (route: RouteDefinition): readonly Scope[] =>
  route.auth ? [route.scope, ...(route.orScopes ?? [])] : [];

/** Handles every request no row matches (404, or 405 with Allow); API Gateway's $default route. */
export const FALLBACK_ROUTE = { name: 'route-not-found', access: 'none' } as const;

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly pathParameters: Record<string, string>;
}

const compiled = ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/[.]/g, '\\.').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route: route as RouteDefinition, regex: new RegExp(`^${source}$`), names };
});

const isDecodable = (segment: string | undefined): boolean => {
  try {
    decodeURIComponent(segment ?? '');
    return true;
  } catch {
    return false;
  }
};

/** Matches a request path: the route for this method, or the methods the path allows. */
export function matchRoute(method: string, path: string): { match?: RouteMatch; allowed: HttpMethod[] } {
  const allowed: HttpMethod[] = [];
  let match: RouteMatch | undefined;
  for (const { route, regex, names } of compiled) {
    const m = regex.exec(path);
    if (!m || !m.slice(1).every(isDecodable)) continue;
    allowed.push(route.method);
    if (route.method === method && !match) {
      const pathParameters: Record<string, string> = {};
      names.forEach((n, i) => {
        pathParameters[n] = decodeURIComponent(m[i + 1] ?? '');
      });
      match = { route, pathParameters };
    }
  }
  return { match, allowed };
}

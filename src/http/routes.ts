/**
 * The route table: the single source for the CDK stack (one function per row),
 * the local server (same handlers, same matching), the OpenAPI document and
 * each route's token scope (contract §15).
 * Adding an endpoint = one row here + `functions/<name>.ts` exporting `handler`.
 *
 * Kept free of runtime imports (only the import-free API prefix, the scope names
 * and the table's index names) so CDK synth, the local server and the OpenAPI builder can load it
 * without pulling runtime code.
 */
import { API_PREFIX } from '../domain/api-paths';
import type { Scope } from '../domain/scopes';
import type { IndexName } from '../data/table-definition';
import type { PatternIndex } from '../data/entities/entity';
import { application } from '../data/entities/application';
import { employee, employeeJob } from '../data/entities/employee';
import { reference } from '../data/entities/reference';
import { webhookSubscription } from '../data/entities/webhook-subscription';

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
  /** Package files (paths under node_modules) the function reads at run time; CDK ships each next to the handler. */
  readonly bundleFiles?: readonly string[];
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
    auth: true,
    scope: 'employees:read',
    tag: 'Employees',
    summary: 'List employees',
    response: 'Employee',
    list: true,
    query: 'PageQuery',
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

/** Handles every request no row matches (404, or 405 with Allow); API Gateway's $default route. */
export const FALLBACK_ROUTE = { name: 'route-not-found', access: 'none' } as const;

/**
 * A DynamoDB action a function may call (IAM name without `dynamodb:`).
 * TransactWriteItems has no IAM action of its own: it is authorized by the
 * item actions it contains (Put -> PutItem, Update -> UpdateItem, Delete ->
 * DeleteItem, ConditionCheck -> ConditionCheckItem).
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem';

/** What one function's code path sends to the table; CDK grants exactly this (table ARN + these index ARNs). */
export interface TableGrant {
  readonly actions: readonly TableAction[];
  /** GSIs the function queries; Query on the table itself needs none. */
  readonly indexes: readonly IndexName[];
}

/** The GSIs the access patterns a code path reads go to (the entity modules own the index names). */
const indexesOf = (...patterns: readonly { readonly index: PatternIndex }[]): IndexName[] => [
  ...new Set(patterns.flatMap((p) => (p.index === 'table' ? [] : [p.index]))),
];

const NO_TABLE: TableGrant = { actions: [], indexes: [] };
// Every authenticated route reads its token with one GetItem (src/data/token-store.ts) unless the instance
// keeps its lookup (src/http/auth.ts).
/** token GetItem + business config and record in one BatchGetItem */
/** What erasing one application sends (DELETE /applications/{id}, and retention per application). */
const ERASURE_ACTIONS: TableGrant['actions'] = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'DeleteItem',
  'UpdateItem',
  'ConditionCheckItem',
  'BatchWriteItem',
];
const READ_ONE: TableGrant = { actions: ['GetItem', 'BatchGetItem'], indexes: [] };
/** token GetItem + the pre-rendered record's GetItem */
const REFERENCE_ONE: TableGrant = { actions: ['GetItem'], indexes: [] };
/** token GetItem + counter BatchGetItem + one Query of the page's positions */
const REFERENCE_PAGE: TableGrant = {
  actions: ['GetItem', 'BatchGetItem', 'Query'],
  indexes: indexesOf(reference.patterns.byPosition),
};

/**
 * Per route (and the fallback): the DynamoDB actions and indexes its code
 * path uses, derived from the code, checked against the calls the integration
 * tests observe (test/support/dynamo-calls.ts) and granted one to one by the
 * CDK stack. A new route does not compile without its row here.
 */
export const TABLE_GRANTS: Readonly<Record<RouteName | typeof FALLBACK_ROUTE.name, TableGrant>> = {
  // token + config/counter/idempotency BatchGet + one transaction: counter Update, record/idempotency/number Put
  'create-employee': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], indexes: [] },
  'list-employees': { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: indexesOf(employee.patterns.byPosition) },
  'get-employee': READ_ONE,
  // a changed employee_number releases (Delete) the old unique item and claims (Put) the new one
  'update-employee': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], indexes: [] },
  // + ConditionCheck that the supervisor exists
  'create-employee-job': {
    actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    indexes: [],
  },
  // business list, or one employee's jobs
  'list-employee-jobs': {
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    indexes: indexesOf(...Object.values(employeeJob.patterns)),
  },
  'get-employee-job': READ_ONE,
  'list-employee-payout-fields': REFERENCE_PAGE,
  'get-employee-payout-field': REFERENCE_ONE,
  'list-locations': REFERENCE_PAGE,
  'get-location': REFERENCE_ONE,
  'list-employee-fields': REFERENCE_PAGE,
  'list-employee-job-fields': REFERENCE_PAGE,
  'list-application-fields': REFERENCE_PAGE,
  // record/idempotency Put, counter and position map Updates
  'create-application': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], indexes: [] },
  // every filter's access path (docs/pagination.md); counters and position maps are a BatchGetItem
  'list-applications': {
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    indexes: indexesOf(...Object.values(application.patterns)),
  },
  'get-application': READ_ONE,
  // record Put (version condition), counter and position map Updates
  'update-application': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], indexes: [] },
  // token + lane counters BatchGet + the page's entries BatchGet by key (base table, consistent; never an index)
  'list-changes': READ_ONE,
  // record Delete (version condition), counter and position map Updates, idempotency record Delete,
  // the feed's application.deleted entry Put and lane counter Update
  // + its attachments (src/services/attachments.ts eraseAttachments): their partition's Query, the records' and
  // count's BatchWriteItem, and the transaction's ConditionCheck that none came meanwhile
  'delete-application': {
    actions: ERASURE_ACTIONS,
    indexes: [],
  },
  // application + idempotency BatchGet, one transaction: count Update, record Put, application ConditionCheck
  'create-attachment': {
    actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    indexes: [],
  },
  // the application's attachment partition (Query) beside the application (BatchGetItem)
  'list-attachments': { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: [] },
  'get-attachment': READ_ONE,
  // record + feed lane BatchGet, one transaction: record Delete, count Update, feed entry Put and lane Update
  'delete-attachment': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'DeleteItem', 'UpdateItem'], indexes: [] },
  // the change feed's end (lane counters BatchGet), then subscription + idempotency Put and count Update in one
  // transaction; at the cap, the idempotency record (GetItem) for a replay
  'create-webhook-subscription': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], indexes: [] },
  // the business's subscription partition
  'list-webhook-subscriptions': { actions: ['GetItem', 'Query'], indexes: [] },
  'get-webhook-subscription': REFERENCE_ONE,
  // the subscription, then one transaction: its Delete, the count and its create's idempotency record Updates
  'delete-webhook-subscription': { actions: ['GetItem', 'DeleteItem', 'UpdateItem'], indexes: [] },
  // lane counters (the feed cursor) and the idempotency record BatchGet, then the job Put (the worker: WORKER_GRANTS)
  'create-export': { actions: ['GetItem', 'BatchGetItem', 'PutItem'], indexes: [] },
  // the job BatchGet (a job whose worker died gets a new worker run)
  'get-export': READ_ONE,
  'get-openapi': NO_TABLE,
  'get-docs': NO_TABLE,
  'route-not-found': NO_TABLE,
};

/**
 * Every function of a route with a token also sends the rate count syncs
 * (src/data/rate-counts.ts): UpdateItem of the `RATE#` counter items and of no
 * other item (the CDK stack adds it as its own statement with a
 * `dynamodb:LeadingKeys` condition, so a GET route still writes no record).
 * The tests attribute those calls to RATE_COUNTS_SCOPE (src/data/call-scope.ts).
 */
export const RATE_COUNT_GRANT = { actions: ['UpdateItem'], indexes: [] } as const satisfies TableGrant;

/**
 * Functions that are not routes (a schedule or a queue triggers them), granted
 * and checked against the calls the tests observe the same way as TABLE_GRANTS.
 */
export const WORKER_GRANTS = {
  // subscriptions (GetItem, conditional UpdateItem), the due ones (Query of the `list-keys` index),
  // the change feed (lane counters and entries by key: BatchGetItem)
  'dispatch-webhooks': {
    actions: ['GetItem', 'BatchGetItem', 'Query', 'UpdateItem'],
    indexes: indexesOf(webhookSubscription.patterns.due),
  },
  // the business registry (Query of its partition, BatchGetItem of one entry), the order of writes (Query of
  // `updatedlist-keys`, keys only), then per application exactly what DELETE /applications/{id} sends: BatchGetItem,
  // one transaction (record Delete, counter/map/idempotency/feed Updates, feed entry Put), redactions (UpdateItem),
  // the witness GetItem of an ambiguous write
  // (and, as DELETE does, the attachments' Query, BatchWriteItem and ConditionCheck)
  'apply-retention': {
    actions: ERASURE_ACTIONS,
    indexes: indexesOf(application.patterns.updatedSince),
  },
  // the attachment and its application's feed lane (BatchGetItem), one transaction: record Put, feed entry Put and
  // lane Update
  'check-attachment': { actions: ['BatchGetItem', 'PutItem', 'UpdateItem'], indexes: [] },
  // the job (conditional UpdateItem under its lease), the config (BatchGetItem), each type's record partition
  // (consistent Query of the table, no index)
  'run-export': {
    actions: ['BatchGetItem', 'Query', 'UpdateItem'],
    indexes: indexesOf(application.patterns.byId, employee.patterns.byId, employeeJob.patterns.byId),
  },
} as const satisfies Record<string, TableGrant>;

/**
 * The S3 actions each function needs on the attachments bucket (contract
 * §19), each on the object prefix it uses (src/domain/attachments.ts:
 * `uploads/` receives presigned POSTs, `attachments/` holds checked files);
 * CDK grants exactly these. A presigned URL needs the action it performs.
 */
export type BucketAction = 's3:PutObject' | 's3:GetObject' | 's3:DeleteObject';
export interface BucketGrant {
  readonly uploads?: readonly BucketAction[];
  readonly attachments?: readonly BucketAction[];
}
export const BUCKET_GRANTS: Partial<Record<RouteName | keyof typeof WORKER_GRANTS, BucketGrant>> = {
  // the presigned POST
  'create-attachment': { uploads: ['s3:PutObject'] },
  // the presigned GET of each available attachment
  'list-attachments': { attachments: ['s3:GetObject'] },
  'get-attachment': { attachments: ['s3:GetObject'] },
  // its bytes wherever they are (DeleteObjects is authorised per object as DeleteObject)
  'delete-attachment': { uploads: ['s3:DeleteObject'], attachments: ['s3:DeleteObject'] },
  // erasure deletes the application's attachments' bytes
  'delete-application': { uploads: ['s3:DeleteObject'], attachments: ['s3:DeleteObject'] },
  'apply-retention': { uploads: ['s3:DeleteObject'], attachments: ['s3:DeleteObject'] },
  // HeadObject and GetObject of the upload, its deletion; the copy of a good one (read upload, write attachments/)
  'check-attachment': { uploads: ['s3:GetObject', 's3:DeleteObject'], attachments: ['s3:PutObject'] },
};

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

/**
 * What each function may do on the table and the attachments bucket: the IAM
 * grants the CDK stack gives one to one, checked against the calls the tests
 * observe (test/support/dynamo-calls.ts). Apart from the route table
 * (src/http/routes.ts) because it reads the entities' index names: no
 * function's bundle needs them at run time.
 */
import type { IndexName } from '../data/dynamo/table-definition';
import type { PatternIndex } from '../data/entities/entity';
import { application } from '../data/entities/application';
import { employee, employeeJob } from '../data/entities/employee';
import { reference } from '../data/entities/reference';
import { webhookSubscription } from '../data/entities/webhook-subscription';
import type { FALLBACK_ROUTE, RouteName } from './routes';

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
  // token + config/idempotency BatchGet beside the employee lane counters' Query + one transaction: counter Update,
  // record/idempotency/number Put; now and then the fold of its list's summary beside the request (Query, then a transaction of Updates)
  'create-employee': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'Query'], indexes: [] },
  'list-employees': { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: indexesOf(employee.patterns.byPosition) },
  'get-employee': READ_ONE,
  // a changed employee_number releases (Delete) the old unique item and claims (Put) the new one
  'update-employee': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], indexes: [] },
  // + ConditionCheck that the supervisor exists; the fold of a summary as a create's (Query)
  'create-employee-job': {
    actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'Query'],
    indexes: [],
  },
  // business list, or one employee's jobs
  'list-employee-jobs': {
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    indexes: indexesOf(employeeJob.patterns.byPosition, employeeJob.patterns.byEmployee),
  },
  'get-employee-job': READ_ONE,
  'list-employee-payout-fields': REFERENCE_PAGE,
  'get-employee-payout-field': REFERENCE_ONE,
  'list-locations': REFERENCE_PAGE,
  'get-location': REFERENCE_ONE,
  'list-employee-fields': REFERENCE_PAGE,
  'list-employee-job-fields': REFERENCE_PAGE,
  'list-application-fields': REFERENCE_PAGE,
  // record/idempotency Put, summary and position map Updates, the reservation UpdateItem and the application lane
  // counters' Query beside the read; now and then the fold of a list's summary beside the request (Query, then a transaction of Updates)
  'create-application': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'Query'], indexes: [] },
  // every filter's access path (docs/pagination.md); summaries and position maps are Queries of the table
  'list-applications': {
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    indexes: indexesOf(...Object.values(application.patterns)),
  },
  'get-application': READ_ONE,
  // record Put (version condition), summary and position map Updates; the fold of a summary as a create's (Query)
  'update-application': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'Query'], indexes: [] },
  // token GetItem, the lane counters' Query, the page's entries by key (BatchGetItem)
  'list-changes': { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: [] },
  // record Delete (version condition), counter and position map Updates, idempotency record Delete,
  // the feed's application.deleted entry Put and lane counter Update
  // + its attachments (src/services/attachments.ts eraseAttachments): their partition's Query, one transaction
  // (records' and count's Delete, idempotency and feed Updates), and the ConditionCheck that none came meanwhile
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
  // the change feed's end (the lane counters' Query), then subscription + idempotency Put and count Update in one
  // transaction; at the cap, the idempotency record (GetItem) for a replay
  'create-webhook-subscription': { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'], indexes: [] },
  // the business's subscription partition
  'list-webhook-subscriptions': { actions: ['GetItem', 'Query'], indexes: [] },
  'get-webhook-subscription': REFERENCE_ONE,
  // the subscription, then one transaction: its Delete, the count and its create's idempotency record Updates
  'delete-webhook-subscription': { actions: ['GetItem', 'DeleteItem', 'UpdateItem'], indexes: [] },
  // the subscription (GetItem) beside its first day mark in the delivery log (Query), then the page's key range (Query)
  'list-webhook-deliveries': { actions: ['GetItem', 'Query'], indexes: [] },
  // the subscription beside the lane counters' Query and the idempotency record, then one transaction: its Update
  // (and the idempotency record's Put)
  'resume-webhook-subscription': { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'], indexes: [] },
  // the idempotency record when a key is sent, then one transaction: the subscription's Update (and the record's Put)
  'ping-webhook-subscription': { actions: ['GetItem', 'PutItem', 'UpdateItem'], indexes: [] },
  // the lane counters' Query (the feed cursor) beside the idempotency record's BatchGet, then the job Put (the worker: WORKER_GRANTS)
  'create-export': { actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem'], indexes: [] },
  // the job BatchGet (a job whose worker died gets a new worker run)
  'get-export': READ_ONE,
  // the count and the idempotency record, then the import in progress with its feed lane counters (BatchGetItem), then
  // one transaction: count Update, import Put, its entry among the imports in progress Put (and, ending an import
  // whose upload expired, its Update, its entry's Delete, the lane counter Update and its import.failed entry Put)
  'create-import': { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], indexes: [] },
  // the count (BatchGetItem) and the page's key range of the imports partition (Query)
  'list-imports': { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: [] },
  'get-import': READ_ONE,
  // the import, then one transaction: its Update, its entry among the imports in progress Delete, the count's Update
  'delete-import': { actions: ['GetItem', 'BatchGetItem', 'UpdateItem', 'DeleteItem'], indexes: [] },
  'get-openapi': NO_TABLE,
  'get-docs': NO_TABLE,
  'route-not-found': NO_TABLE,
};

/**
 * Every function of a route with a token also sends the rate count syncs
 * (src/data/rate-counts.ts): UpdateItem of the `RATE#` counter items and of no
 * other item (the CDK stack adds it as its own statement with a
 * `dynamodb:LeadingKeys` condition, so a GET route still writes no record).
 * The tests attribute those calls to RATE_COUNTS_SCOPE (src/data/dynamo/call-scope.ts).
 */
export const RATE_COUNT_GRANT = { actions: ['UpdateItem'], indexes: [] } as const satisfies TableGrant;

/**
 * Functions that are not routes (a schedule or a queue triggers them), granted
 * and checked against the calls the tests observe the same way as TABLE_GRANTS.
 */
export const WORKER_GRANTS = {
  // subscriptions (GetItem, conditional UpdateItem), the due ones (Query of the `list-keys` index),
  // the change feed (the lane counters' Query, the entries by key: BatchGetItem), the delivery log (BatchWriteItem
  // of attempts, UpdateItem of a day mark)
  'dispatch-webhooks': {
    actions: ['GetItem', 'BatchGetItem', 'Query', 'UpdateItem', 'BatchWriteItem'],
    indexes: indexesOf(webhookSubscription.patterns.due),
  },
  // the business registry (Query of its partition, BatchGetItem of one entry), the order of writes (Query of
  // `updatedlist-keys`, keys only), then per application exactly what DELETE /applications/{id} sends: BatchGetItem,
  // one transaction (record Delete, counter/map/idempotency/feed Updates, feed entry Put), redactions (UpdateItem),
  // the witness GetItem of an ambiguous write
  // (and, as DELETE does, the attachments' Query, their transaction and the ConditionCheck)
  'apply-retention': {
    actions: ERASURE_ACTIONS,
    indexes: indexesOf(application.patterns.updatedSince),
  },
  // the business registry (Query of its partition), per due day the jobs starting that day and ending the day before
  // (Query of the day indexes, keys only), the config, then per group of employees of one feed lane the employees and
  // the lane counter (BatchGetItem) and one transaction (employee Updates, lane counter Update, entry Puts), the
  // witness GetItem of an ambiguous write, and the day done (UpdateItem of the registry entry)
  'apply-effective-dates': {
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem'],
    indexes: indexesOf(employeeJob.patterns.startingOn, employeeJob.patterns.endingOn),
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
  // the import (BatchGetItem, its lease and progress: conditional UpdateItem), the config; per row what the row's
  // single request sends (create-employee, update-employee, create-employee-job, create-application,
  // update-application: BatchGetItem, one transaction of Put/Update/Delete/ConditionCheck items, the witness GetItem of
  // an ambiguous write) with its external id and result items, the results of rows that write nothing
  // (BatchWriteItem), the stored results (Query of the import's row partition); the end: feed lane BatchGetItem and
  // one transaction (import, count, feed entry Updates and Put, the import's entry among those in progress Delete);
  // the watchdog: Query of the imports in progress, then each import's end as above
  'run-import': {
    actions: [
      'GetItem',
      'BatchGetItem',
      'Query',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'ConditionCheckItem',
      'BatchWriteItem',
    ],
    indexes: [],
  },
} as const satisfies Record<string, TableGrant>;

/**
 * The S3 actions each function needs on the attachments bucket (contract
 * §19), each on the object prefix it uses (src/domain/attachments.ts:
 * `uploads/` receives presigned POSTs, `attachments/` holds checked files);
 * CDK grants exactly these. A presigned URL needs the action it performs.
 */
export type BucketAction = 's3:PutObject' | 's3:GetObject' | 's3:DeleteObject' | 's3:AbortMultipartUpload';
export interface BucketGrant {
  readonly uploads?: readonly BucketAction[];
  readonly attachments?: readonly BucketAction[];
  /** `imports/` (src/domain/imports.ts): uploaded import files and results files. */
  readonly imports?: readonly BucketAction[];
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
  // the presigned POST of the import file
  'create-import': { imports: ['s3:PutObject'] },
  // the presigned GET of a completed import's results file
  'get-import': { imports: ['s3:GetObject'] },
  'list-imports': { imports: ['s3:GetObject'] },
  // a cancelled import's upload, if one came anyway
  'delete-import': { imports: ['s3:DeleteObject'] },
  // HeadObject/GetObject of the upload and its deletion; the results file's multipart upload (aborted on failure)
  'run-import': { imports: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'] },
};

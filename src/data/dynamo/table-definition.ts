/**
 * The one definition of the DynamoDB table. The CDK stack and the local/test
 * setup (scripts/lib/dynamodb-local.ts) both build the table from this object, so a
 * key or index exists locally exactly when it exists on AWS.
 *
 * Index names say what they serve; every list index projects only keys and a
 * few small attributes that a name or email change never touches, so an update
 * does not rewrite its entries (docs/deploy.md "Capacity per operation").
 * Pages read their index entries, then the records by key. Index attributes
 * are named after their index: `ListPK`/`ListSK`, `SubPK`/`SubSK`,
 * `StatusPK`/`StatusSK`, `UpdatedPK`/`UpdatedSK`.
 * - `list-keys`        dense page-number lists (partition = one list, sort = position 1..n); keys only
 * - `sublist-keys`     a second list the same item belongs to (an employee's jobs, a job opening's
 *                      applications) + `application_status_id` (status + job_id pages filter on it)
 * - `statuslist-keys`  applications of one status, sorted by their position in the business list; keys only
 * - `updatedlist-keys` applications by their position in the order of writes (updated_at_since pages) + the
 *                      attributes its filters use; the entry moves on every write anyway
 * - `jobstart-keys`    employee jobs by the day they start (partition = business + `from`, sort = employee id);
 *                      keys only. With `jobend-keys` (business + `to`, open-ended jobs absent) the effective-date
 *                      run finds the employees whose derived fields change on a day by key (docs/decisions/028)
 */
import { APPLICATION_FILTERS, APPLICATION_FILTER_FIELDS } from '../../schemas/application-filters';

export type KeyType = 'S' | 'N';

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: { readonly name: string; readonly type: KeyType };
  /** Attributes copied into the index besides the keys ([] = KEYS_ONLY). Undefined = ALL. */
  readonly include?: readonly string[];
}

/** DynamoDB's projection of an index definition (CreateTable, CloudFormation and the infra tests). */
export function projectionOf(index: IndexDefinition): {
  ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  NonKeyAttributes?: string[];
} {
  if (index.include === undefined) return { ProjectionType: 'ALL' };
  if (index.include.length === 0) return { ProjectionType: 'KEYS_ONLY' };
  return { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] };
}

const LIST_INDEXES = [
  { name: 'list-keys', partitionKey: 'ListPK', sortKey: { name: 'ListSK', type: 'N' }, include: [] },
  {
    name: 'sublist-keys',
    partitionKey: 'SubPK',
    sortKey: { name: 'SubSK', type: 'N' },
    include: [APPLICATION_FILTERS.application_status_id.field],
  },
  { name: 'statuslist-keys', partitionKey: 'StatusPK', sortKey: { name: 'StatusSK', type: 'N' }, include: [] },
  {
    name: 'updatedlist-keys',
    partitionKey: 'UpdatedPK',
    sortKey: { name: 'UpdatedSK', type: 'N' },
    include: APPLICATION_FILTER_FIELDS,
  },
  { name: 'jobstart-keys', partitionKey: 'StartPK', sortKey: { name: 'StartSK', type: 'S' }, include: [] },
  { name: 'jobend-keys', partitionKey: 'EndPK', sortKey: { name: 'EndSK', type: 'S' }, include: [] },
] as const satisfies readonly IndexDefinition[];

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expires_at',
  indexes: LIST_INDEXES,
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/**
 * What the items of the table look like, as a number raised with every change of what an item holds or where
 * (the decision that changed it: 26, employee jobs by the days they start and end). A local table records it in one item when it is
 * created, and a local table of another layout is refused (scripts/lib/dynamodb-local.ts ensureTable): nothing is
 * deployed, so nothing converts old local data (decision 001).
 */
export const TABLE_LAYOUT = { key: { PK: 'TABLE', SK: 'layout' }, version: 22 } as const;

export const DEFAULT_TABLE_NAME = 'hr-api';

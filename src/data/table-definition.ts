/**
 * The one definition of the DynamoDB table. The CDK stack and the local/test
 * setup (scripts/lib/dynamodb-local.ts) both build the table from this object, so a
 * key or index exists locally exactly when it exists on AWS.
 *
 * Index names say what they serve; every list index projects only keys and a
 * few small attributes that a name or email change never touches, so an update
 * does not rewrite its entries (issue 19, docs/deploy.md "Capacity per
 * operation"). Pages read their index entries, then the records by key.
 * - `list-keys`        dense page-number lists (partition = one list, sort = position 1..n); keys only
 * - `sublist-keys`     a second list the same item belongs to (an employee's jobs, a job opening's
 *                      applications) + `application_status_id` (status + job_id pages filter on it)
 * - `statuslist-keys`  applications of one status, sorted by their position in the business list; keys only
 * - `updatedlist-keys` applications by their position in the order of writes (updated_at_since pages) + the
 *                      attributes its filters use; the entry moves on every write anyway
 */
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
  { name: 'list-keys', partitionKey: 'L1PK', sortKey: { name: 'L1SK', type: 'N' }, include: [] },
  {
    name: 'sublist-keys',
    partitionKey: 'L2PK',
    sortKey: { name: 'L2SK', type: 'N' },
    include: ['application_status_id'],
  },
  { name: 'statuslist-keys', partitionKey: 'L3PK', sortKey: { name: 'L3SK', type: 'N' }, include: [] },
  {
    name: 'updatedlist-keys',
    partitionKey: 'T4PK',
    sortKey: { name: 'T4SK', type: 'N' },
    include: ['application_status_id', 'job_id', 'created_at', 'updated_at'],
  },
] as const satisfies readonly IndexDefinition[];

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expires_at',
  indexes: LIST_INDEXES,
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/**
 * The indexes of every table deployed before the list indexes projected only
 * keys: the same list keys with ALL projections under the old names, and three
 * time indexes nothing writes any more.
 */
export const LEGACY_INDEXES: readonly IndexDefinition[] = [
  { name: 'list', partitionKey: 'L1PK', sortKey: { name: 'L1SK', type: 'N' } },
  { name: 'sublist', partitionKey: 'L2PK', sortKey: { name: 'L2SK', type: 'N' } },
  { name: 'statuslist', partitionKey: 'L3PK', sortKey: { name: 'L3SK', type: 'N' } },
  { name: 'created', partitionKey: 'T1PK', sortKey: { name: 'T1SK', type: 'S' }, include: ['L1SK'] },
  { name: 'subcreated', partitionKey: 'T2PK', sortKey: { name: 'T2SK', type: 'S' }, include: ['L2SK'] },
  {
    name: 'updated',
    partitionKey: 'T3PK',
    sortKey: { name: 'T3SK', type: 'S' },
    include: ['L1SK', 'application_status_id', 'job_id', 'created_at'],
  },
  { name: 'updatedlist', partitionKey: 'T4PK', sortKey: { name: 'T4SK', type: 'N' } },
];

/** The legacy index a new list index replaces (same keys, ALL projection): read until the new one is ACTIVE. */
export const LEGACY_NAME: Readonly<Record<IndexName, string>> = {
  'list-keys': 'list',
  'sublist-keys': 'sublist',
  'statuslist-keys': 'statuslist',
  'updatedlist-keys': 'updatedlist',
};

/**
 * From a legacy table to TABLE, one GSI per CloudFormation update (a table
 * update may create or delete one GSI; a projection cannot change in place).
 * docs/deploy.md "Index migration" runs them in order with `-c indexStep=<n>`:
 * first the four new indexes are added (the functions keep reading the legacy
 * ones, LIST_INDEXES=legacy), then the functions switch to the new ones and the
 * legacy indexes go, one per deploy. A new table is created at the last step.
 */
export const INDEX_STEPS: readonly (
  { readonly add: IndexName; readonly readLegacy: boolean } | { readonly remove: string; readonly readLegacy: boolean }
)[] = [
  { add: 'list-keys', readLegacy: true },
  { add: 'sublist-keys', readLegacy: true },
  { add: 'statuslist-keys', readLegacy: true },
  { add: 'updatedlist-keys', readLegacy: true },
  // Nothing reads or writes the time indexes: their removal is also the deploy that switches the reads.
  { remove: 'created', readLegacy: false },
  { remove: 'subcreated', readLegacy: false },
  { remove: 'updated', readLegacy: false },
  { remove: 'list', readLegacy: false },
  { remove: 'sublist', readLegacy: false },
  { remove: 'statuslist', readLegacy: false },
  { remove: 'updatedlist', readLegacy: false },
];

/** The table's indexes after `step` steps of INDEX_STEPS (0 = legacy table, INDEX_STEPS.length = TABLE). */
export function indexesAtStep(step: number): { indexes: IndexDefinition[]; readLegacy: boolean } {
  if (!Number.isInteger(step) || step < 0 || step > INDEX_STEPS.length)
    throw new Error(`indexStep must be a whole number from 0 to ${INDEX_STEPS.length}, got ${step}`);
  let indexes: IndexDefinition[] = [...LEGACY_INDEXES];
  let readLegacy = true;
  for (const s of INDEX_STEPS.slice(0, step)) {
    if ('add' in s) indexes.push(TABLE.indexes.find((i) => i.name === s.add)!);
    else indexes = indexes.filter((i) => i.name !== s.remove);
    readLegacy = s.readLegacy;
  }
  return { indexes, readLegacy };
}

export const DEFAULT_TABLE_NAME = 'hr-api';

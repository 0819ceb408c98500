/**
 * The one definition of the DynamoDB table. The CDK stack and the local/test
 * setup (scripts/lib/dynamodb-local.ts) both build the table from this object, so a
 * key or index exists locally exactly when it exists on AWS.
 *
 * Index names say what they serve:
 * - `list`      dense page-number lists (partition = one list, sort = position 1..n)
 * - `sublist`   a second list the same item belongs to (an employee's jobs, a job opening's applications)
 * - `statuslist` applications of one status, sorted by their position in the business list
 * - `created`   first position at or after a created_at, business list
 * - `subcreated` first position at or after a created_at, sub list
 * - `updated`   applications by updated_at (the one filter without a dense order)
 */
export type KeyType = 'S' | 'N';

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: { readonly name: string; readonly type: KeyType };
  /** Attributes copied into a non-ALL index besides the keys. Undefined = ALL. */
  readonly include?: readonly string[];
}

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expires_at',
  indexes: [
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
  ] as const satisfies readonly IndexDefinition[],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

export const DEFAULT_TABLE_NAME = 'hr-api';

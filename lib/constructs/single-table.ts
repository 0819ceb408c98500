import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { IndexDefinition, KeyType } from '../../src/data/dynamo/table-definition';

/** The shape of src/data/dynamo/table-definition.ts's TABLE, so the builder can be tested with other definitions. */
export interface TableDefinition {
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly ttlAttribute: string;
  readonly indexes: readonly IndexDefinition[];
}

const ATTRIBUTE_TYPES: Record<KeyType, dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
};

/** CDK Table key/index props derived from the one table definition (pure, no scope needed). */
export function tableKeys(definition: TableDefinition): {
  partitionKey: dynamodb.Attribute;
  sortKey: dynamodb.Attribute;
  globalSecondaryIndexes: dynamodb.GlobalSecondaryIndexProps[];
} {
  return {
    partitionKey: { name: definition.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: definition.sortKey, type: dynamodb.AttributeType.STRING },
    globalSecondaryIndexes: definition.indexes.map((index) => ({
      indexName: index.name,
      // Index partition keys are always strings in the definition; sort keys carry their type.
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey.name, type: ATTRIBUTE_TYPES[index.sortKey.type] },
      ...(index.include === undefined
        ? { projectionType: dynamodb.ProjectionType.ALL }
        : index.include.length === 0
          ? { projectionType: dynamodb.ProjectionType.KEYS_ONLY }
          : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] }),
    })),
  };
}

/**
 * The production table, built from src/data/dynamo/table-definition.ts: on-demand, point-in-time
 * recovery, deletion protection, retained on stack deletion, encrypted with the
 * AWS managed key, TTL on the definition's attribute.
 */
export function createSingleTable(scope: Construct, id: string, definition: TableDefinition): dynamodb.Table {
  const keys = tableKeys(definition);
  const table = new dynamodb.Table(scope, id, {
    partitionKey: keys.partitionKey,
    sortKey: keys.sortKey,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    timeToLiveAttribute: definition.ttlAttribute,
  });
  for (const gsi of keys.globalSecondaryIndexes) table.addGlobalSecondaryIndex(gsi);
  return table;
}

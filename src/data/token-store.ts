import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { tableName } from './config';
import { keys } from './keys';
import { getItem } from './table-io';

/** 256 random bits; the prefix makes leaked tokens easy to spot by secret scanners. */
export const TOKEN_PATTERN = /^hr_[A-Za-z0-9_-]{43}$/;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Creates a token for a business; only its hash is stored, the token is returned once. */
export async function issueToken(businessId: string, label = 'admin'): Promise<string> {
  const token = `hr_${randomBytes(32).toString('base64url')}`;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.token(hashToken(token)), business_id: businessId, label, created_at: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return token;
}

/**
 * The business a token belongs to. The lookup is by hash, so no comparison of
 * secret bytes happens in our code (the key equality inside DynamoDB does not
 * leak timing a caller can use).
 */
export async function businessOfToken(token: string): Promise<string | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const item = await getItem(keys.token(hashToken(token)));
  return typeof item?.business_id === 'string' ? item.business_id : undefined;
}

/** Revoked = deleted: a revoked token is exactly an unknown one. Returns whether it existed. */
export async function revokeToken(token: string): Promise<boolean> {
  const out = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.token(hashToken(token)), ReturnValues: 'ALL_OLD' }),
  );
  return out.Attributes !== undefined;
}

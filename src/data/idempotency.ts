import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import { applicationErased, idempotencyKeyReused, subscriptionDeleted } from '../domain/errors';
import type { ApiResult } from '../domain/result';
import { keys, type Key } from './dynamo/keys';
import type { Item } from './dynamo/table-io';
import { commitWrite, type TxWrite, type WriteHooks } from './dynamo/transact-write';
import { withRetries } from './dynamo/with-retries';
import { IF_ABSENT } from './entities/entity';
import { ifNotExists, updateOf } from './dynamo/update-expression';

/** Contract §11: retries within 24 hours replay the first response. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface Idempotency {
  readonly key: Key;
  readonly requestHash: string;
  /** Hash of method and path alone: what an erased record's tombstone still checks. */
  readonly targetHash: string;
}

/** The request a key is bound to besides its body (contract §11). */
export interface RequestTarget {
  readonly method: string;
  readonly path: string;
}

/**
 * The record key and request hash of a create; no key (header absent) = no
 * idempotency. The key is bound to method, path and body, the body compared as
 * a JSON value (canonical JSON: sorted keys, no whitespace), so only the same
 * request replays.
 */
export function idempotencyOf(
  businessId: string,
  key: string | undefined,
  body: unknown,
  target: RequestTarget,
): Idempotency | undefined {
  if (key === undefined) return undefined;
  const line = `${target.method.toUpperCase()} ${target.path}`;
  const requestHash = createHash('sha256')
    .update(`${line}\n${stableStringify(body ?? null)}`)
    .digest('hex');
  return {
    key: keys.idempotency(businessId, key),
    requestHash,
    targetHash: createHash('sha256').update(line).digest('hex'),
  };
}

/** Thrown when the key was already used: carries the first response, or 409 for another body. */
export class StoredResponse extends Error {
  constructor(readonly result: ApiResult) {
    super('idempotent replay');
    this.name = 'StoredResponse';
  }
}

/** The stored first response for this key, if any (expired records count as absent). */
export function replayOf(idem: Idempotency, stored: Item | undefined): ApiResult | undefined {
  if (!stored || Number(stored.expires_at ?? 0) * 1000 < Date.now()) return undefined;
  if (stored.erased === true || stored.erased === 'subscription_deleted') {
    // The body it was bound to went with the record: only the route is still checked.
    if (stored.target_hash !== undefined && stored.target_hash !== idem.targetHash) throw idempotencyKeyReused();
    throw stored.erased === true ? applicationErased() : subscriptionDeleted();
  }
  if (stored.request_hash !== idem.requestHash) throw idempotencyKeyReused();
  return {
    status: Number(stored.status),
    body: JSON.parse(String(stored.body)),
    headers: (stored.headers as Record<string, string>) ?? {},
  };
}

/**
 * The idempotency record, written in the same transaction as the record it
 * created: either both exist or neither. A concurrent duplicate loses on the
 * condition and replays the winner's stored response.
 */
export function idempotencyWrite(idem: Idempotency, result: ApiResult): TxWrite {
  return {
    item: {
      Put: {
        Item: {
          ...idem.key,
          request_hash: idem.requestHash,
          target_hash: idem.targetHash,
          status: result.status,
          body: JSON.stringify(result.body),
          headers: result.headers ?? {},
          expires_at: Math.floor(Date.now() / 1000) + IDEMPOTENCY_TTL_SECONDS,
        },
        ConditionExpression: `${IF_ABSENT} OR expires_at < :now`,
        ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
        // The winner's stored response is what a losing duplicate replays.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (stored) => {
      const replay = replayOf(idem, stored);
      return replay ? new StoredResponse(replay) : 'retry';
    },
  };
}

/** Runs a create; a StoredResponse from a lost race becomes the replayed result. */
export async function replayingStored(run: () => Promise<ApiResult>): Promise<ApiResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoredResponse) return error.result;
    throw error;
  }
}

/**
 * The shape of every create: read what it needs (with the idempotency record),
 * replay if this key was used, build the record and its writes, then one
 * transaction that includes the idempotency record. Optimistic conflicts re-run
 * from the read; a concurrent duplicate that lost the race replays the winner.
 */
export function idempotentCreate<S extends { idempotency?: Item }>(
  idem: Idempotency | undefined,
  read: (idempotencyKey: Key | undefined) => Promise<S>,
  build: (state: S) => { result: ApiResult; writes: TxWrite[] },
  attempts?: number,
  hooks?: WriteHooks,
): Promise<ApiResult> {
  return replayingStored(() =>
    withRetries(async () => {
      const state = await read(idem?.key);
      const replay = idem && replayOf(idem, state.idempotency);
      if (replay) return replay;
      const { result, writes } = build(state);
      const id = String((result.body as { id?: unknown } | null)?.id ?? '');
      await commitWrite(idem ? [...writes, idempotencyWrite(idem, result)] : writes, id, hooks);
      return result;
    }, attempts),
  );
}

/**
 * Erasure of the record a create stored this response for (contract §17): the
 * record keeps its key, route and expiry and loses the body, response and body
 * hash (a hash of a body is still the applicant's data). Until it expires, the
 * same key answers 410 `application_erased` instead of creating the applicant
 * again (replayOf). An Update, so an expired or missing record costs nothing
 * and a tombstone never outlives the 24 hours. A deleted webhook subscription's
 * create gets one too (`subscription_deleted`, contract §14): its stored answer
 * held the secret.
 */
export function idempotencyTombstoneWrite(
  pk: string,
  now = Date.now(),
  reason: 'application_erased' | 'subscription_deleted' = 'application_erased',
): TxWrite {
  return {
    item: {
      Update: {
        Key: { PK: pk, SK: keys.idempotency('', '').SK },
        ...updateOf({
          set: {
            erased: reason === 'application_erased' ? true : reason,
            expires_at: ifNotExists(Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS),
          },
          remove: ['request_hash', 'body', 'headers', 'status'],
        }),
      },
    },
  };
}

/**
 * POST/GET/DELETE /webhook_subscriptions (contract §14) and operating one
 * (contract §26: its delivery log, resume, ping). Deliveries are the
 * dispatcher's (webhook-dispatcher.ts); this module creates, shows, deletes,
 * resumes, asks for pings and reads the log.
 */
import { randomBytes } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import { idempotentCreate, replayOf } from '../data/idempotency';
import type { RequestContext } from './request-context';
import { seal, open } from '../data/secret-box';
import { getItem } from '../data/dynamo/table-io';
import {
  deleteSubscription,
  pingWrite,
  readDeliveries,
  readFirstDeliveryFrom,
  readSubscription,
  readSubscriptions,
  resumeWrite,
  sealingContext,
  subscriptionPut,
  type StoredSubscription,
} from '../data/webhook-store';
import { cursorExpired, FieldError, MESSAGES, notFound, type FieldErrorCollector } from '../domain/errors';
import { firstShownDay, logPage, type DeliveryAttempt } from '../domain/webhook-deliveries';
import { pingKey, webhookIdOf } from '../domain/webhooks';
import { pagePositions, type PageRequest } from '../domain/pagination';
import { created, etagOf, ok, type ApiResult } from '../domain/result';
import { changeSource } from './change-source';
import { isAllowedUrl } from './webhook-urls';

export interface SubscriptionBody {
  url: string;
  types?: string[] | null;
}

const location = (id: string): string => `${API_PREFIX}/webhook_subscriptions/${encodeURIComponent(id)}`;

/** Sorts by creation time within the business partition: hex milliseconds, then randomness. */
const newId = (now: number): string => `wh_${now.toString(16).padStart(12, '0')}${randomBytes(6).toString('hex')}`;

/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const view = (s: StoredSubscription): Record<string, unknown> => ({
  id: s.id,
  url: s.url,
  types: s.types,
  status: s.status,
  last_delivery_error: s.lastDeliveryError,
  created_at: s.createdAt,
});

const notFoundError = (id: string): Error => notFound('webhook_subscription', id);

/**
 * Checks the URL (form and resolved addresses), then one transaction with the
 * idempotency record and the business's count (422 beyond 20). The secret is
 * sealed before it is stored, in the record and in the idempotency record
 * alike; the response carries it in clear. A new subscription starts at the
 * feed's current end. A replay of a create whose subscription was deleted
 * since answers 410 (its record is a tombstone, deleteSubscription).
 */
export async function createSubscription(
  request: RequestContext,
  body: SubscriptionBody,
  fieldErrors: FieldErrorCollector,
): Promise<ApiResult> {
  const { businessId } = request;
  const idem = request.idempotency(body);
  const { tokenHash } = request.auth;
  if (!fieldErrors.has('url') && !(await isAllowedUrl(body.url))) fieldErrors.add('url', MESSAGES.notAllowed);
  fieldErrors.throwIfAny();

  const createdAtMs = Date.now();
  const id = newId(createdAtMs);
  const context = sealingContext(businessId, id);
  const sealed = await seal(newSecret(), context);
  const create = idempotentCreate(
    idem,
    async () => ({ end: await changeSource().end(businessId), idempotency: undefined }),
    ({ end }) => {
      const sub = {
        businessId,
        id,
        url: body.url,
        types: body.types ?? null,
        createdAt: new Date(createdAtMs).toISOString(),
        secretSealed: sealed,
        status: 'active' as const,
        cursor: end,
        attempts: 0,
        nextAttemptAt: 0,
        lastDeliveryError: null,
        ...(idem ? { idempotencyPk: idem.key.PK } : {}),
        ...(tokenHash !== undefined ? { tokenHash } : {}),
      };
      const shown = { id, url: sub.url, types: sub.types, status: sub.status, created_at: sub.createdAt };
      // Stored (idempotency record) with the sealed secret; opened below for the response.
      const response = created({ ...shown, secret: sealed }, location(id), { ETag: etagOf(id, 1) });
      return { result: response, writes: subscriptionPut(sub) };
    },
  );
  // At the cap the count refuses before the idempotency record is looked at: a replay of an earlier create
  // (one of the 20) still answers as the first time, at the cost of one read on this refused path only.
  const result = await create.catch(async (error: unknown) => {
    if (!(error instanceof FieldError) || !idem) throw error;
    const replay = replayOf(idem, await getItem(idem.key));
    if (!replay) throw error;
    return replay;
  });
  // A replay carries the first request's id: open the secret with that subscription's context.
  const replayed = result.body as { id: string; secret: string };
  return {
    ...result,
    body: { ...replayed, secret: await open(replayed.secret, sealingContext(businessId, replayed.id)) },
  };
}

/** GetItem (consistent). */
export async function showSubscription(businessId: string, id: string): Promise<ApiResult> {
  const sub = await readSubscription(businessId, id);
  if (!sub) throw notFoundError(id);
  return ok(view(sub), { ETag: etagOf(sub.id, sub.version) });
}

/**
 * One Query over the business's subscription partition; the page is cut in
 * memory (a business has few subscriptions; the cost is that number, not the
 * page number).
 */
export async function listSubscriptions(
  businessId: string,
  page: PageRequest,
): Promise<{ entries: Record<string, unknown>[]; total: number }> {
  const all = await readSubscriptions(businessId);
  const range = pagePositions(page, all.length);
  const entries = range ? all.slice(range.first - 1, range.last).map(view) : [];
  return { entries, total: all.length };
}

/** Delete (deleteSubscription); the dispatcher's next conditional write fails on the missing item, so nothing more goes out. */
export async function removeSubscription(businessId: string, id: string): Promise<ApiResult> {
  await deleteSubscription(businessId, id);
  return { status: 204, body: '' };
}

export interface ResumeBody {
  from_cursor?: string;
}

/**
 * Resume (contract §26): active again, delivering every entry after
 * `from_cursor`, or after the last one its receiver acknowledged. The cursor
 * is checked against the feed's lane counters, read beside the subscription
 * and the idempotency record (422 malformed, 410 past retention); then one
 * transaction. Round trips: token, the reads together, the write.
 */
export function resumeWebhookSubscription(
  request: RequestContext,
  id: string,
  body: ResumeBody,
  fieldErrors: FieldErrorCollector,
): Promise<ApiResult> {
  fieldErrors.throwIfAny();
  const { businessId } = request;
  const idem = request.idempotency(body);
  return idempotentCreate(
    idem,
    async (idemKey) => {
      const [sub, check, idempotency] = await Promise.all([
        readSubscription(businessId, id),
        changeSource().cursorCheck(businessId),
        idemKey ? getItem(idemKey) : undefined,
      ]);
      return { sub, check, idempotency };
    },
    ({ sub, check }) => {
      if (!sub) throw notFoundError(id);
      const from = body.from_cursor ?? sub.cursor;
      const status = from === null ? 'ok' : check(from);
      if (status === 'invalid' && body.from_cursor !== undefined)
        throw new FieldError(422, { from_cursor: [MESSAGES.invalid] });
      if (status === 'expired') throw cursorExpired();
      const resumed: StoredSubscription = { ...sub, status: 'active', version: sub.version + 1 };
      return {
        result: ok(view(resumed), { ETag: etagOf(resumed.id, resumed.version) }),
        writes: [resumeWrite(sub, body.from_cursor, Date.now())],
      };
    },
  );
}

const deliveriesLocation = (id: string): string => `${location(id)}/deliveries`;

/**
 * Ping (contract §26): one `webhook.ping` entry through the subscription's
 * lane, whatever its types or status; the dispatcher sends it (one attempt,
 * in the delivery log). One write after the token (and the idempotency record's read when a key is sent).
 */
export function pingWebhookSubscription(request: RequestContext, id: string): Promise<ApiResult> {
  const { businessId } = request;
  const idem = request.idempotency({});
  const now = Date.now();
  const ping = { id: `ping_${now.toString(16)}${randomBytes(6).toString('hex')}`, at: new Date(now).toISOString() };
  return idempotentCreate(
    idem,
    async (idemKey) => ({ idempotency: idemKey ? await getItem(idemKey) : undefined }),
    () => ({
      result: {
        status: 202,
        body: { webhook_id: webhookIdOf(id, pingKey(ping)) },
        headers: { Location: deliveriesLocation(id) },
      },
      writes: [pingWrite(businessId, id, ping, now)],
    }),
  );
}

/**
 * A page of the delivery log, newest first (contract §26): the subscription
 * (its newest attempt number) and the first day mark still shown, read
 * together, then the page's key range. Round trips: token, the two reads, the
 * page; the cost is one page's items whatever the page number or the log's length.
 */
export async function listWebhookDeliveries(
  businessId: string,
  id: string,
  page: PageRequest,
): Promise<{ entries: DeliveryAttempt[]; total: number }> {
  const [sub, first] = await Promise.all([
    readSubscription(businessId, id),
    readFirstDeliveryFrom(businessId, id, firstShownDay(Date.now())),
  ]);
  if (!sub) throw notFoundError(id);
  const { total, range } = logPage(page, sub.logN, first);
  return { entries: range ? await readDeliveries(businessId, id, range) : [], total };
}

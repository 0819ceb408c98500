import { randomBytes } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keepAtMost } from '../domain/bounded-map';
import {
  Counts,
  DEFAULT_BUSINESS_RATE_LIMIT,
  DEFAULT_TOKEN_RATE_LIMIT,
  FINEST_SLICE_MS,
  sliceMsOf,
  sliceStartOf,
  staleMarks,
  staleSlices,
  SYNC_INTERVAL_MS,
  type PolicyState,
  type RatePolicy,
} from '../domain/rate-window';
import { besideRequest, db } from './dynamo/client';
import { tableName } from './config';
import { runWithDeadline } from './deadline';
import { rateCounter, type BusinessRateLimits } from './entities/rate-counter';
import type { Key } from './dynamo/keys';
import { updateOf } from './dynamo/update-expression';

/**
 * Rate counts of this instance (contract §18, docs/rate-limits.md): it adds what it admits to the token's and the
 * business's counter items, one UpdateItem per item and second at most (answered with every instance's counts),
 * beside the request and never waited for; it decides on src/domain/rate-window.ts Counts. A refusal sends nothing.
 */

/** This instance's name on the items it syncs (48 random bits); sync tags increase and are the time they were given. */
const INSTANCE = randomBytes(6).toString('base64url');
let lastSeq = 0;
const nextSeq = (now: number): number => (lastSeq = Math.max(lastSeq + 1, Math.floor(now)));

/** Bounds memory on an instance serving many tokens: the least recently added subject is forgotten first. */
const MAX_SUBJECTS = 10_000;
/** A token or a business, as this instance counts it; `marks`: the instances' its last answer showed. */
interface Subject {
  readonly key: Key;
  readonly counts: Counts;
  syncing?: Promise<unknown>;
  early?: () => void;
  marks?: ReadonlyMap<string, number>;
}
type Business = Subject & { limits?: BusinessRateLimits }; // as import stored them; undefined until a sync answered
/** Its own limit (`token create --rate-limit`), else its business's default for tokens. */
type Token = Subject & { readonly businessId: string; readonly business: Business; own: RatePolicy | undefined };

const tokenPolicy = (t: Token): RatePolicy => t.own ?? t.business.limits?.tokenLimit ?? DEFAULT_TOKEN_RATE_LIMIT;
const businessPolicy = (b: Business): RatePolicy => b.limits?.limit ?? DEFAULT_BUSINESS_RATE_LIMIT;
const businesses = new Map<string, Business>();
const tokens = new Map<string, Token>();

/** Once every count admitted here is known stored, or `withinMs` passed: what a stopping process waits for. */
export async function rateCountsSent(withinMs = Infinity): Promise<void> {
  const until = Date.now() + withinMs;
  const unsent = (s: Subject): boolean => (s.early?.(), s.syncing !== undefined || s.counts.unsent);
  while (Date.now() < until && [...businesses.values(), ...tokens.values()].filter(unsent).length > 0)
    await new Promise((resolve) => setTimeout(resolve, SYNC_INTERVAL_MS / 50));
}

/** A Sync (rate-window.ts) as one UpdateItem, stale slices and marks removed: the whole item back, applied or not. */
async function send(subject: Subject, policy: RatePolicy, expires: boolean): Promise<Record<string, unknown>> {
  const now = Date.now();
  const sync = subject.counts.beginSync(now, nextSeq(now));
  const mark = rateCounter.markAttribute(INSTANCE);
  const update = updateOf(
    {
      add: [...sync.slices].map(([start, n]) => [rateCounter.sliceAttribute(start), n] as const),
      set: {
        [mark]: sync.seq,
        ...(expires ? { [rateCounter.expiresAttribute]: Math.ceil(now / 1000) + policy.windowSeconds + 60 } : {}),
      },
      remove: [
        ...staleSlices(subject.counts.synced, policy, now)
          .filter((start) => !sync.slices.has(start))
          .map((start) => rateCounter.sliceAttribute(start)),
        ...staleMarks(subject.marks ?? new Map(), policy, now).filter((name) => name !== mark),
      ],
    },
    // A sync already applied (its answer lost) or overtaken by a later one adds nothing (rate-window.ts Sync).
    {
      expression: 'attribute_not_exists(#mark) OR #mark < :since',
      names: { '#mark': mark },
      values: { ':since': sync.since },
    },
  );
  let [item, landed]: [Record<string, unknown>, number] = [{}, sync.seq];
  try {
    // Given up after a sync interval: its own deadline, not its request's (a sync retried on a timer outlives it).
    const out = await runWithDeadline(SYNC_INTERVAL_MS, () =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: subject.key,
          ...update,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    item = out.Attributes ?? {};
  } catch (error) {
    // Refused: the item's mark names the sync that was stored. Else unknown: the next sync carries these counts.
    const stored = (error as { name?: string; Item?: Record<string, AttributeValue> }).Item;
    const refused = (error as Error).name === 'ConditionalCheckFailedException' && stored ? unmarshall(stored) : {};
    const markFound = rateCounter.marksOf(refused).get(mark);
    if (markFound === undefined) throw error;
    [item, landed] = [refused, markFound];
  }
  subject.counts.syncAnswered(sync, rateCounter.slicesOf(item), landed);
  subject.marks = rateCounter.marksOf(item);
  return item;
}

/** Sends the unsent counts beside the request if a second has passed since the last sync; else once it has, or at
 * once on `early()` (a stopping process: rateCountsSent). */
function syncWhenDue(subject: Subject, sync: () => Promise<unknown>, now = Date.now()): void {
  if (subject.syncing || !subject.counts.unsent) return;
  if (!subject.counts.due(now)) {
    if (subject.early) return;
    const fire = (at?: number): void =>
      void (clearTimeout(timer), (subject.early = undefined), syncWhenDue(subject, sync, at));
    const timer = setTimeout(fire, subject.counts.lastSyncAt + SYNC_INTERVAL_MS - now).unref();
    subject.early = () => fire(Infinity);
    return;
  }
  subject.syncing = besideRequest(sync)
    .catch(() => undefined)
    .finally(() => {
      subject.syncing = undefined;
      // What was admitted while this sync was out, or what it failed to send, goes with the next (a second on).
      syncWhenDue(subject, sync);
    });
}

/** A request's standing against both limits. */
export type RateDecision = { admitted: boolean; businessId: string; token: PolicyState; business: PolicyState };

function decide(token: Token, now: number): RateDecision {
  const t = token.counts.state(tokenPolicy(token), now);
  const b = token.business.counts.state(businessPolicy(token.business), now);
  return { admitted: t.remaining > 0 && b.remaining > 0, businessId: token.businessId, token: t, business: b };
}

/** Before the token is read: the refusal of a token this instance counts full (no DynamoDB call), if it is. */
export function knownRefusal(tokenHash: string, now = Date.now()): RateDecision | undefined {
  const token = tokens.get(tokenHash);
  const decision = token && decide(token, now);
  return decision?.admitted === false ? decision : undefined;
}

/** A verified token's request: admitted and counted (synced beside the request when due), or refused. */
export function admit(
  tokenHash: string,
  businessId: string,
  own: RatePolicy | undefined,
  now = Date.now(),
): RateDecision {
  const newBusiness = (): Business => ({ key: rateCounter.businessKey(businessId), counts: new Counts() });
  const business = businesses.get(businessId) ?? keepAtMost(businesses, MAX_SUBJECTS, businessId, newBusiness());
  let token = tokens.get(tokenHash);
  if (!token || token.business !== business) {
    const key = rateCounter.tokenKey(businessId, tokenHash);
    token = keepAtMost(tokens, MAX_SUBJECTS, tokenHash, { key, counts: new Counts(), businessId, business, own });
  }
  token.own = own;
  const before = decide(token, now);
  if (!before.admitted) return before;
  // While a limit is not known yet, counted in the finest slice: held long enough whatever the window.
  const learned = business.limits !== undefined;
  token.counts.count(sliceStartOf(own || learned ? sliceMsOf(tokenPolicy(token)) : FINEST_SLICE_MS, now));
  business.counts.count(sliceStartOf(learned ? sliceMsOf(businessPolicy(business)) : FINEST_SLICE_MS, now));
  const t = token;
  syncWhenDue(t, () => send(t, tokenPolicy(t), true));
  syncWhenDue(business, async () => {
    business.limits = rateCounter.limitsOf(await send(business, businessPolicy(business), false));
  });
  // What the answer reports: this request counted.
  return { ...decide(token, now), admitted: true };
}

/** The token's standing for the RateLimit fields; the business's first sync awaited, so no answer shows defaults. */
export async function standingForAnswer(tokenHash: string): Promise<RateDecision | undefined> {
  const token = tokens.get(tokenHash);
  if (!token) return undefined;
  if (!token.business.limits) await token.business.syncing;
  return decide(token, Date.now());
}

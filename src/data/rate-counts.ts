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
import { rateCounter, type BusinessRateLimits } from './entities/rate-counter';
import type { Key } from './dynamo/keys';
import { updateOf } from './dynamo/update-expression';

/**
 * Rate counts of this instance (contract §18, docs/rate-limits.md): a Lambda
 * instance or a process of `INSTANCES=N npm start` adds the requests it admits
 * to the token's and the business's counter items, one UpdateItem per item and
 * second at most (`ADD`, answered with the whole item: every instance's
 * counts), sent beside the request's own calls (besideRequest) and never waited
 * for. It decides on src/domain/rate-window.ts Counts. A refusal sends nothing.
 * Each sync carries this instance's mark (its name and the sync's tag) and a
 * condition on it, so a request is counted once however a sync fails.
 */

/** This instance's clock for counting: tests move it on (a window passes without being waited for). */
let skewMs = 0;
const clock = (): number => Date.now() + skewMs;
export const advanceRateClock = (ms: number): void => void (skewMs += ms);

/** This instance's name on the counter items it syncs (48 random bits: instances never share one). */
const INSTANCE = randomBytes(6).toString('base64url');
let lastSeq = 0;
/** Sync tags: increasing in this process, and the time they were given (what makes a stale mark). */
const nextSeq = (now: number): number => (lastSeq = Math.max(lastSeq + 1, Math.floor(now)));

/** Bounds memory on an instance serving many tokens: the least recently added subject is forgotten first. */
const MAX_SUBJECTS = 10_000;

/** A token or a business, as this instance counts it. */
interface Subject {
  readonly key: Key;
  readonly counts: Counts;
  syncing?: Promise<unknown>;
  timer?: NodeJS.Timeout;
  /** The instances' marks its last answer showed (a sync removes the stale ones). */
  marks?: ReadonlyMap<string, number>;
}
/** Its limits as import stored them on its counter item: undefined until a sync answered. */
type Business = Subject & { limits?: BusinessRateLimits };
/** Its own limit (`token create --rate-limit`), else its business's default for tokens. */
type Token = Subject & { readonly businessId: string; readonly business: Business; own: RatePolicy | undefined };

const tokenPolicy = (t: Token): RatePolicy => t.own ?? t.business.limits?.tokenLimit ?? DEFAULT_TOKEN_RATE_LIMIT;
const businessPolicy = (b: Business): RatePolicy => b.limits?.limit ?? DEFAULT_BUSINESS_RATE_LIMIT;

const businesses = new Map<string, Business>();
const tokens = new Map<string, Token>();

/**
 * How many tokens and businesses this instance has counts of that are not known stored yet (unsent, or sent by a
 * sync not answered): what a test waits to reach 0 instead of sleeping through sync intervals.
 */
export const unsentRateCounts = (): number =>
  [...businesses.values(), ...tokens.values()].filter((s) => s.syncing !== undefined || s.counts.unsent).length;

/**
 * One UpdateItem: this instance's unsent counts (and those of its syncs in doubt) added and its mark set, slices
 * out of every window and marks of instances gone quiet removed, the token item's expiry moved on (an idle token's
 * counts expire; the business item keeps its limits), the whole item back. Applied only where the item's mark of
 * this instance is older than every count it carries; else refused with the item as it is, which tells which of
 * this instance's syncs were stored: either way an answer.
 */
async function send(subject: Subject, policy: RatePolicy, expires: boolean): Promise<Record<string, unknown>> {
  const now = clock();
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
    // `applies` (src/domain/rate-window.ts) as DynamoDB evaluates it.
    {
      expression: 'attribute_not_exists(#mark) OR #mark < :since',
      names: { '#mark': mark },
      values: { ':since': sync.since },
    },
  );
  let item: Record<string, unknown>;
  let landed = sync.seq;
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: subject.key,
        ...update,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
      { abortSignal: AbortSignal.timeout(SYNC_INTERVAL_MS) }, // given up after a sync interval
    );
    item = out.Attributes ?? {};
  } catch (error) {
    // Refused with the item: the mark there names the sync of this instance that was stored. Any other failure:
    // the outcome is unknown, and the next sync carries these counts again (Counts.beginSync).
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

/** Sends the unsent counts beside the request if a second has passed since the last sync; else once it has. */
function syncWhenDue(subject: Subject, sync: () => Promise<unknown>): void {
  if (subject.syncing || !subject.counts.unsent) return;
  const now = clock();
  if (!subject.counts.due(now)) {
    const retry = (): void => void ((subject.timer = undefined), syncWhenDue(subject, sync));
    subject.timer ??= setTimeout(retry, subject.counts.lastSyncAt + SYNC_INTERVAL_MS - now).unref();
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
export interface RateDecision {
  readonly admitted: boolean;
  readonly businessId: string;
  readonly token: PolicyState;
  readonly business: PolicyState;
}

function decide(token: Token, now: number): RateDecision {
  const t = token.counts.state(tokenPolicy(token), now);
  const b = token.business.counts.state(businessPolicy(token.business), now);
  return { admitted: t.remaining > 0 && b.remaining > 0, businessId: token.businessId, token: t, business: b };
}

/** Before the token is read: the refusal of a token this instance counts full (no DynamoDB call), if it is. */
export function knownRefusal(tokenHash: string, now = clock()): RateDecision | undefined {
  const token = tokens.get(tokenHash);
  if (!token) return undefined;
  const decision = decide(token, now);
  return decision.admitted ? undefined : decision;
}

/** A verified token's request: admitted and counted (synced beside the request when due), or refused. */
export function admit(tokenHash: string, businessId: string, own: RatePolicy | undefined, now = clock()): RateDecision {
  const business =
    businesses.get(businessId) ??
    keepAtMost(businesses, MAX_SUBJECTS, businessId, {
      key: rateCounter.businessKey(businessId),
      counts: new Counts(),
    });
  let token = tokens.get(tokenHash);
  if (!token || token.business !== business)
    token = keepAtMost(tokens, MAX_SUBJECTS, tokenHash, {
      key: rateCounter.tokenKey(businessId, tokenHash),
      counts: new Counts(),
      businessId,
      business,
      own,
    });
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

/**
 * The token's standing for the answer's RateLimit fields: this instance's view now. An instance learns a
 * business's limits with its first sync of it, sent beside the request's own calls: until then that sync is
 * awaited (it ends within a sync interval), so that no answer reports the defaults instead of the limits.
 */
export async function standingForAnswer(tokenHash: string): Promise<RateDecision | undefined> {
  const token = tokens.get(tokenHash);
  if (!token) return undefined;
  if (!token.business.limits) await token.business.syncing;
  return decide(token, clock());
}

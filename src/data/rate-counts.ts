import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import {
  admits,
  DEFAULT_BUSINESS_RATE_LIMIT,
  DEFAULT_TOKEN_RATE_LIMIT,
  InstanceCounts,
  SHARING,
  sliceMsOf,
  sliceStartOf,
  staleSlices,
  type PolicyState,
  type RatePolicy,
} from '../domain/rate-window';
import { besideRequest, db } from './client';
import { tableName } from './config';
import { RATE_ATTRIBUTES, rateCounter, storedRatePolicy } from './entities/rate-counter';
import type { Key } from './keys';
import { updateOf } from './update-expression';

/**
 * Rate counts of this instance (contract §18, docs/rate-limits.md). Each
 * instance (a Lambda instance, a process of `INSTANCES=N npm start`) counts the
 * requests it admits per time slice and adds them to the token's and the
 * business's counter items with one UpdateItem (`ADD`, answered with the whole
 * item: every instance's counts), at most once a second per item, sent beside
 * the request's own calls (src/data/client.ts besideRequest) and never waited
 * for before admitting: an instance decides on the counts DynamoDB last
 * answered plus what it admitted since. A refusal needs no call at all: the
 * next request is admitted once the instance's own view of the window frees
 * capacity.
 */

/** A sync that takes longer is given up and its counts sent again with the next. */
const SYNC_TIMEOUT_MS = 1000;
/** How long an answer waits for a sync this request started, for fresh RateLimit fields. */
const SETTLE_MS = 100;
/** Bounds memory on an instance serving many tokens: the least recently added subject is forgotten first. */
const MAX_SUBJECTS = 10_000;

/** This instance's name on the counter items: with its last sync's time, it tells the others how many share a subject. */
const INSTANCE_ATTRIBUTE = `${RATE_ATTRIBUTES.instancePrefix}${randomBytes(6).toString('hex')}`;
/** An instance not heard of for this long is removed from the item by the next sync that sees it. */
const FORGET_INSTANCE_MS = 60_000;

class Counts extends InstanceCounts {
  syncing: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly key: Key,
    /** Token items expire when idle (TTL); the business item keeps its limits. */
    readonly expires: boolean,
  ) {
    super();
  }

  /** The instances' attributes on the item as last answered (this one's included), with their last sync. */
  instances = new Map<string, number>();

  /** The slice a request admitted now is counted in: the finest slice while the limit is a guess (never counted too briefly). */
  sliceNow(policy: RatePolicy, known: boolean, now: number): number {
    return known ? sliceStartOf(policy, now) : Math.floor(now / FINEST_SLICE_MS) * FINEST_SLICE_MS;
  }
}

/** The slice length of the shortest window (1 s). */
const FINEST_SLICE_MS = sliceMsOf({ requests: 1, windowSeconds: 1 });

class BusinessCounts extends Counts {
  /** As import stored them on the business's counter item; undefined until a sync answered. */
  limit: RatePolicy | undefined;
  tokenLimit: RatePolicy | undefined;
  /** Whether a sync answered: until then the limits above are the defaults' guess. */
  learned = false;
  policy(): RatePolicy {
    return this.limit ?? DEFAULT_BUSINESS_RATE_LIMIT;
  }
}

class TokenCounts extends Counts {
  constructor(
    key: Key,
    readonly businessId: string,
    readonly business: BusinessCounts,
    /** The token's own limit (`token create --rate-limit`); else its business's default for tokens. */
    public explicit: RatePolicy | undefined,
  ) {
    super(key, true);
  }
  policy(): RatePolicy {
    return this.explicit ?? this.business.tokenLimit ?? DEFAULT_TOKEN_RATE_LIMIT;
  }
  known(): boolean {
    return this.explicit !== undefined || this.business.learned;
  }
}

const businesses = new Map<string, BusinessCounts>();
const tokens = new Map<string, TokenCounts>();

function remember<V>(map: Map<string, V>, id: string, value: V): V {
  if (map.size >= MAX_SUBJECTS) map.delete(map.keys().next().value as string);
  map.set(id, value);
  return value;
}

const businessCounts = (businessId: string): BusinessCounts =>
  businesses.get(businessId) ??
  remember(businesses, businessId, new BusinessCounts(rateCounter.businessKey(businessId), false));

/** One UpdateItem: this instance's unsent counts added, slices out of every window removed, the whole item back. */
async function send(counts: Counts, policy: RatePolicy, learn: (item: Record<string, unknown>) => void): Promise<void> {
  const now = Date.now();
  const sent = counts.beginSync(now);
  const remove = [
    ...staleSlices(counts.synced, policy, now)
      .filter((start) => !sent.has(start))
      .map((start) => rateCounter.sliceAttribute(start)),
    ...[...counts.instances].filter(([, at]) => at < now - FORGET_INSTANCE_MS).map(([name]) => name),
  ];
  const update = updateOf({
    add: [...sent].map(([start, n]) => [rateCounter.sliceAttribute(start), n] as const),
    set: {
      [INSTANCE_ATTRIBUTE]: now,
      ...(counts.expires ? { [RATE_ATTRIBUTES.expiresAt]: Math.ceil(now / 1000) + policy.windowSeconds + 60 } : {}),
    },
    remove,
  });
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: counts.key,
        ...update,
        ReturnValues: 'ALL_NEW',
      }),
      { abortSignal: AbortSignal.timeout(SYNC_TIMEOUT_MS) },
    );
    const answeredAt = Date.now();
    counts.instances = rateCounter.instancesOf(out.Attributes);
    const sharing = [...counts.instances.values()].filter((at) => at > answeredAt - SHARING.activeMs).length;
    counts.syncAnswered(sent, rateCounter.slicesOf(out.Attributes), sharing, policy, answeredAt);
    learn(out.Attributes ?? {});
  } catch {
    // Not known to be stored: sent again with the next sync (if this one did land, they count twice for a
    // window: an error toward refusing, never toward admitting more than the limit).
    counts.syncFailed(sent);
  }
}

/** Sends the unsent counts if a second has passed since the last sync; else once it has (a timer). */
function syncWhenDue(counts: Counts, policy: () => RatePolicy, learn: (item: Record<string, unknown>) => void): void {
  if (counts.syncing || counts.pending.size === 0) return;
  const wait = counts.lastSyncAt + SHARING.syncIntervalMs - Date.now();
  if (wait > 0) {
    counts.timer ??= setTimeout(() => {
      counts.timer = undefined;
      syncWhenDue(counts, policy, learn);
    }, wait).unref();
    return;
  }
  counts.syncing = besideRequest(() => send(counts, policy(), learn)).finally(() => {
    counts.syncing = undefined;
    // What was admitted while this sync was out, or what it failed to send, goes with the next (a second on).
    syncWhenDue(counts, policy, learn);
  });
}

const learnBusinessLimits =
  (business: BusinessCounts) =>
  (item: Record<string, unknown>): void => {
    ({ limit: business.limit, tokenLimit: business.tokenLimit } = rateCounter.limitsOf(item));
    business.learned = true;
  };

/** A request's standing against both limits. */
export interface RateDecision {
  readonly admitted: boolean;
  readonly businessId: string;
  readonly token: PolicyState;
  readonly business: PolicyState;
}

function decide(token: TokenCounts, now: number): RateDecision {
  const t = token.standing(token.policy(), now);
  const b = token.business.standing(token.business.policy(), now);
  return { admitted: admits(t) && admits(b), businessId: token.businessId, token: t, business: b };
}

/** A refusal: each subject that refused remembers it (it then admits only its share of what frees). */
function refused(token: TokenCounts, decision: RateDecision, now: number): RateDecision {
  if (!admits(decision.token)) token.refused(now);
  if (!admits(decision.business)) token.business.refused(now);
  return decision;
}

/**
 * Before the token is read: the refusal of a token this instance has seen
 * before and whose window (or business's) is still full by its own counts.
 * Costs no DynamoDB call; undefined when the request may go on.
 */
export function knownRefusal(tokenHash: string, now = Date.now()): RateDecision | undefined {
  const token = tokens.get(tokenHash);
  if (!token) return undefined;
  const decision = decide(token, now);
  return decision.admitted ? undefined : refused(token, decision, now);
}

/**
 * A verified token's request: admitted and counted (in this instance; synced
 * beside the request when due), or refused and counted nowhere.
 */
export function admit(
  tokenHash: string,
  businessId: string,
  explicit: RatePolicy | undefined,
  now = Date.now(),
): RateDecision {
  const business = businessCounts(businessId);
  let token = tokens.get(tokenHash);
  if (!token || token.business !== business)
    token = remember(
      tokens,
      tokenHash,
      new TokenCounts(rateCounter.tokenKey(businessId, tokenHash), businessId, business, explicit),
    );
  token.explicit = explicit;
  const before = decide(token, now);
  if (!before.admitted) return refused(token, before, now);
  for (const [counts, known] of [
    [token, token.known()],
    [business, business.learned],
  ] as const) {
    counts.count(counts.sliceNow(counts.policy(), known, now));
  }
  syncWhenDue(
    token,
    () => token.policy(),
    () => undefined,
  );
  syncWhenDue(business, () => business.policy(), learnBusinessLimits(business));
  // What the answer reports: this request counted.
  return { ...decide(token, now), admitted: true };
}

/**
 * The token's standing for the answer's RateLimit fields, once the syncs in
 * flight answered or a short wait passed (a Lambda instance must not freeze
 * with a sync half sent).
 */
export async function standingForAnswer(tokenHash: string): Promise<RateDecision | undefined> {
  const token = tokens.get(tokenHash);
  if (!token) return undefined;
  const inFlight = [token.syncing, token.business.syncing].filter((p) => p !== undefined);
  if (inFlight.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(inFlight),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_MS))),
    ]);
    clearTimeout(timer);
  }
  return decide(token, Date.now());
}

/** Forgets every count of this instance (tests that start from a clean instance). */
export function resetRateCounts(): void {
  for (const counts of [...tokens.values(), ...businesses.values()]) clearTimeout(counts.timer);
  tokens.clear();
  businesses.clear();
}

/**
 * The business's limits on its counter item (import, contract §18): read by
 * every instance with its next sync. Absent keys are removed (the defaults
 * apply); the counts are left as they are.
 */
export async function storeBusinessRateLimits(
  businessId: string,
  limits: { readonly limit?: RatePolicy; readonly tokenLimit?: RatePolicy },
): Promise<void> {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [name, policy] of [
    [RATE_ATTRIBUTES.limit, limits.limit],
    [RATE_ATTRIBUTES.tokenLimit, limits.tokenLimit],
  ] as const) {
    if (policy) set[name] = storedRatePolicy(policy);
    else remove.push(name);
  }
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: rateCounter.businessKey(businessId),
      ...updateOf({ set, remove }),
    }),
  );
}

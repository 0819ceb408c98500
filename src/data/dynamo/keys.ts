/**
 * Every key string of the single table is built here; the entity modules
 * (src/data/entities/) say which of them each access pattern reads and on
 * which index. All record keys start with the business id, so no access
 * pattern can reach another tenant's items.
 */
export const RECORD_KINDS = [
  'employee',
  'employee_job',
  'application',
  'location',
  'payout_field',
  'employee_field',
  'employee_job_field',
  'application_field',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface Key {
  PK: string;
  SK: string;
}

const biz = (businessId: string): string => `B#${businessId}`;

/** A partition of one business (entity modules build their list partitions with it). */
export const businessPartition = (businessId: string, rest: string): string => `${biz(businessId)}#${rest}`;

const recordPartition = (businessId: string, kind: RecordKind): string => `${biz(businessId)}#${kind}`;

/** The registry partition: no `B#` prefix, it belongs to no tenant. */
export const BUSINESS_REGISTRY = 'BUSINESSES';
/** The imports in progress of every business (no `B#` prefix either): what the import watchdog reads. */
export const IMPORTS_IN_PROGRESS = 'IMPORTS_IN_PROGRESS';

/** Feed sequences are zero-padded so they sort numerically. */
export const FEED_SEQ_DIGITS = 12;
/** Delivery attempt sequences are zero-padded so they sort numerically (before the day marks, `d...`). */
export const DELIVERY_SEQ_DIGITS = 12;
/** Lane numbers in the sort keys of the lane counters, zero-padded so a kind's lanes are one key range. */
const FEED_LANE_DIGITS = 3;

const BUSINESS_CONFIG_SK = 'CONFIG';
/** Sorts before every attachment id (`att_...`). */
const ATTACHMENT_COUNT_SK = 'COUNT';

/** Imports per business: their count and the one in progress. Sorts after every import id (digits). */
export const IMPORT_META_SK = 'N';
export const IMPORT_ROW_DIGITS = 6;

/** The partition prefix of the rate counters: the only items a function of a GET route writes. */
export const RATE_PREFIX = 'RATE#';

/** Whether a key is a business's config (keys.business): only an import writes it. */
export const isBusinessConfigKey = (key: Key): boolean => key.SK === BUSINESS_CONFIG_SK;

export const keys = {
  token: (tokenHash: string): Key => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' }),
  /** The business's copy of a token's metadata, so its tokens can be listed (one partition per business). */
  tokenListing: (businessId: string, tokenHash: string): Key => ({ PK: `${biz(businessId)}#tokens`, SK: tokenHash }),
  tokenListings: (businessId: string): string => `${biz(businessId)}#tokens`,
  business: (businessId: string): Key => ({ PK: biz(businessId), SK: BUSINESS_CONFIG_SK }),
  /** Every business in one partition, written by import: the retention job finds businesses without a Scan. */
  businessRegistry: (businessId: string): Key => ({ PK: BUSINESS_REGISTRY, SK: businessId }),
  /**
   * Every record of one kind of a business shares one partition, sorted by id: a read by id is one
   * GetItem, and an export Queries the partition (docs/architecture.md "Records of a kind share a
   * partition"). No other item is ever stored under a record partition.
   */
  records: (businessId: string, kind: RecordKind): string => recordPartition(businessId, kind),
  record: (businessId: string, kind: RecordKind, id: string): Key => ({
    PK: recordPartition(businessId, kind),
    SK: id,
  }),
  /**
   * Dense position counter of one list (see docs/pagination.md); for a list
   * with maps, the base of its summary, whose shards share its partition.
   */
  counter: (businessId: string, list: string): Key => ({ PK: `${biz(businessId)}#counter#${list}`, SK: 'C' }),
  /** One shard of a list's summary (src/domain/list-map.ts `shardOf`), beside its base `counter`. */
  summaryShard: (businessId: string, list: string, shard: number): Key => ({
    PK: `${biz(businessId)}#counter#${list}`,
    SK: `C#${String(shard).padStart(2, '0')}`,
  }),
  unique: (businessId: string, field: string, value: string): Key => ({
    PK: `${biz(businessId)}#unique#${field}#${value}`,
    SK: 'U',
  }),
  idempotency: (businessId: string, key: string): Key => ({ PK: `${biz(businessId)}#idem#${key}`, SK: 'I' }),
  /** All webhook subscriptions of a business share one partition (see webhook-store). */
  webhookSubscriptions: (businessId: string): string => `${biz(businessId)}#webhook-subscriptions`,
  webhookSubscription: (businessId: string, id: string): Key => ({
    PK: `${biz(businessId)}#webhook-subscriptions`,
    SK: id,
  }),
  /** How many subscriptions the business has (`n`): what caps them at 20 (see webhook-store). */
  webhookSubscriptionCount: (businessId: string): Key => ({ PK: `${biz(businessId)}#webhook-count`, SK: 'N' }),
  /**
   * One subscription's delivery log (contract §26): its attempts by zero-padded attempt sequence, and beside
   * them (sorting after every digit) the day marks `d<YYYYMMDD>`, the first sequence of each day.
   */
  webhookDeliveries: (businessId: string, subscriptionId: string): string =>
    `${biz(businessId)}#webhook-deliveries#${subscriptionId}`,
  webhookDelivery: (businessId: string, subscriptionId: string, seq: number | string): Key => ({
    PK: `${biz(businessId)}#webhook-deliveries#${subscriptionId}`,
    SK: typeof seq === 'number' ? String(seq).padStart(DELIVERY_SEQ_DIGITS, '0') : seq,
  }),
  webhookDeliveryDay: (businessId: string, subscriptionId: string, day: string): Key => ({
    PK: `${biz(businessId)}#webhook-deliveries#${subscriptionId}`,
    SK: day,
  }),
  /** An application's attachments share one partition (ids sort by creation), with its count at ATTACHMENT_COUNT_SK. */
  attachments: (businessId: string, applicationId: string): string =>
    `${biz(businessId)}#application#${applicationId}#attachments`,
  attachment: (businessId: string, applicationId: string, id: string): Key => ({
    PK: `${biz(businessId)}#application#${applicationId}#attachments`,
    SK: id,
  }),
  attachmentCount: (businessId: string, applicationId: string): Key => ({
    PK: `${biz(businessId)}#application#${applicationId}#attachments`,
    SK: ATTACHMENT_COUNT_SK,
  }),
  /**
   * One shard of the position map of one superblock of a list: created_at and
   * status code per position of the shard, -1 for a hole (docs/pagination.md).
   * A superblock's shards sort together, its superblocks in order.
   */
  listMap: (businessId: string, list: string, superblock: number, shard: number): Key => ({
    PK: `${biz(businessId)}#map#${list}`,
    SK: `${String(superblock).padStart(8, '0')}#${String(shard).padStart(2, '0')}`,
  }),
  /** One lane of the change feed (docs/change-feed.md): its entries by zero-padded sequence. */
  feedEntry: (businessId: string, lane: number | string, seq: number | string): Key => ({
    PK: `${biz(businessId)}#feed#${lane}`,
    SK: typeof seq === 'number' ? String(seq).padStart(FEED_SEQ_DIGITS, '0') : seq,
  }),
  /** An export job (contract §20): the business's exports share one partition, by id. */
  exportJob: (businessId: string, id: string): Key => ({ PK: `${biz(businessId)}#exports`, SK: id }),
  exportJobs: (businessId: string): string => `${biz(businessId)}#exports`,
  /** The business's imports (contract §22), by id (ids sort by creation), with their count and the running one at IMPORT_META_SK. */
  importJob: (businessId: string, id: string): Key => ({ PK: `${biz(businessId)}#imports`, SK: id }),
  importMeta: (businessId: string): Key => ({ PK: `${biz(businessId)}#imports`, SK: IMPORT_META_SK }),
  /** An import in progress (awaiting its upload or running), in the one partition of all businesses' such imports. */
  importInProgress: (businessId: string, id: string): Key => ({
    PK: IMPORTS_IN_PROGRESS,
    SK: `${id}#${businessId}`,
  }),
  /** The result of one row of an import, by zero-padded row number: what resumes and the results file read. */
  importRow: (businessId: string, importId: string, row: number | string): Key => ({
    PK: `${biz(businessId)}#import#${importId}`,
    SK: typeof row === 'number' ? String(row).padStart(IMPORT_ROW_DIGITS, '0') : row,
  }),
  /**
   * The counter of a lane of the change feed: every lane's counter of a business in one partition, by lane, so
   * that a create reads its kind's lanes and a feed page all of them with one Query (billed by the bytes read).
   */
  feedCounter: (businessId: string, lane: number): Key => ({
    PK: `${biz(businessId)}#feedlanes`,
    SK: String(lane).padStart(FEED_LANE_DIGITS, '0'),
  }),
  /**
   * Rate counts of a business and of its tokens (src/data/rate-counts.ts). Their own `RATE#` prefix: the
   * functions of GET routes may update these items and no other (IAM `dynamodb:LeadingKeys`, lib/api-stack.ts).
   */
  businessRate: (businessId: string): Key => ({ PK: `${RATE_PREFIX}${businessId}`, SK: 'business' }),
  tokenRate: (businessId: string, tokenHash: string): Key => ({
    PK: `${RATE_PREFIX}${businessId}`,
    SK: `token#${tokenHash}`,
  }),
};

/**
 * The kind of an item by its key (the builders above read backwards, for the
 * write statistics of src/data/dynamo/write-stats.ts), without the business or record
 * id: `counter#applications`, `feed counter`, `record employee`, `idempotency`, ...
 * A record partition (`B#<bid>#<kind>`) and an item partition of a record
 * (`B#<bid>#application#<id>#attachments`) both read as `record <kind>`.
 */
export function itemKindOf(key: { PK: unknown; SK: unknown }): string {
  const rest = String(key.PK).replace(/^B#[^#]*#?/, '');
  if (rest === '') return String(key.SK).toLowerCase();
  const [head, second] = rest.split('#');
  if (head === 'counter') return `counter#${rest.slice('counter#'.length)}`;
  if (head === 'feed') return 'feed entry';
  if (head === 'feedlanes') return 'feed counter';
  if (head === 'map') return `map#${second ?? ''}`;
  if (head === 'idem') return 'idempotency';
  if (head === 'unique') return `unique#${second ?? ''}`;
  return `record ${head ?? ''}`;
}

/** The superblock and shard of a map shard by its sort key (keys.listMap read backwards). */
export const mapShardOfKey = (sk: string): { superblock: number; shard: number } => {
  const [superblock, shard] = sk.split('#');
  return { superblock: Number(superblock), shard: Number(shard) };
};

/** The id of a record by its key (keys.record read backwards). */
export const recordIdOf = (key: Key): string => key.SK;

/** Partition names of the list indexes. */
export const lists = {
  all: (businessId: string, kind: RecordKind): string => `${biz(businessId)}#${kind}s`,
  jobsOfEmployee: (businessId: string, employeeId: string): string => `${biz(businessId)}#employee#${employeeId}#jobs`,
  /** The business's employee jobs whose `from` (`edge` 'from') or `to` ('to') is `day` (YYYY-MM-DD). */
  jobsByDay: (businessId: string, edge: 'from' | 'to', day: string): string =>
    `${biz(businessId)}#employee_jobs#${edge}#${day}`,
};

/**
 * Applications (contract §6, §7, §9, §11): create, show, partial update and
 * the filtered list whose every page costs the same (docs/pagination.md).
 *
 * Round trips, authentication included: show 2; create and update 3 (auth,
 * one BatchGetItem with the position reservation beside it, one
 * TransactWriteItems that also appends the change-feed entry,
 * docs/change-feed.md); a list page at most 4
 * sequential steps (auth with config, summary and maps; the maps a cold
 * instance did not send with them; the page's index entries; their records).
 */
import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../domain/api-paths';
import {
  createWrites,
  deleteWrites,
  positionsOf,
  readApplication,
  readApplicationPage,
  createChunkWrites,
  readCreateState,
  readForCreateChunk,
  reserveForChunk,
  readForUpdate,
  readForWrite,
  storedOf,
  updateWrites,
} from '../data/application-store';
import { dryReservation, reservedTime, type Reservation } from '../data/lists';
import { application } from '../data/entities/application';
import { feedAppendWrites, type FeedLaneState } from '../data/feed-store';
import { noAttachmentsLeft } from '../data/attachment-store';
import { eraseAttachments } from './attachments';
import { eraseFromExports } from './exports';
import { applicationRedactions } from '../data/feed-redaction';
import { withFeedRef } from '../domain/feed-refs';
import { changedFields } from '../domain/audit';
import { idsInLane, laneOfTicket } from '../domain/change-feed';
import type { RetentionOutcome } from '../domain/retention';
import { idempotentCreate } from '../data/idempotency';
import type { RequestContext } from './request-context';
import type { Item, ReadAlong } from '../data/dynamo/table-io';
import { RetryOperation } from '../data/dynamo/operation-state';
import { MAX_TRANSACTION_ITEMS, commitWrite, transactWrite, type WriteHooks } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';
import {
  fieldsForCreate,
  fieldsForUpdate,
  renderApplication,
  type ApplicationFields,
  type ApplicationRecord,
  type InputContext,
} from '../domain/application-record';
import type { BusinessConfig } from '../domain/business';
import { todayIn } from '../domain/job-dates';
import type { PageRequest } from '../domain/pagination';
import type { ApplicationListFilter } from '../schemas/application-filters';
import { FieldError, type FieldErrorCollector, notFound, preconditionFailed } from '../domain/errors';
import { createChunk, type ChunkHooks, type ChunkOutcome, type CreateRow } from './create-chunk';
import { created, etagOf, ifMatchAllows, noContent, ok, type ApiResult } from '../domain/result';

export type Body = Record<string, unknown>;

/**
 * Creates of one business serialize on its list counter: each conflict round
 * lets one writer through, so a burst of k parallel creates needs up to k
 * rounds for the last one. withRetries spaces the rounds (src/data/dynamo/retry-pause.ts).
 */
const CREATE_ATTEMPTS = 40;
const UPDATE_ATTEMPTS = 40;

export const applicationLocation = (id: string): string => `${API_PREFIX}/applications/${encodeURIComponent(id)}`;

const inputContext = (config: BusinessConfig, fieldErrors: FieldErrorCollector): InputContext => ({
  config,
  today: todayIn(config.timezone),
  report: (field, message) => fieldErrors.add(field, message),
  failed: (field) => fieldErrors.has(field),
});

const view = (config: BusinessConfig, item: Item): Record<string, unknown> => renderApplication(config, storedOf(item));

// ---------------------------------------------------------------------------
// create / show / update
// ---------------------------------------------------------------------------

/**
 * POST /applications: BatchGetItem (config, idempotency record,
 * the application feed lanes) with the position reservation beside it, checks, one transaction.
 */
export async function createApplication(
  context: RequestContext,
  body: Body,
  fieldErrors: FieldErrorCollector,
  hooks?: WriteHooks,
): Promise<ApiResult> {
  const { businessId } = context;
  const idem = context.idempotency(body);
  // Validating (a bulk import's validate mode) writes nothing, a reservation neither.
  let reserved: Reservation | undefined = hooks?.dryRun ? dryReservation() : undefined;
  return idempotentCreate(
    idem,
    // A re-run keeps the positions and created_at reserved by the first run: no new hole per re-run.
    async (recordKey) => {
      const state = await readCreateState(businessId, recordKey, reserved);
      reserved = state.reserved;
      return state;
    },
    (state) => {
      // The business position picks the change-feed lane, and the id is one that hashes there: creates of one
      // business take the lanes in turn, so they rarely append to the same lane at once (docs/change-feed.md).
      const lane = laneOfTicket('application', state.reserved.position);
      const [id] = idsInLane('application', lane, 1, randomUUID) as [string];
      const feed = state.feeds.find((f) => f.lane === lane) as FeedLaneState;
      const { config } = state;
      const fields = fieldsForCreate(body, inputContext(config, fieldErrors));
      fieldErrors.throwIfAny();

      // Reserved with the positions: later than every write reserved before, so both orders follow time.
      const createdAt = reservedTime(state.reserved);
      const app: ApplicationRecord = {
        id,
        ...fields,
        created_at: createdAt,
        updated_at: createdAt,
        version: 1,
      };
      const result = created(renderApplication(config, app), applicationLocation(app.id), {
        ETag: etagOf(app.id, app.version),
      });
      const writes = [
        ...createWrites(businessId, config, app, state, feed, idem?.key),
        ...feedAppendWrites(businessId, feed, [
          { type: 'application.created', id: app.id, occurred_at: app.created_at, data: result.body },
        ]),
      ];
      return { result, writes };
    },
    CREATE_ATTEMPTS,
    hooks,
  );
}

/**
 * The most bodies of one createApplications chunk: each takes up to 5
 * transaction items (record, feed entry, a bulk import's external id, and,
 * when its job opening is alone in the chunk, that job list's 2 items), the
 * chunk 8 more (the business list's and the order of writes' items, 3 each,
 * the lane counter, the import's result item), within DynamoDB's 100. What a
 * list takes for a chunk's entries: docs/pagination.md "Positions, holes and
 * position maps".
 */
export const APPLICATION_CHUNK = Math.floor((MAX_TRANSACTION_ITEMS - 8) / 5);

/**
 * POST /applications for a chunk of bodies (a bulk import; at most
 * APPLICATION_CHUNK unless dry; src/services/create-chunk.ts): each checked
 * exactly as its single POST; the ones that pass are created in one
 * transaction at positions and times reserved for all of them in one
 * UpdateItem, with ids of one feed lane (`lane`), so the lane's counter steps
 * once. One BatchGetItem (config, lane counter), the reservation, one
 * transaction; a re-run (the lane moved under a concurrent writer) keeps the
 * reservation. Dry: the checks only, nothing reserved or written. Each body's
 * outcome, in order: its record's id (dry: of the record it would be), or its
 * FieldError.
 */
export async function createApplications(
  businessId: string,
  rows: readonly CreateRow[],
  hooks: ChunkHooks,
  lane: number,
): Promise<ChunkOutcome[]> {
  if (!hooks.dryRun && rows.length > APPLICATION_CHUNK)
    throw new Error(`createApplications: ${rows.length} bodies in one transaction`);
  const ids = idsInLane('application', lane, rows.length, randomUUID);
  type Passed = { fields: ApplicationFields; id: string };
  const done = await createChunk<Awaited<ReturnType<typeof readForCreateChunk>>, Passed>({
    hooks,
    attempts: CREATE_ATTEMPTS,
    read: () => readForCreateChunk(businessId, lane),
    check: ({ config }) => {
      const passed: Passed[] = [];
      const outcomes = rows.map((row, i): ChunkOutcome => {
        const errors = row.fieldErrors.copy();
        try {
          const fields = fieldsForCreate(row.body, inputContext(config, errors));
          errors.throwIfAny();
          passed.push({ fields, id: ids[i] ?? '' });
          return ids[i] ?? '';
        } catch (error) {
          if (error instanceof FieldError) return error;
          throw error;
        }
      });
      return { outcomes, passed };
    },
    reserve: (count) => reserveForChunk(businessId, count),
    writes: ({ config, feed }, passed, reserved, now) => {
      const apps = passed.map(({ fields, id }, i): ApplicationRecord => {
        const at = reservedTime(reserved, i);
        return { id, ...fields, created_at: at, updated_at: at, version: 1 };
      });
      return [
        ...createChunkWrites(businessId, config, apps, reserved, feed, now),
        ...feedAppendWrites(
          businessId,
          feed,
          apps.map((app) => ({
            type: 'application.created' as const,
            id: app.id,
            occurred_at: app.created_at,
            data: renderApplication(config, app),
          })),
          now,
        ),
      ];
    },
  });
  return done.outcomes;
}

/** GET /applications/{id}: one BatchGetItem (record + config). */
export async function showApplication(businessId: string, id: string): Promise<ApiResult> {
  const { config, item } = await readApplication(businessId, id);
  if (!item) throw notFound('application', id);
  const app = storedOf(item);
  return ok(renderApplication(config, app), { ETag: etagOf(app.id, app.version) });
}

/** Stored values compared as JSON. */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * PUT /applications/{id}: read (record + config), If-Match, checks, one
 * transaction replacing the record if its version is still the one read
 * (and moving the status block counts when the status changes). A
 * concurrent writer makes it re-run from the read, so changes to different
 * fields all survive; with If-Match the re-run answers 412.
 */
export async function updateApplication(
  businessId: string,
  id: string,
  body: Body,
  fieldErrors: FieldErrorCollector,
  ifMatch: string | undefined,
  hooks?: WriteHooks,
): Promise<ApiResult> {
  // Validating (a bulk import's validate mode) writes nothing, a reservation neither: the update is never sent.
  let held: Reservation | undefined = hooks?.dryRun ? dryReservation() : undefined;
  return withRetries(async () => {
    const { config, item, feed, reserved } = await readForUpdate(businessId, id, held);
    held = reserved;
    if (!item) throw notFound('application', id);
    // The reservation went out beside the read (or before a re-run): a write reserved after it may already be
    // in the record. Its updated_at would go back in time (a client syncing by updated_at_since would miss this
    // write): re-run with a new one.
    if (positionsOf(item).updatePosition >= reserved.updatePosition) {
      held = undefined;
      throw new RetryOperation();
    }
    const before = storedOf(item);
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etagOf(before.id, before.version))) throw preconditionFailed();

    const fields = fieldsForUpdate(body, before, inputContext(config, fieldErrors));
    fieldErrors.throwIfAny();
    // Like employees: a PUT that changes nothing writes nothing and keeps updated_at and the ETag.
    if (Object.entries(fields).every(([k, v]) => same(v, (before as unknown as Record<string, unknown>)[k])))
      return ok(renderApplication(config, before), { ETag: etagOf(before.id, before.version) });

    const after: ApplicationRecord = {
      ...before,
      ...fields,
      // Reserved after the write that produced `before` (checked above): later than its updated_at.
      updated_at: reservedTime(reserved),
      version: before.version + 1,
    };
    const rendered = renderApplication(config, after);
    const at = positionsOf(item);
    // This write's feed entry is the lane's next one (feedAppendWrites): the record lists it for its erasure.
    const feedRefs = withFeedRef(at.feedRefs ?? [], feed.n + 1, after.updated_at, Date.now());
    await commitWrite(
      [
        ...updateWrites(businessId, config, before, after, { ...at, feedRefs }, reserved),
        ...feedAppendWrites(businessId, feed, [
          {
            type: 'application.updated',
            id: after.id,
            occurred_at: after.updated_at,
            data: rendered,
            changed_fields: changedFields(renderApplication(config, before), rendered),
          },
        ]),
      ],
      after.id,
      hooks,
    );
    return ok(rendered, { ETag: etagOf(after.id, after.version) });
  }, UPDATE_ATTEMPTS);
}

/**
 * DELETE /applications/{id} (contract §17): erases it (eraseApplication);
 * 404 when there is nothing to erase.
 */
export async function deleteApplication(businessId: string, id: string): Promise<ApiResult> {
  if ((await eraseApplication(businessId, id)).kind === 'gone') throw notFound('application', id);
  return noContent();
}

/**
 * The one erasure path of DELETE and retention (contract §17): read (record +
 * config + order of writes + feed lane), one transaction deleting the record
 * if its version is still the one read, with holes in every list's summary and
 * map, the idempotency record of its create turned into a data-free tombstone,
 * `application.deleted` appended and its earlier feed entries redacted (those
 * near expiry or over the transaction's cap just before it). A racing PUT
 * makes it re-run from the read (so it erases the updated record and uncounts
 * its current status); a PUT that loses finds no record (404): never
 * resurrected, never counted twice. `keep` (retention: not due) is decided on
 * the record read in the same attempt, so a PUT that makes it recent wins.
 */
export async function eraseApplication(
  businessId: string,
  id: string,
  keep?: (app: ApplicationRecord) => boolean,
): Promise<RetentionOutcome> {
  return withRetries(async (): Promise<RetentionOutcome> => {
    const { config, item, feed } = await readForWrite(businessId, id);
    if (!item) return { kind: 'gone' };
    const app = storedOf(item);
    const at = positionsOf(item);
    if (keep?.(app)) return { kind: 'kept', updatePosition: at.updatePosition };
    // Exports first (contract §20): from here on no export file completes with this applicant.
    await eraseFromExports(businessId, id);
    await eraseAttachments(businessId, id);
    const redactions = applicationRedactions(businessId, id, at.feedRefs ?? []);
    await redactions.before();
    await transactWrite([
      ...deleteWrites(businessId, config, app, at),
      noAttachmentsLeft(businessId, id),
      ...feedAppendWrites(businessId, feed, [
        { type: 'application.deleted', id, occurred_at: new Date().toISOString(), data: null },
      ]),
      ...redactions.writes,
    ]);
    return { kind: 'erased' };
    // Erasures touch the business's shared counters and maps like creates do: the same retry budget.
  }, CREATE_ATTEMPTS);
}

// ---------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------

export interface ListPage {
  readonly entries: Record<string, unknown>[];
  readonly total: number;
}

/**
 * GET /applications: the list its filters name (a business, job opening or
 * status list, the order of writes for updated_at_since), located by the
 * page locator from the list's summary and maps (docs/pagination.md).
 */
export async function listApplications(
  businessId: string,
  filter: ApplicationListFilter,
  page: PageRequest,
  along?: ReadAlong,
): Promise<ListPage> {
  const list = application.listOf(businessId, filter);
  const { config, total, items } = await readApplicationPage(businessId, list, page, along);
  return { entries: items.map((item) => view(config, item)), total };
}

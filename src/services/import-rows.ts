/**
 * The row applier of bulk imports (contract §22): a stream of rows of one
 * type for one business in, one result line per row out, in row order.
 *
 * Each row is checked as its single request: the same generated validator
 * (src/schemas/validation.ts), then the same service checks. What differs by
 * record type is the type's adapter (src/services/import-adapters.ts): its
 * validators, its single requests (a record whose external id is kept is
 * updated alone, or created again alone if it was erased), its chunk write
 * (new records of a window in one transaction: src/services/create-chunk.ts)
 * and the references a window reads first. The import only adds items to
 * those transactions (src/data/dynamo/transact-write.ts WriteHooks, the
 * chunks' ChunkHooks): the external_id it keeps for a new record, and the
 * rows' result item when results are kept. Keeping them exactly once (a row
 * whose result is stored is never applied again) wraps the applier:
 * src/services/import-results.ts. Validating sends no transaction. A
 * rejected row writes nothing but its result and never stops the others.
 *
 * The admin tool's demo loading uses this too (one writer of imported
 * records): it passes its own origin and no results.
 */
import { randomUUID } from 'node:crypto';
import { laneOf } from '../domain/change-feed';
import { boundedErrors, isExternalId, type ImportMode, type ImportType, type ResultLine } from '../domain/imports';
import type { CellKind, ParsedRow } from '../domain/import-rows';
import type { BusinessConfig } from '../domain/business';
import type { WriteOrigin } from '../domain/audit';
import { FieldError, FieldErrorCollector, HttpError, MESSAGES, type FieldMessages } from '../domain/errors';
import { runWithOrigin } from '../data/write-origin';
import { runWithDeadline } from '../data/deadline';
import type { TxWrite, WriteHooks } from '../data/dynamo/transact-write';
import { RowAlreadyApplied, claimExternalIdWrite, importLaneOwner } from '../data/import-store';
import type { EmployeeChunkContext } from '../data/employee-store';
import type { ChunkHooks, ChunkOutcome, CreateRow } from './create-chunk';
import { IMPORT_ADAPTERS, type Body, type ImportAdapter, type Owners, type WindowRead } from './import-adapters';
import { adminContext } from './request-context';
import { exactlyOnce, resultKeeping, type ResultKeeping, type RowSink } from './import-results';

/**
 * What one row's write, or one chunk's, may take (retries and the resolution of
 * an ambiguous answer included): a chunk's transaction writes up to 100 items.
 * Within the run's reserve (src/services/import-run.ts RESERVE_MS), so a run
 * that starts one before its reserve ends it in time.
 */
const WRITE_BUDGET_MS = 8000;

/** What a JSON Schema property takes, for reading a CSV cell: arrays, numbers, booleans, else text. */
function kindOfSchema(property: unknown): CellKind {
  const text = JSON.stringify(property ?? {});
  if (/"type":(\[[^\]]*)?"array"/.test(text)) return 'array';
  if (/"type":(\[[^\]]*)?"(number|integer)"/.test(text)) return 'number';
  if (/"type":(\[[^\]]*)?"boolean"/.test(text) || /"const":true/.test(text)) return 'boolean';
  return 'string';
}

/** How each CSV cell of an import of `type` reads: by its field's schema type, custom fields by their type_of. */
export function importCellKinds(type: ImportType, config: BusinessConfig): (field: string) => CellKind {
  const kinds = new Map<string, CellKind>(
    Object.entries(IMPORT_ADAPTERS[type].createSchema.properties).map(([name, p]) => [name, kindOfSchema(p)]),
  );
  for (const def of IMPORT_ADAPTERS[type].customFields(config)) {
    const kind: CellKind =
      def.type_of === 'integer' || def.type_of === 'float' || def.type_of === 'currency'
        ? 'number'
        : def.type_of === 'checkbox'
          ? 'boolean'
          : def.type_of === 'select_multiple'
            ? 'array'
            : 'string';
    kinds.set(`cf_${def.id}`, kind);
  }
  return (field) => kinds.get(field) ?? 'string';
}

export interface ApplyRowsOptions {
  readonly businessId: string;
  readonly type: ImportType;
  /** `validate`: every check, no write. */
  readonly mode: ImportMode;
  /** Who the writes are made by (their change-feed entries' actor and request_id). */
  readonly origin: WriteOrigin;
  /** Keep each row's result under this import (exactly once across resumed runs); absent: results are only yielded. */
  readonly importId?: string;
  /**
   * Rows up to this one were counted by an earlier run (its checkpoint): they are skipped unread.
   * Results stored after it by earlier runs are yielded as stored, their rows not applied again.
   */
  readonly resumeAfter?: number;
  /** The messages of a row's errors, in the import's language (default: as the services word them, English). */
  readonly translate?: (fields: FieldMessages) => FieldMessages;
  /**
   * The fields of a row's body outside the creating token's field grant (contract §25: the row fails with
   * `is not permitted` for each, nothing written); absent: every field is granted.
   */
  readonly denied?: (body: Readonly<Record<string, unknown>>, create: boolean) => string[];
}

/**
 * Rows read and applied together: one read of their external ids (with what
 * new employees need), their new records in one transaction (the adapter's chunkSize).
 * Validating sends no transaction: larger windows, fewer reads.
 */
const windowOf = (adapter: ImportAdapter, mode: ImportMode): number =>
  adapter.chunkSize * (mode === 'validate' ? 4 : 1);

/**
 * Applies (or validates) rows of one type for one business in row order and
 * yields each row's result line once it is stored. A row whose result an
 * earlier run stored yields that stored result unapplied. Errors other than
 * a row's own (DynamoDB unavailable past a write's budget) end the stream:
 * the rows before have their results stored.
 *
 * Rows go in windows (windowOf): one BatchGetItem of their external ids
 * (for employees with the config, feed lane and employee_numbers their
 * creates need), sent while the window before is being applied; new records
 * (no external id kept yet) are created in one transaction per run of them
 * (src/services/create-chunk.ts: one reservation of positions; createEmployees
 * starting from the state the chunk before left, one feed lane step;
 * createApplications one feed lane step; createEmployeeJobs reading its
 * employees, supervisors and their lanes after the chunk before committed,
 * one step per lane; each record with its feed entry, and the run's result
 * item, the external ids kept right after it); every other row takes its
 * single request's path alone, in row order. Results of
 * rows that write nothing are stored per run of consecutive rows with one
 * BatchWriteItem per window. A window ends early at a row whose external id
 * an earlier row of the window names (it updates what that row creates).
 * Memory: a window and the one read ahead; validating also the set of
 * employee_numbers and external ids of earlier rows (uniqueness within the
 * file, nothing being written): O(distinct values), some 100 bytes each.
 */
export async function* applyImportRows(
  rows: AsyncIterable<ParsedRow>,
  options: ApplyRowsOptions,
): AsyncGenerator<ResultLine> {
  yield* exactlyOnce(rows, options, new Windows(runOf(options)));
}

/** What every window of one run shares. */
interface Run {
  readonly options: ApplyRowsOptions;
  readonly adapter: ImportAdapter;
  readonly results: ResultKeeping;
  /** Validating: the unique values and external ids of earlier rows (uniqueness within the file). */
  readonly seen: Seen;
  /** Every new record of this run takes one feed lane: each chunk moves its counter once. */
  readonly lane: number;
}

interface Seen {
  readonly values: Set<string>;
  readonly externalIds: Set<string>;
}

const runOf = (options: ApplyRowsOptions): Run => ({
  options,
  adapter: IMPORT_ADAPTERS[options.type],
  results: resultKeeping(options),
  seen: { values: new Set(), externalIds: new Set() },
  lane: laneOf(importLaneOwner(options.type), randomUUID()),
});

/** What a window leaves for the next: the state its last chunk left, and whether a row wrote alone since. */
interface Carried {
  readonly known?: EmployeeChunkContext;
  /** The next window's read (sent ahead) may miss what such a row changed (an employee_number it freed). */
  readonly stale: boolean;
}

/** A window's lines and what it leaves for the next. */
interface WindowOutcome {
  readonly lines: ResultLine[];
  readonly carried: Carried;
}

/**
 * The windows of a run: the one being filled, and the one being applied
 * while the next one's read goes out.
 */
class Windows implements RowSink {
  private rows: ParsedRow[] = [];
  /** The external ids the rows of the window being filled name. */
  private readonly named = new Set<string>();
  private applying: { readonly done: Promise<WindowOutcome>; readonly named: ReadonlySet<string> } | undefined;
  private carried: Carried = { stale: false };
  private readonly run: Run;

  constructor(run: Run) {
    this.run = run;
  }

  async add(row: ParsedRow): Promise<ResultLine[]> {
    const externalId = isExternalId(row.body.external_id) ? row.body.external_id : undefined;
    const full =
      this.rows.length >= windowOf(this.run.adapter, this.run.options.mode) ||
      (externalId !== undefined && this.named.has(externalId));
    const lines = full ? await this.close() : [];
    this.rows.push(row);
    if (externalId !== undefined) this.named.add(externalId);
    return lines;
  }

  async *drain(): AsyncGenerator<ResultLine> {
    yield* await this.close();
    yield* await this.settle();
  }

  /** The window being applied: its lines once done. */
  private async settle(): Promise<ResultLine[]> {
    if (!this.applying) return [];
    const done = await this.applying.done;
    this.applying = undefined;
    this.carried = done.carried;
    return done.lines;
  }

  /** Closes the window: its read goes out now, it is applied once the one before is done (whose lines these are). */
  private async close(): Promise<ResultLine[]> {
    if (!this.rows.length) return this.settle();
    const rows = this.rows;
    const named = new Set(this.named);
    this.rows = [];
    this.named.clear();
    // An external id the window being applied names may not be kept yet: this window reads after it.
    const ahead = [...named].some((n) => this.applying?.named.has(n)) ? undefined : readWindow(this.run, rows);
    ahead?.catch(() => undefined);
    const lines = await this.settle();
    const read = await (ahead ?? readWindow(this.run, rows));
    const done = applyRowWindow(this.run, rows, read, this.carried);
    done.catch(() => undefined);
    this.applying = { done, named };
    return lines;
  }
}

/** One BatchGetItem (parts of 100 keys at once) of what a window's rows name. */
const readWindow = ({ adapter, options, lane }: Run, rows: readonly ParsedRow[]): Promise<WindowRead> =>
  adapter.readWindow(
    options.businessId,
    rows,
    [...new Set(rows.map((r) => r.body.external_id).filter(isExternalId))],
    lane,
  );

/**
 * The state a chunk starts from: its window's read, with the lane the chunk
 * before left where it is newer (the read went out while that chunk was being
 * written) and the numbers that chunk took.
 */
function mergeKnown(
  read: EmployeeChunkContext | undefined,
  before: EmployeeChunkContext | undefined,
): EmployeeChunkContext | undefined {
  if (!read || !before) return read;
  return {
    config: read.config,
    feed: before.feed.lane === read.feed.lane && before.feed.n > read.feed.n ? before.feed : read.feed,
    numberOwners: new Map([...read.numberOwners, ...before.numberOwners]),
  };
}

/** A write made by the run's origin within its budget. */
const written = <T>(run: Run, write: () => Promise<T>): Promise<T> =>
  runWithOrigin(run.options.origin, () => runWithDeadline(WRITE_BUDGET_MS, write));

/** A line in the import's language, and bounded: a result item holds a window's lines (RESULT_ERRORS_CHARS). */
const translated = ({ options }: Run, line: ResultLine): ResultLine =>
  line.errors
    ? { ...line, errors: boundedErrors(options.translate ? options.translate(line.errors) : line.errors) }
    : line;

/** A new record of a row waiting for its chunk: its checked body, what the check collected, its external id. */
type PendingCreate = CreateRow & { readonly externalId: string | undefined };

/** A row of a run waiting for its chunk. */
interface Pending {
  readonly line: (id: string | null, fields?: FieldMessages | null) => ResultLine;
  readonly create: PendingCreate;
  /** A new record's field errors when the record it refers to is not found (its request's 404). */
  readonly missing?: FieldMessages;
}

/** Where the application of one window stands. */
interface WindowState {
  readonly read: WindowRead;
  /** The window's lines so far, in row order. */
  readonly out: ResultLine[];
  /** Runs of consecutive lines that write nothing, stored together at the end. */
  readonly unstored: ResultLine[][];
  /** The rows of new records waiting for their chunk. */
  pending: Pending[];
  /** What the last chunk (of this window or the one before) left: with the window's read, where the next starts. */
  before: EmployeeChunkContext | undefined;
  /** The window's read may be older than a write of a row on its own path: the next chunk reads again. */
  reread: boolean;
  /** A row on its own path wrote since the last chunk. */
  wroteAlone: boolean;
}

/** One window of rows: their result lines in row order, each stored (when results are kept). */
async function applyRowWindow(
  run: Run,
  rows: readonly ParsedRow[],
  read: WindowRead,
  carried: Carried,
): Promise<WindowOutcome> {
  const state: WindowState = {
    read,
    out: [],
    unstored: [],
    pending: [],
    before: carried.known,
    reread: carried.stale,
    wroteAlone: false,
  };
  for (const row of rows) {
    // New records join the run; any other row is applied after the rows before it (uniqueness in row order).
    if (!joinsRun(run, read, row)) await flushRun(run, state);
    const step = await written(run, () => applyRow(run, row, read));
    if ('pending' in step) {
      state.pending.push(step.pending);
      continue;
    }
    await flushRun(run, state);
    const line = translated(run, step.line);
    state.out.push(line);
    if (!step.stored) state.unstored.push([line]);
    else state.reread = state.wroteAlone = true;
  }
  await flushRun(run, state);
  await run.results.storeUnwritten(state.unstored);
  return { lines: state.out, carried: { ...(state.before ? { known: state.before } : {}), stale: state.wroteAlone } };
}

/** Whether a row is a new record (no kept external id, none of an earlier row when validating). */
function joinsRun({ options, seen }: Run, read: WindowRead, row: ParsedRow): boolean {
  const extId = isExternalId(row.body.external_id) ? row.body.external_id : undefined;
  return (
    extId === undefined || (!read.records.has(extId) && !(options.mode === 'validate' && seen.externalIds.has(extId)))
  );
}

/** The run of new records so far: created in one transaction with the run's result item. */
async function flushRun(run: Run, state: WindowState): Promise<void> {
  const pending = state.pending;
  state.pending = [];
  if (!pending.length) return;
  const lines = await writeChunk(run, state, pending);
  await run.results.afterChunk(lines);
  state.out.push(...lines);
  if (!run.results.inTransactions) state.unstored.push(lines);
}

/** A run's new records in one transaction: the run's lines, or those a send of it stored before. */
async function writeChunk(run: Run, state: WindowState, pending: readonly Pending[]): Promise<ResultLine[]> {
  const { adapter, options, results } = run;
  const creates = pending.map((p) => p.create);
  const hooks: ChunkHooks = {
    dryRun: options.mode === 'validate',
    extraWrites: (made) =>
      results.chunkWrites(
        () => linesOf(run, pending, made),
        () => claimsOf(options, creates, made),
      ),
  };
  const known = state.reread ? undefined : mergeKnown(state.read.chunk, state.before);
  try {
    const chunk = await written(run, () =>
      adapter.writeChunk(options.businessId, creates, hooks, { lane: run.lane, ...(known ? { known } : {}) }),
    );
    if (chunk.after) {
      // The next run of the window starts from where this chunk left the counters; the next window too.
      state.before = chunk.after;
      state.reread = state.wroteAlone = false;
    }
    return linesOf(run, pending, chunk.outcomes);
  } catch (error) {
    if (!(error instanceof RowAlreadyApplied)) throw error;
    // A re-sent transaction of this run found its results stored: they are the run's lines.
    state.reread = true;
    const lines = [...error.lines];
    const rowsOf = (ls: readonly ResultLine[]): string => ls.map((l) => l.row).join();
    if (rowsOf(lines) !== rowsOf(linesOf(run, pending, [])))
      throw new Error('stored results of a chunk name other rows');
    return lines;
  }
}

/** A run's lines by its chunk's outcomes (none yet: as created). */
function linesOf(run: Run, pending: readonly Pending[], outcomes: readonly ChunkOutcome[]): ResultLine[] {
  return pending.map((p, i) => {
    const outcome = outcomes[i];
    if (outcome instanceof FieldError) return translated(run, p.line(null, outcome.fields));
    if (outcome instanceof HttpError) {
      if (outcome.status !== 404 || !p.missing) throw outcome;
      return translated(run, p.line(null, p.missing));
    }
    return translated(run, p.line(run.options.mode === 'validate' ? null : (outcome ?? null)));
  });
}

/** The claims of the external ids of a chunk's new records, for its transaction. */
const claimsOf = (
  { businessId, type }: ApplyRowsOptions,
  creates: readonly PendingCreate[],
  made: readonly ChunkOutcome[],
): TxWrite[] =>
  creates.flatMap((create, i) => {
    const id = made[i];
    return typeof id === 'string' && create.externalId !== undefined
      ? [claimExternalIdWrite(businessId, type, create.externalId, id)]
      : [];
  });

/** One row: its result line and whether its own transaction stored it, or a new record waiting for its chunk. */
type Step = { readonly line: ResultLine; readonly stored: boolean } | { readonly pending: Pending };

/** A row's body as its requests take it, its own field errors, and its line. */
interface RowCheck {
  readonly body: Body;
  /** Its external id, when it is one. */
  readonly extId: string | undefined;
  /** The row's own field errors (external ids), carried into the collector of whichever request it takes. */
  readonly own: readonly (readonly [string, string])[];
  readonly missing?: FieldMessages;
  line(result: ResultLine['result'], id: string | null, fields?: FieldMessages | null): ResultLine;
}

/** A row's body with its external id out and the references it makes resolved. */
function checkRow(adapter: ImportAdapter, row: ParsedRow, owners: Owners): RowCheck {
  const body: Body = { ...row.body };
  const externalId = body.external_id;
  delete body.external_id;
  const extId = isExternalId(externalId) ? externalId : undefined;
  const references = adapter.resolveReferences(body, owners);
  const own: (readonly [string, string])[] =
    externalId !== undefined && extId === undefined ? [['external_id', MESSAGES.invalid]] : [];
  return {
    body,
    extId,
    own: [...own, ...references.errors],
    ...(references.missing ? { missing: references.missing } : {}),
    line: (result, id, fields = null) => ({
      row: row.row,
      // An id only when it is one: an invalid external_id is a value the results never repeat.
      external_id: extId ?? null,
      result: fields ? 'failed' : result,
      id: fields ? null : id,
      errors: fields,
    }),
  };
}

/** A collector holding the row's own errors, for whichever request it takes. */
function collectorOf(check: RowCheck): FieldErrorCollector {
  const errors = new FieldErrorCollector();
  for (const [field, message] of check.own) errors.add(field, message);
  return errors;
}

/** One row: checked, then updated or created alone, skipped, or waiting for its chunk. */
async function applyRow(run: Run, row: ParsedRow, owners: Owners): Promise<Step> {
  const { options, seen } = run;
  // A JSON Lines line that is not one JSON object within the limits fails on its own.
  if (row.invalid)
    return {
      line: { row: row.row, external_id: null, result: 'failed', id: null, errors: { row: [MESSAGES.invalid] } },
      stored: false,
    };
  const check = checkRow(run.adapter, row, owners);
  const { extId } = check;
  const owner = extId === undefined ? undefined : owners.records.get(extId);
  const earlier = extId !== undefined && options.mode === 'validate' && seen.externalIds.has(extId);
  if (extId !== undefined && options.mode === 'validate') seen.externalIds.add(extId);
  const denied = options.denied?.(check.body, owner === undefined && !earlier) ?? [];
  if (denied.length > 0)
    return {
      line: check.line('failed', null, Object.fromEntries(denied.map((f) => [f, [MESSAGES.notPermitted]]))),
      stored: false,
    };
  try {
    return await applyChecked(run, check, owner, earlier);
  } catch (error) {
    if (error instanceof RowAlreadyApplied && error.lines[0]) return { line: error.lines[0], stored: true };
    if (error instanceof FieldError) return { line: check.line('failed', null, error.fields), stored: false };
    throw error;
  }
}

/**
 * A checked row: its record (`owner`, by its kept external id) updated, or created again if gone; a new
 * record into its chunk; a row of an external id an earlier row of the file names (validating) checked as
 * that one's update. A type without single requests skips a row whose record exists.
 */
async function applyChecked(run: Run, check: RowCheck, owner: string | undefined, earlier: boolean): Promise<Step> {
  const { adapter, options } = run;
  const { single } = adapter;
  if (!single && (owner !== undefined || earlier)) return { line: check.line('skipped', owner ?? null), stored: false };
  if (single && earlier) {
    // Validating, a second row of one external id would update the record the first creates: its body is
    // checked as that update's (the record itself does not exist to check against).
    const errors = collectorOf(check);
    single.validateUpdate(check.body, errors);
    errors.throwIfAny();
    return { line: check.line('updated', null), stored: false };
  }
  if (single && owner !== undefined) {
    const updated = await updateAlone(run, check, owner, single);
    if (updated) return updated;
  }
  const errors = collectorOf(check);
  const input = adapter.validateCreate(check.body, errors);
  if (options.mode === 'validate') adapter.checkInFile(input, errors, run.seen.values);
  if (owner === undefined)
    return {
      pending: {
        line: (id, fields) => check.line('created', id, fields),
        create: { body: input, fieldErrors: errors, externalId: check.extId },
        ...(check.missing ? { missing: check.missing } : {}),
      },
    };
  return createAlone(run, check, owner, input, errors);
}

/** A row naming a kept record: its update alone; undefined when the record is gone (then it is created again). */
async function updateAlone(
  run: Run,
  check: RowCheck,
  owner: string,
  single: NonNullable<ImportAdapter['single']>,
): Promise<Step | undefined> {
  const { options, results } = run;
  const errors = collectorOf(check);
  const input = single.validateUpdate(check.body, errors);
  const hooks: WriteHooks = {
    dryRun: options.mode === 'validate',
    extraWrites: () => results.rowWrites(check.line('updated', owner)),
  };
  try {
    await single.update(options.businessId, owner, input, errors, undefined, hooks);
    return hooks.wrote
      ? { line: check.line('updated', owner), stored: results.inTransactions }
      : { line: check.line('unchanged', owner), stored: false };
  } catch (error) {
    // An erased record keeps its external id until a row creates it again (on its own path).
    if (!(error instanceof HttpError && error.status === 404)) throw error;
    return undefined;
  }
}

/** A row whose kept external id names an erased record: the record created again alone, the id claimed anew. */
async function createAlone(
  run: Run,
  check: RowCheck,
  owner: string,
  input: Body,
  errors: FieldErrorCollector,
): Promise<Step> {
  const { adapter, options, results } = run;
  if (!adapter.single) throw new Error(`no create of an imported ${options.type} record alone`);
  const { extId } = check;
  const hooks: WriteHooks = {
    dryRun: options.mode === 'validate',
    extraWrites: (id) => [
      ...(extId === undefined ? [] : [claimExternalIdWrite(options.businessId, options.type, extId, id, owner)]),
      ...results.rowWrites(check.line('created', id)),
    ],
  };
  const context = adminContext(options.businessId, { method: 'POST', path: adapter.single.path });
  const created = await adapter.single.create(context, input, errors, hooks);
  const id = options.mode === 'validate' ? null : String((created.body as { id: unknown }).id);
  return { line: check.line('created', id), stored: results.inTransactions };
}

/**
 * A chunk of creates of one kind in one transaction (a bulk import,
 * src/services/import-rows.ts; docs/decisions/015): what createEmployees,
 * createEmployeeJobs and createApplications share. The kind says what it
 * reads, how each body is checked (exactly as its single POST), where its
 * positions are reserved and what the transaction writes; this module runs
 * it: one read, the checks, one reservation of positions for the bodies that
 * pass, one transaction with what the import adds. A refused transaction (a
 * concurrent writer moved a counter or record the chunk read) re-runs from
 * the read and keeps its reservation while it has room.
 */
import type { FieldError, FieldErrorCollector, HttpError } from '../domain/errors';
import type { Reservation } from '../data/lists';
import { transactWrite, type TxWrite } from '../data/dynamo/transact-write';
import { withRetries } from '../data/dynamo/with-retries';

/** One body of a chunk of creates: its schema-checked fields and what its schema check collected. */
export interface CreateRow {
  readonly body: Record<string, unknown>;
  readonly fieldErrors: FieldErrorCollector;
}

/**
 * What became of one body of a chunk: its record's id (dry: of the record it would be), its FieldError, or the
 * HttpError its single request answers (a job whose employee_id names no employee: 404).
 */
export type ChunkOutcome = string | FieldError | HttpError;

/** What a bulk import adds to a chunk of creates: dry (checks only), and items for its transaction. */
export interface ChunkHooks {
  readonly dryRun?: boolean;
  /** More items for the chunk's transaction, given each body's outcome. */
  readonly extraWrites?: (outcomes: readonly ChunkOutcome[]) => TxWrite[];
}

/** How one kind's chunk reads, checks, reserves and writes (`C`: what it read; `P`: a body that passed). */
export interface ChunkKind<C, P> {
  readonly hooks: ChunkHooks;
  /** Attempts of the whole chunk (each refusal re-runs it from `read`). */
  readonly attempts: number;
  /** Everything the checks and writes need, one BatchGetItem. */
  read(): Promise<C>;
  /** Each body checked as its single POST, in order: the outcomes, and the bodies that pass in that order. */
  check(read: C): { readonly outcomes: ChunkOutcome[]; readonly passed: P[] };
  /** Reserves `count` consecutive positions (and times) of the kind's business list: one UpdateItem. */
  reserve(count: number): Promise<Reservation>;
  /** The transaction's items for the bodies that passed, the i-th at the reservation's i-th position and time. */
  writes(read: C, passed: readonly P[], reserved: Reservation, now: number): TxWrite[];
}

/** What a chunk did: each body's outcome, what it read and the bodies that passed (committed unless dry). */
export interface ChunkDone<C, P> {
  readonly outcomes: ChunkOutcome[];
  readonly read: C;
  readonly passed: readonly P[];
  /** When the transaction's items were made (a feed lane's stale day marks are judged by it). */
  readonly now: number;
}

/**
 * Runs a chunk: read, check, reserve positions for the bodies that pass
 * (a re-run with as many or fewer keeps the first reservation; the positions
 * it no longer uses are holes), one transaction with the import's items. Dry:
 * the read and the checks only, nothing reserved or written.
 */
export async function createChunk<C, P>(kind: ChunkKind<C, P>): Promise<ChunkDone<C, P>> {
  let held: { readonly reserved: Reservation; readonly count: number } | undefined;
  return withRetries(async () => {
    const read = await kind.read();
    const { outcomes, passed } = kind.check(read);
    const now = Date.now();
    if (kind.hooks.dryRun) return { outcomes, read, passed, now };
    if (passed.length > (held?.count ?? 0))
      held = { reserved: await kind.reserve(passed.length), count: passed.length };
    const writes = [
      ...(held && passed.length ? kind.writes(read, passed, held.reserved, now) : []),
      ...(kind.hooks.extraWrites?.(outcomes) ?? []),
    ];
    if (writes.length) await transactWrite(writes);
    return { outcomes, read, passed, now };
  }, kind.attempts);
}

/**
 * Keeping an import's row results exactly once (contract §22): around the
 * row applier (src/services/import-rows.ts), which hands its rows to a
 * RowSink and its writes the items this module makes.
 *
 * - A row whose result an earlier run stored is not applied again: its stored
 *   result is yielded in its place (resumed runs).
 * - A row's result goes into the transaction of its records (its own, or its
 *   chunk's: the chunk's result item is its proof, and the external ids of
 *   its new records are kept right after it, or by the next run if this one
 *   stops between). Results of rows that write nothing are stored after them.
 * - Without an import (the admin tool's demo loading) results are only
 *   yielded, and a chunk's external ids go into its transaction.
 */
import type { ImportType, ResultLine } from '../domain/imports';
import type { ParsedRow } from '../domain/import-rows';
import type { TxWrite } from '../data/dynamo/transact-write';
import { keepExternalIds, putRowResults, readRowResults, rowResultWrite } from '../data/import-store';

/** Where an import's rows go: windows of rows applied together, lines out in row order. */
export interface RowSink {
  /** Takes a row; the lines of the rows it completes (when it closes a window). */
  add(row: ParsedRow): Promise<ResultLine[]>;
  /** Every row taken so far applied: their lines. */
  drain(): AsyncGenerator<ResultLine>;
}

/** What the row applier asks of the keeping of results. */
export interface ResultKeeping {
  /** Rows' writes carry their result items (an import applying); else their results are stored after them. */
  readonly inTransactions: boolean;
  /** The item that keeps a row's line in its own transaction (none unless inTransactions). */
  rowWrites(line: ResultLine): TxWrite[];
  /** The items a chunk's transaction adds: its lines' item, or without results kept the claims of its external ids. */
  chunkWrites(lines: () => ResultLine[], claims: () => TxWrite[]): TxWrite[];
  /** After a chunk committed: keeps the external ids of the records its lines report created. */
  afterChunk(lines: readonly ResultLine[]): Promise<void>;
  /** Stores the runs of lines no write carried (one BatchWriteItem per window). */
  storeUnwritten(runs: readonly (readonly ResultLine[])[]): Promise<void>;
}

export interface KeepingOptions {
  readonly businessId: string;
  readonly type: ImportType;
  readonly mode: 'apply' | 'validate';
  readonly importId?: string;
  readonly resumeAfter?: number;
}

/** How an import's results are kept: in its writes when applying, after them when validating, not without an import. */
export function resultKeeping({ businessId, type, mode, importId }: KeepingOptions): ResultKeeping {
  const storeUnwritten = async (runs: readonly (readonly ResultLine[])[]): Promise<void> => {
    if (importId) await putRowResults(businessId, importId, runs);
  };
  if (importId === undefined || mode === 'validate')
    // Validating writes nothing but results; without an import a chunk's transaction claims its external ids.
    return {
      inTransactions: false,
      rowWrites: () => [],
      chunkWrites: (_lines, claims) => claims(),
      afterChunk: async () => undefined,
      storeUnwritten,
    };
  return {
    inTransactions: true,
    rowWrites: (line) => [rowResultWrite(businessId, importId, [line])],
    chunkWrites: (lines) => [rowResultWrite(businessId, importId, lines())],
    afterChunk: (lines) => keepExternalIds(businessId, type, lines),
    storeUnwritten,
  };
}

/**
 * The lines of an import's rows, each once: rows up to `resumeAfter` (an earlier run's checkpoint) are skipped
 * unread; after it, a row whose result an earlier run stored yields that result, the others go to `sink`.
 */
export async function* exactlyOnce(
  rows: AsyncIterable<ParsedRow>,
  options: KeepingOptions,
  sink: RowSink,
): AsyncGenerator<ResultLine> {
  const { businessId, type, mode, importId } = options;
  const resumeAfter = options.resumeAfter ?? 0;
  // An earlier run may have stopped between a chunk's transaction and keeping its external ids.
  if (importId && mode === 'apply') await keepStoredExternalIds(businessId, type, importId, resumeAfter);
  const earlier = importId ? storedResults(businessId, importId, resumeAfter) : undefined;
  let next = await earlier?.next();
  for await (const row of rows) {
    if (row.row <= resumeAfter) continue;
    while (next && !next.done && next.value.row < row.row) next = await earlier?.next();
    if (next && !next.done && next.value.row === row.row) {
      yield* sink.drain();
      yield next.value;
      continue;
    }
    yield* await sink.add(row);
  }
  yield* sink.drain();
}

/** Keeps the external ids of the records the results stored after `afterRow` report created, a page at a time. */
async function keepStoredExternalIds(
  businessId: string,
  type: ImportType,
  importId: string,
  afterRow: number,
): Promise<void> {
  for await (const lines of storedPages(businessId, importId, afterRow)) await keepExternalIds(businessId, type, lines);
}

/** The results earlier runs of an import stored after `afterRow`, in row order. */
async function* storedResults(businessId: string, importId: string, afterRow: number): AsyncGenerator<ResultLine> {
  for await (const lines of storedPages(businessId, importId, afterRow)) yield* lines;
}

/** The stored results after `afterRow`, a page at a time. */
async function* storedPages(
  businessId: string,
  importId: string,
  afterRow: number,
): AsyncGenerator<readonly ResultLine[]> {
  let start: Awaited<ReturnType<typeof readRowResults>>['next'];
  do {
    const page = await readRowResults(businessId, importId, afterRow, start);
    yield page.lines;
    start = page.next;
  } while (start);
}

/**
 * The parsing part of the imports bench (scripts/bench-import.ts, contract
 * §22, issue "parsing linear and bounded"): CPU seconds of reading a file's
 * rows (src/domain/import-rows.ts readImportRows, what a run's file check
 * does) for 8, 16 and 32 MB files, CSV and JSON Lines, with line breaks (every
 * row read) and without (one line: refused, or a failed row, at 1 MiB). In
 * this process, the bytes made in 64 KiB chunks as they are read (as S3
 * streams them), no DynamoDB or S3: the reader's own CPU, the figure that
 * must grow linearly with the file (CPU of N → 4N: about 4×).
 */
import { ImportFileError, readImportRows } from '../../src/domain/import-rows';

const SIZES_MB = [8, 16, 32] as const;
const CHUNK = 65_536;
/** Rows of some 200 bytes: 32 MB stay under the 200,000 rows an import takes. */
const NOTE = 'n'.repeat(160);

/** `mb` MB of `line(i)` repeated (cut at the size), in CHUNK-sized pieces made on demand. */
async function* fileOf(mb: number, head: string, line: (i: number) => string): AsyncGenerator<Uint8Array> {
  const total = mb * 1_000_000;
  let sent = 0;
  let pending = head;
  for (let i = 0; sent < total;) {
    while (pending.length < CHUNK) pending += line(i++);
    const chunk = Buffer.from(pending.slice(0, Math.min(CHUNK, total - sent)));
    pending = pending.slice(chunk.length);
    sent += chunk.length;
    yield chunk;
  }
}

export interface ParseFigure {
  readonly format: 'csv' | 'jsonl';
  readonly breaks: boolean;
  readonly mb: number;
  readonly cpuS: number;
  /** What reading ended with: rows read, the failure, or the failed rows. */
  readonly outcome: string;
}

async function measure(
  format: 'csv' | 'jsonl',
  breaks: boolean,
  mb: number,
  source: AsyncIterable<Uint8Array>,
): Promise<ParseFigure> {
  const cpu0 = process.cpuUsage();
  let rows = 0;
  let invalid = 0;
  let outcome: string;
  try {
    for await (const row of readImportRows(source, format, () => 'string')) {
      rows = row.row;
      if (row.invalid) invalid += 1;
    }
    outcome = `${rows} rows${invalid ? `, ${invalid} failed` : ''}`;
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    outcome = `${error.reason} at row ${error.failureRow ?? '-'}`;
  }
  const cpu = process.cpuUsage(cpu0);
  return { format, breaks, mb, cpuS: (cpu.user + cpu.system) / 1e6, outcome };
}

/** Every figure: CSV and JSON Lines, with and without line breaks, 8/16/32 MB. */
export async function parseFigures(): Promise<ParseFigure[]> {
  const out: ParseFigure[] = [];
  for (const mb of SIZES_MB) {
    out.push(
      await measure(
        'csv',
        true,
        mb,
        fileOf(mb, 'first_name,last_name,email,notes\n', (i) => `Anna${i},Huber${i},a${i}@x.at,${NOTE}\n`),
      ),
      await measure(
        'csv',
        false,
        mb,
        fileOf(mb, '', (i) => `Anna${i},`),
      ),
      await measure(
        'jsonl',
        true,
        mb,
        fileOf(mb, '', (i) => `{"first_name":"Anna${i}","last_name":"Huber${i}","notes":"${NOTE}"}\n`),
      ),
      await measure(
        'jsonl',
        false,
        mb,
        fileOf(mb, '{"first_name":"', (i) => `Anna${i} `),
      ),
    );
  }
  return out;
}

export function printParseFigures(figures: readonly ParseFigure[]): void {
  console.log(
    '\nReading a file’s rows (the run’s file check), CPU seconds in one process, bytes made as read (64 KiB chunks):\n',
  );
  console.log('| format | line breaks | 8 MB | 16 MB | 32 MB | 32 MB / 8 MB | how reading ended (32 MB) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const format of ['csv', 'jsonl'] as const)
    for (const breaks of [true, false]) {
      const of = (mb: number) => figures.find((f) => f.format === format && f.breaks === breaks && f.mb === mb)!;
      const [a, b, c] = SIZES_MB.map(of) as [ParseFigure, ParseFigure, ParseFigure];
      console.log(
        `| ${format} | ${breaks ? 'yes' : 'none'} | ${a.cpuS.toFixed(2)} | ${b.cpuS.toFixed(2)} | ${c.cpuS.toFixed(2)} | ${(c.cpuS / a.cpuS).toFixed(1)}× | ${c.outcome} |`,
      );
    }
}

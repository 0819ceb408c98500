/**
 * The rows of an import file (contract §22), streamed: JSON Lines or CSV in,
 * numbered row bodies out, one at a time, so memory does not grow with the
 * file. Whatever makes the whole file unreadable (not UTF-8, not JSON Lines,
 * not CSV, too many rows) is an ImportFileError naming the failure reason.
 *
 * CSV is parsed by csv-parse (RFC 4180: quoted separators, quotes and line
 * breaks); this module finds the separator from the header line, drops empty
 * cells (absent fields) and converts each cell by its field's type. Any error
 * csv-parse reports is `malformed_file`, naming the row where reading broke.
 *
 * Reading is linear in the file and bounded per line: every character is
 * looked at a fixed number of times, and no line or row is held beyond
 * MAX_LINE_CHARS (CSV: the file is `malformed_file`; JSON Lines: that line is
 * a failed row, its text skipped unheld).
 */
import { CsvError, parse } from 'csv-parse';
import { JSON_LIMITS, jsonShapeProblem } from './json-shape';
import { MAX_IMPORT_ROWS, type FailureReason, type ImportFormat } from './imports';

/** The longest line (JSON Lines) or row (CSV, its quoted line breaks included) read, in characters: 1 MiB. */
export const MAX_LINE_CHARS = 1_048_576;

export class ImportFileError extends Error {
  /**
   * @param failureRow malformed_file: the row where reading broke (0: the CSV header line).
   */
  constructor(
    readonly reason: FailureReason,
    readonly failureRow?: number,
  ) {
    super(`import file refused: ${reason}${failureRow === undefined ? '' : ` at row ${failureRow}`}`);
    this.name = 'ImportFileError';
  }
}

/**
 * One row: its number (from 1, file order, blank lines and the CSV header not
 * counted) and its body; `invalid`: a JSON Lines line that is not one JSON
 * object within the limits (its body empty), a row that fails on its own.
 */
export interface ParsedRow {
  readonly row: number;
  readonly body: Record<string, unknown>;
  readonly invalid?: true;
}

/** How a CSV cell of a field is read: as text, a number, true/false, or a JSON array. */
export type CellKind = 'string' | 'number' | 'boolean' | 'array';

/**
 * A cell's value for its field's kind. A cell that does not read as its kind
 * stays the text it is, so the field's schema reports it (`is invalid`) as
 * it would for that text in a POST body.
 */
export function convertCell(kind: CellKind, text: string): unknown {
  switch (kind) {
    case 'number': {
      const t = text.trim();
      // JSON's number grammar: what a JSON body could hold (no hex, no Infinity, no blanks).
      return /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(t) ? Number(t) : text;
    }
    case 'boolean': {
      const t = text.trim();
      return t === 'true' ? true : t === 'false' ? false : text;
    }
    case 'array': {
      try {
        const value: unknown = JSON.parse(text);
        return Array.isArray(value) ? value : text;
      } catch {
        return text;
      }
    }
    default:
      return text;
  }
}

/** UTF-8 text of a byte stream, a leading BOM dropped; invalid UTF-8 is `not_utf8`. */
async function* decodeUtf8(source: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of source) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
      throw new ImportFileError('not_utf8');
    throw error;
  }
}

function checkRowCount(row: number): void {
  if (row > MAX_IMPORT_ROWS) throw new ImportFileError('too_many_rows');
}

/**
 * JSON Lines: one row per non-blank line (`\n` or `\r\n`). A line that is not
 * one JSON object within the body limits (§2), or is longer than
 * MAX_LINE_CHARS, is an invalid row: it fails alone. Each chunk is searched
 * for line breaks once; a line's pieces are joined once, when it ends.
 */
async function* jsonLines(text: AsyncIterable<string>): AsyncGenerator<ParsedRow> {
  let pieces: string[] = [];
  let length = 0;
  let overlong = false;
  let row = 0;
  const next = (invalid: boolean, body: Record<string, unknown> = {}): ParsedRow => {
    row += 1;
    checkRowCount(row);
    return invalid ? { row, body: {}, invalid: true } : { row, body };
  };
  /** The row of the line that just ended (undefined: blank), and a fresh line after it. */
  const endLine = (last: string): ParsedRow | undefined => {
    const tooLong = overlong || length + last.length > MAX_LINE_CHARS;
    const line = tooLong ? '' : pieces.length ? pieces.join('') + last : last;
    pieces = [];
    length = 0;
    overlong = false;
    if (tooLong) return next(true);
    if (line.trim() === '') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(line);
    } catch {
      return next(true);
    }
    const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
    if (!isObject || jsonShapeProblem(body, JSON_LIMITS)) return next(true);
    return next(false, body as Record<string, unknown>);
  };
  for await (const chunk of text) {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', start)) {
      const parsed = endLine(chunk.slice(start, newline));
      start = newline + 1;
      if (parsed) yield parsed;
    }
    if (start < chunk.length && !overlong) {
      const rest = chunk.slice(start);
      if (length + rest.length > MAX_LINE_CHARS) {
        // The line is failed whatever follows: its text is not kept.
        overlong = true;
        pieces = [];
      } else {
        pieces.push(rest);
        length += rest.length;
      }
    }
  }
  const last = endLine('');
  if (last) yield last;
}

/**
 * The separator of a CSV file from its header line: `;` when the line has
 * more semicolons than commas outside quotes, else `,`.
 */
export function separatorOf(headerLine: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas += 1;
    else if (!quoted && ch === ';') semicolons += 1;
  }
  return semicolons > commas ? ';' : ',';
}

/**
 * Text chunks with the first line (up to its first line break outside quotes)
 * made available first. Each character is looked at once; a first line longer
 * than MAX_LINE_CHARS is `malformed_file` at row 0 (the header).
 */
async function withHeaderLine(text: AsyncIterable<string>): Promise<{ header: string; rest: AsyncGenerator<string> }> {
  const iterator = text[Symbol.asyncIterator]();
  const pieces: string[] = [];
  let length = 0;
  let quoted = false;
  let end = -1;
  while (end < 0) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = next.value;
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i];
      if (ch === '"') quoted = !quoted;
      else if (!quoted && (ch === '\n' || ch === '\r')) {
        end = length + i;
        break;
      }
    }
    pieces.push(chunk);
    length += chunk.length;
    if (end < 0 ? length > MAX_LINE_CHARS : end > MAX_LINE_CHARS) throw new ImportFileError('malformed_file', 0);
  }
  const buffered = pieces.join('');
  const header = end < 0 ? buffered : buffered.slice(0, end);
  async function* rest(): AsyncGenerator<string> {
    if (buffered) yield buffered;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { header, rest: rest() };
}

/** CSV (RFC 4180) with a header line naming the fields. */
async function* csvRows(text: AsyncIterable<string>, kindOf: (field: string) => CellKind): AsyncGenerator<ParsedRow> {
  const { header, rest } = await withHeaderLine(text);
  // What the parser has read (it reads ahead of the rows taken from it): where reading broke, if it does.
  const read = { header: false, rows: 0 };
  const parser = parse({
    delimiter: separatorOf(header),
    skip_empty_lines: true,
    relax_column_count: false,
    max_record_size: MAX_LINE_CHARS,
    on_record: (record: string[]) => {
      if (!read.header) read.header = true;
      else if (!record.every((cell) => cell === '')) read.rows += 1;
      return record;
    },
  });
  // Fed by hand rather than piped: a failing source (not_utf8) must end the parser with its error.
  let sourceError: unknown;
  void (async () => {
    try {
      for await (const chunk of rest) {
        if (parser.destroyed) return;
        if (!parser.write(chunk))
          await new Promise<void>((resolve) => {
            const done = (): void => {
              parser.off('drain', done);
              parser.off('close', done);
              resolve();
            };
            parser.once('drain', done);
            parser.once('close', done);
          });
      }
      parser.end();
    } catch (error) {
      parser.destroy(error as Error);
    }
  })();
  let names: string[] | undefined;
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!names) {
        names = record.map((name) => name.trim());
        if (names.some((n) => n === '') || new Set(names).size !== names.length)
          throw new ImportFileError('malformed_file', 0);
        continue;
      }
      // A line of empty cells is a blank line of a spreadsheet export.
      if (record.every((cell) => cell === '')) continue;
      row += 1;
      checkRowCount(row);
      const body: Record<string, unknown> = {};
      record.forEach((cell, i) => {
        const name = names?.[i];
        if (name !== undefined && cell !== '') body[name] = convertCell(kindOf(name), cell);
      });
      yield { row, body };
    }
  } catch (error) {
    sourceError = error;
  }
  if (sourceError instanceof ImportFileError) throw sourceError;
  // Whatever csv-parse cannot read (an unbalanced or stray quote, a row of another width, a row too long):
  // the row it was reading, the header being row 0.
  if (sourceError instanceof CsvError) throw new ImportFileError('malformed_file', read.header ? read.rows + 1 : 0);
  if (sourceError !== undefined) throw sourceError;
  if (!names) throw new ImportFileError('malformed_file', 0);
}

/**
 * The rows of a file, streamed. `kindOf` says how a CSV cell of a field reads
 * (JSON Lines carry their own types).
 */
export function readImportRows(
  source: AsyncIterable<Uint8Array>,
  format: ImportFormat,
  kindOf: (field: string) => CellKind,
): AsyncGenerator<ParsedRow> {
  const text = decodeUtf8(source);
  return format === 'jsonl' ? jsonLines(text) : csvRows(text, kindOf);
}

import fc from 'fast-check';
import {
  ImportFileError,
  MAX_LINE_CHARS,
  convertCell,
  readImportRows,
  separatorOf,
  type CellKind,
} from '../../src/domain/import-rows';
import {
  RESULT_ERRORS_CHARS,
  addCounts,
  boundedErrors,
  effectiveStatus,
  isExternalId,
  zeroCounts,
  type ImportJob,
} from '../../src/domain/imports';
import { MAX_IMPORT_ROWS } from '../../src/domain/imports';

/** The bytes in chunks of `size`: rows, quotes and multi-byte characters cut anywhere. */
async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const KINDS: Record<string, CellKind> = { n: 'number', b: 'boolean', a: 'array' };
const kindOf = (field: string): CellKind => KINDS[field] ?? 'string';

async function rows(text: string | Buffer, format: 'csv' | 'jsonl', size = 7) {
  const out = [];
  for await (const row of readImportRows(
    chunks(Buffer.isBuffer(text) ? text : Buffer.from(text), size),
    format,
    kindOf,
  ))
    out.push(row);
  return out;
}

async function failure(text: string | Buffer, format: 'csv' | 'jsonl'): Promise<string> {
  try {
    await rows(text, format);
  } catch (error) {
    if (error instanceof ImportFileError) return error.reason;
    throw error;
  }
  return 'none';
}

/** The failure of a file as reason@failure_row, and how many bytes the reader took from its source before it. */
async function failureOf(source: AsyncIterable<Uint8Array>, format: 'csv' | 'jsonl' = 'csv') {
  let read = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      read += chunk.length;
      yield chunk;
    }
  }
  try {
    for await (const row of readImportRows(counted(), format, kindOf)) void row;
  } catch (error) {
    if (error instanceof ImportFileError) return { failure: `${error.reason}@${error.failureRow}`, read };
    throw error;
  }
  return { failure: 'none', read };
}

/** `size` bytes of `fill` in 64 KiB chunks, after `head`, made as they are read. */
async function* generated(head: string, fill: string, size: number): AsyncGenerator<Uint8Array> {
  yield Buffer.from(head);
  const block = Buffer.from(fill.repeat(Math.ceil(65_536 / fill.length)));
  for (let sent = 0; sent < size; sent += block.length) yield block;
}

describe('CSV rows (contract §22)', () => {
  it('reads a spreadsheet export: BOM, `;`, quoted separators and line breaks, empty cells absent, typed cells', async () => {
    const file =
      '\ufeffname;n;b;a\r\n"Huber; Anna";3.5;true;"[""x"",""y""]"\r\n"two\r\nlines";;false;\r\n\r\n;;;\r\nlast;-2;maybe;[oops\r\n';
    expect(await rows(file, 'csv')).toEqual([
      { row: 1, body: { name: 'Huber; Anna', n: 3.5, b: true, a: ['x', 'y'] } },
      { row: 2, body: { name: 'two\r\nlines', b: false } },
      // What does not read as its type stays text: the field's schema answers `is invalid` for it.
      { row: 3, body: { name: 'last', n: -2, b: 'maybe', a: '[oops' } },
    ]);
  });

  it('takes `,` when the header has more commas than semicolons outside quotes', () => {
    expect(separatorOf('a,b,c')).toBe(',');
    expect(separatorOf('a;b;c')).toBe(';');
    expect(separatorOf('"a;b;c",d')).toBe(',');
    expect(separatorOf('"a,b,c";d')).toBe(';');
  });

  it('refuses a file that is not CSV, has a bad header or is not UTF-8', async () => {
    expect(await failure('a,b\n"x,1\n', 'csv')).toBe('malformed_file');
    expect(await failure('a,b\n1,2,3\n', 'csv')).toBe('malformed_file');
    expect(await failure('a,a\n1,2\n', 'csv')).toBe('malformed_file');
    expect(await failure('', 'csv')).toBe('malformed_file');
    expect(await failure(Buffer.from([0x61, 0x0a, 0xc3, 0x28, 0x0a]), 'csv')).toBe('not_utf8');
  });

  it('a cell csv-parse cannot read (a quote inside an unquoted cell) is malformed_file naming its row', async () => {
    const file = 'first_name,last_name\nAnna,Huber\nAnna,O"Brien\nKarl,Otto\n';
    expect((await failureOf(chunks(Buffer.from(file), 5))).failure).toBe('malformed_file@2');
    expect((await failureOf(chunks(Buffer.from('a,b\n1,2\n3,4,5\n'), 4))).failure).toBe('malformed_file@2');
    expect((await failureOf(chunks(Buffer.from('a,"b\n1,2\n'), 4))).failure).toBe('malformed_file@0');
    expect((await failureOf(chunks(Buffer.from('a,a\n1,2\n'), 4))).failure).toBe('malformed_file@0');
  });

  it('stops at a line over 1 MiB: the header or a row, reading little more than that line', async () => {
    // 8 MB without a line break: the header line never ends.
    const header = await failureOf(generated('', 'abcdefgh,', 8_000_000));
    expect(header.failure).toBe('malformed_file@0');
    expect(header.read).toBeLessThan(MAX_LINE_CHARS + 200_000);
    // A quoted cell that never closes, after two rows.
    const row = await failureOf(generated('a,b\n1,2\n3,4\n5,"', 'x', 8_000_000));
    expect(row.failure).toBe('malformed_file@3');
    expect(row.read).toBeLessThan(MAX_LINE_CHARS + 200_000);
  });

  it('numbers cells as JSON numbers only, and reads arrays as JSON arrays', () => {
    expect(convertCell('number', '1e3')).toBe(1000);
    expect(convertCell('number', '0x10')).toBe('0x10');
    expect(convertCell('number', 'Infinity')).toBe('Infinity');
    expect(convertCell('array', '{"a":1}')).toBe('{"a":1}');
    expect(convertCell('string', '007')).toBe('007');
  });

  it('round-trips any table of text cells, whatever the separator and chunking', async () => {
    const cell = fc.string({ unit: 'grapheme', maxLength: 8 }).filter((s) => s.trim() !== '' || s === '');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { maxLength: 6 }),
        fc.constantFrom(',', ';'),
        fc.integer({ min: 1, max: 9 }),
        async (table, sep, size) => {
          const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
          const file = [`x${sep}y`, ...table.map((r) => r.map(quote).join(sep))].join('\n');
          const expected = table
            .filter((r) => r.some((c) => c !== ''))
            .map((r, i) => ({
              row: i + 1,
              body: Object.fromEntries(
                [
                  ['x', r[0]],
                  ['y', r[1]],
                ].filter(([, v]) => v !== ''),
              ),
            }));
          expect(await rows(file, 'csv', size)).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('JSON Lines rows', () => {
  it('numbers objects by line, skipping blank lines, `\\r\\n` and a BOM accepted', async () => {
    expect(await rows('\ufeff{"a":1}\r\n\n  \n{"b":"ü"}', 'jsonl', 3)).toEqual([
      { row: 1, body: { a: 1 } },
      { row: 2, body: { b: 'ü' } },
    ]);
  });

  it('a line that is not one JSON object is a row of its own that fails; the others are read', async () => {
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    expect(await rows(`{"a":1}\n[1]\n{"a":\n\n"x"\n${deep}\n{"b":2}`, 'jsonl', 5)).toEqual([
      { row: 1, body: { a: 1 } },
      { row: 2, body: {}, invalid: true },
      { row: 3, body: {}, invalid: true },
      { row: 4, body: {}, invalid: true },
      { row: 5, body: {}, invalid: true },
      { row: 6, body: { b: 2 } },
    ]);
  });

  it('a line over 1 MiB is a failed row, its text not held; the lines after it are read', async () => {
    async function* file(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('{"a":1}\n{"big":"');
      yield* generated('', 'y', 3_000_000);
      yield Buffer.from('"}\n{"a":2}\n');
    }
    const out = [];
    for await (const row of readImportRows(file(), 'jsonl', kindOf)) out.push(row);
    expect(out).toEqual([
      { row: 1, body: { a: 1 } },
      { row: 2, body: {}, invalid: true },
      { row: 3, body: { a: 2 } },
    ]);
    // Exactly at the limit it is still a row of its own.
    const limit = `{"s":"${'z'.repeat(MAX_LINE_CHARS - 8)}"}`;
    expect(limit.length).toBe(MAX_LINE_CHARS);
    expect((await rows(`${limit}\n`, 'jsonl', 65_536))[0]?.invalid).toBeUndefined();
  });

  it(`refuses more than ${MAX_IMPORT_ROWS} rows`, async () => {
    const line = Buffer.from('{}\n');
    async function* many(): AsyncGenerator<Uint8Array> {
      const block = Buffer.concat(Array.from({ length: 10_000 }, () => line));
      for (let i = 0; i < MAX_IMPORT_ROWS / 10_000; i++) yield block;
      yield line;
    }
    let n = 0;
    await expect(
      (async () => {
        for await (const row of readImportRows(many(), 'jsonl', kindOf)) n = row.row;
      })(),
    ).rejects.toMatchObject({ reason: 'too_many_rows' });
    expect(n).toBe(MAX_IMPORT_ROWS);
  });
});

describe('import rules', () => {
  it('external_id: 1..100 of A-Z a-z 0-9 . _ : -', () => {
    expect(isExternalId('hr-7:a.b_C')).toBe(true);
    expect(isExternalId('x'.repeat(100))).toBe(true);
    expect(isExternalId('x'.repeat(101))).toBe(false);
    expect(isExternalId('')).toBe(false);
    expect(isExternalId('a b')).toBe(false);
    expect(isExternalId(7)).toBe(false);
  });

  it('a result line keeps messages only, bounded: long field names cut, fields past the budget left out', () => {
    const long = 'k'.repeat(800_000);
    expect(boundedErrors({ [long]: ['is not a known field'] })).toEqual({
      [`${'k'.repeat(100)}…`]: ['is not a known field'],
    });
    const many = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`field_${i}_${'x'.repeat(90)}`, ['is invalid']]),
    );
    const kept = boundedErrors(many);
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(RESULT_ERRORS_CHARS);
    expect(Object.keys(kept)[0]).toBe(Object.keys(many)[0]);
    const small = { first_name: ["can't be blank"], birthday: ['is invalid'] };
    expect(boundedErrors(small)).toEqual(small);
  });

  it('counts add up to rows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('created', 'updated', 'unchanged', 'skipped', 'failed' as const)),
        (results) => {
          const c = addCounts(
            zeroCounts(),
            results.map((result) => ({ result })),
          );
          expect(c.rows).toBe(results.length);
          expect(c.created + c.updated + c.unchanged + c.skipped + c.failed).toBe(c.rows);
        },
      ),
    );
  });

  it('an upload not made within 24 hours reads as failed (upload_expired)', () => {
    const job = { status: 'awaiting_upload', createdAt: '2026-01-01T00:00:00.000Z', failureReason: null } as ImportJob;
    const at = Date.parse(job.createdAt);
    expect(effectiveStatus(job, at + 24 * 3600_000).status).toBe('awaiting_upload');
    expect(effectiveStatus(job, at + 24 * 3600_000 + 1)).toEqual({ status: 'failed', failureReason: 'upload_expired' });
  });
});

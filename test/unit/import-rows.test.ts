import fc from 'fast-check';
import { ImportFileError, convertCell, readImportRows, separatorOf, type CellKind } from '../../src/domain/import-rows';
import { addCounts, effectiveStatus, isExternalId, zeroCounts, type ImportJob } from '../../src/domain/imports';
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

  it('refuses a line that is not a JSON object', async () => {
    expect(await failure('{"a":1}\n[1]\n', 'jsonl')).toBe('malformed_file');
    expect(await failure('{"a":1}\n{"a":\n', 'jsonl')).toBe('malformed_file');
    expect(await failure('"x"\n', 'jsonl')).toBe('malformed_file');
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

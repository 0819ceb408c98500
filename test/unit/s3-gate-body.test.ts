import fc from 'fast-check';
import { FormReader, partHead, UploadSlots } from '../../scripts/lib/s3-gate-body';

/** A form as a browser encodes it (fields, then the file), as Response does. */
async function encoded(fields: [string, string][], file: Uint8Array): Promise<{ bytes: Buffer; boundary: string }> {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  form.append('file', new Blob([file], { type: 'text/plain' }), 'f.txt');
  const response = new Response(form);
  const boundary = /boundary=(.+)$/.exec(response.headers.get('content-type')!)![1]!;
  return { bytes: Buffer.from(await response.arrayBuffer()), boundary };
}

async function* chunked(bytes: Buffer, cuts: number[]): AsyncIterable<Buffer> {
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
  yield bytes.subarray(at);
}

/** Every part of a form read back: the fields whole, the file piped. */
async function readBack(chunks: AsyncIterable<Buffer>, boundary: string) {
  const reader = new FormReader(chunks, boundary);
  const fields: [string, string][] = [];
  for (;;) {
    const head = await reader.next(1 << 20);
    if (typeof head === 'string') return { fields, end: head };
    if (head.filename !== undefined) {
      const parts: Buffer[] = [];
      const piped = await reader.pipe(1 << 20, async (chunk) => void parts.push(Buffer.from(chunk)));
      return { fields, file: Buffer.concat(parts), head, piped };
    }
    const value = await reader.content(1 << 20);
    if (typeof value === 'string') return { fields, end: value };
    fields.push([head.name, value.toString('utf8')]);
  }
}

test('a form reads back the same however its bytes arrive in chunks', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.stringMatching(/^[a-zA-Z-]{1,12}$/), fc.string({ maxLength: 40 })), { maxLength: 4 }),
      // Bytes that look like a delimiter's start, CRLFs and dashes, in the file.
      fc.array(fc.constantFrom(13, 10, 45, 120), { maxLength: 200 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      async (fields, fileBytes, cuts) => {
        const file = Uint8Array.from(fileBytes);
        const { bytes, boundary } = await encoded(fields, file);
        const read = await readBack(chunked(bytes, cuts), boundary);
        expect(read.fields).toEqual(fields.map(([n, v]) => [n, v.replace(/\r(?!\n)|(?<!\r)\n/g, '\r\n')]));
        expect(read.head).toEqual({ name: 'file', filename: 'f.txt', contentType: 'text/plain' });
        expect(read.piped).toBe('done');
        expect(read.file).toEqual(Buffer.from(file));
      },
    ),
    { numRuns: 150 },
  );
});

test('a cut-off form is malformed; fields over the limit are too long; a file over its limit stops there', async () => {
  const { bytes, boundary } = await encoded([['key', 'k']], Buffer.alloc(1000, 'x'));
  const cut = await readBack(chunked(bytes.subarray(0, bytes.length - 60), [7, 300]), boundary);
  expect(cut.piped).toBe('malformed');
  const long = new FormReader(chunked(bytes, []), boundary);
  expect(await long.next(1 << 20)).toMatchObject({ name: 'key' });
  expect(await long.content(0)).toBe('too-long');
  const reader = new FormReader(chunked(bytes, [500]), boundary);
  await reader.next(1 << 20);
  await reader.content(100);
  await reader.next(1 << 20);
  let piped = 0;
  expect(await reader.pipe(999, async (chunk) => void (piped += chunk.length))).toBe('too-long');
  expect(piped).toBeLessThanOrEqual(999);
  expect(await readBack(chunked(Buffer.from('no form here'), []), boundary)).toEqual({ fields: [], end: 'malformed' });
});

test('a part head is written as a browser writes it', () => {
  expect(partHead('a"b\r\n', 'f"', 'text/plain')).toBe(
    'Content-Disposition: form-data; name="a%22b%0D%0A"; filename="f%22"\r\nContent-Type: text/plain\r\n\r\n',
  );
});

test('upload slots: at most `max` at once, the next let in when one is given back (once)', async () => {
  const slots = new UploadSlots(2);
  const first = await slots.take();
  await slots.take();
  let third = false;
  const waiting = slots.take().then((give) => ((third = true), give));
  await new Promise((r) => setImmediate(r));
  expect(third).toBe(false);
  first();
  first();
  await waiting;
  expect(third).toBe(true);
  let fourth = false;
  void slots.take().then(() => (fourth = true));
  await new Promise((r) => setImmediate(r));
  expect(fourth).toBe(false);
});

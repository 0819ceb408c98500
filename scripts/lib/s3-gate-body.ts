/**
 * How the local S3 gate (scripts/lib/s3-gate.ts) reads a body it has already
 * let in: a chunk at a time, into a private file that s3rver then reads whole
 * (s3rver writes an object in place as its body arrives, so a body cut short
 * or refused half-way must never reach it). What stays in memory is a chunk,
 * or one small form field: never a body.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';

/** At most `max` bodies read at once; the others wait unread (TCP holds their bytes back at the client). */
export class UploadSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /** Waits for a slot; the answer gives it back (once, however often it is called). */
  async take(): Promise<() => void> {
    if (this.active < this.max) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    };
  }
}

/** A body written to a file mode 600 in the gate's private folder: removed by `remove`. */
export interface Spool {
  readonly path: string;
  size: number;
  /** Adds a chunk (waits while the disk is behind: one chunk in memory at a time). */
  write(chunk: Buffer): Promise<void>;
  /** All written: the body's SHA-256 (hex) if it was asked for. */
  close(): Promise<string | undefined>;
  remove(): void;
}

export function spoolIn(directory: string, hashed: boolean): Spool {
  const path = join(directory, `body-${randomBytes(8).toString('hex')}`);
  const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const failed = once(file, 'error').then(([error]) => Promise.reject(error as Error));
  failed.catch(() => undefined);
  const hash = hashed ? createHash('sha256') : undefined;
  const spool: Spool = {
    path,
    size: 0,
    write: async (chunk) => {
      spool.size += chunk.length;
      hash?.update(chunk);
      if (!file.write(chunk)) await Promise.race([once(file, 'drain'), failed]);
    },
    close: async () => {
      await Promise.race([new Promise<void>((resolve) => file.end(resolve)), failed]);
      return hash?.digest('hex');
    },
    remove: () => {
      file.destroy();
      rmSync(path, { force: true });
    },
  };
  return spool;
}

/** Bytes from a chunk source, consumed up to markers. */
class ByteReader {
  private buffered: Buffer;
  private readonly source: AsyncIterator<Buffer>;

  constructor(chunks: AsyncIterable<Buffer>, start: Buffer) {
    this.source = chunks[Symbol.asyncIterator]();
    this.buffered = start;
  }

  private async fill(): Promise<boolean> {
    const next = await this.source.next();
    if (next.done) return false;
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, next.value]) : next.value;
    return true;
  }

  /** The bytes before `marker` (at most `limit`), consumed with it. */
  async until(marker: Buffer, limit: number): Promise<Buffer | 'too-long' | 'end'> {
    let from = 0;
    for (;;) {
      const at = this.buffered.indexOf(marker, from);
      if (at > limit || (at < 0 && this.buffered.length > limit + marker.length)) return 'too-long';
      if (at >= 0) {
        const before = this.buffered.subarray(0, at);
        this.buffered = this.buffered.subarray(at + marker.length);
        return before;
      }
      from = Math.max(0, this.buffered.length - marker.length + 1);
      if (!(await this.fill())) return 'end';
    }
  }

  /** The bytes before `marker` handed to `sink` a chunk at a time (at most `limit` of them), consumed with it. */
  async pipeUntil(
    marker: Buffer,
    limit: number,
    sink: (chunk: Buffer) => Promise<void>,
  ): Promise<'too-long' | 'end' | 'done'> {
    let size = 0;
    for (;;) {
      const at = this.buffered.indexOf(marker);
      // Short of a marker, all but its length - 1 last bytes are surely content.
      const content = at >= 0 ? at : Math.max(0, this.buffered.length - marker.length + 1);
      size += content;
      if (size > limit) return 'too-long';
      if (content) await sink(this.buffered.subarray(0, content));
      if (at >= 0) {
        this.buffered = this.buffered.subarray(at + marker.length);
        return 'done';
      }
      this.buffered = Buffer.from(this.buffered.subarray(content));
      if (!(await this.fill())) return 'end';
    }
  }

  /** The next `n` bytes, consumed. */
  async take(n: number): Promise<Buffer | 'end'> {
    while (this.buffered.length < n) if (!(await this.fill())) return 'end';
    const taken = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return taken;
  }
}

/** One part's Content-Disposition name and filename, and its Content-Type. */
export interface PartHead {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

function parseHead(block: Buffer): PartHead | undefined {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of block.toString('utf8').split('\r\n')) {
    const colon = line.indexOf(':');
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-type') contentType = value;
    if (header !== 'content-disposition') continue;
    if (!/^form-data\s*(;|$)/i.test(value)) return undefined;
    name = /;\s*name="([^"]*)"/i.exec(value)?.[1];
    filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1];
  }
  return name === undefined ? undefined : { name, filename, contentType };
}

/**
 * A multipart/form-data body read part by part as it arrives (RFC 7578): a
 * part's head, then its content whole (a field, up to a limit) or piped on
 * (the file). Everything is checked for shape; a body that is not well formed
 * answers 'malformed'.
 */
export class FormReader {
  private readonly reader: ByteReader;
  private readonly delimiter: Buffer;
  private started = false;

  /** `boundary` from the body's Content-Type. */
  constructor(chunks: AsyncIterable<Buffer>, boundary: string) {
    // The first delimiter follows no line break: one is put before the body, so that every delimiter reads alike.
    this.reader = new ByteReader(chunks, Buffer.from(CRLF));
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** The next part's head; 'last' after the closing delimiter. At most `limit` bytes read. */
  async next(limit: number): Promise<PartHead | 'last' | 'malformed' | 'too-long'> {
    if (!this.started) {
      this.started = true;
      const preamble = await this.reader.until(this.delimiter, limit);
      if (typeof preamble === 'string') return preamble === 'end' ? 'malformed' : preamble;
    }
    const after = await this.reader.take(2);
    if (after === 'end') return 'malformed';
    if (after.toString('latin1') === '--') return 'last';
    if (!after.equals(CRLF)) return 'malformed';
    const block = await this.reader.until(HEADERS_END, limit);
    if (block === 'end') return 'malformed';
    if (block === 'too-long') return block;
    return parseHead(block) ?? 'malformed';
  }

  /** The current part's content, whole, up to `limit` bytes. */
  async content(limit: number): Promise<Buffer | 'malformed' | 'too-long'> {
    const content = await this.reader.until(this.delimiter, limit);
    return content === 'end' ? 'malformed' : content;
  }

  /** The current part's content, a chunk at a time, to `sink`: at most `limit` bytes. */
  async pipe(limit: number, sink: (chunk: Buffer) => Promise<void>): Promise<'malformed' | 'too-long' | 'done'> {
    const ended = await this.reader.pipeUntil(this.delimiter, limit, sink);
    return ended === 'end' ? 'malformed' : ended;
  }
}

/** A form-data part's head as a browser writes it (`"`, CR and LF in names percent-escaped). */
export function partHead(name: string, filename?: string, contentType?: string): string {
  const escape = (s: string): string => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return (
    `Content-Disposition: form-data; name="${escape(name)}"` +
    (filename === undefined ? '' : `; filename="${escape(filename)}"`) +
    (contentType === undefined ? '' : `\r\nContent-Type: ${contentType.replace(/[\r\n]/g, '')}`) +
    '\r\n\r\n'
  );
}

/**
 * The local S3 endpoint (contract §19): a thin gate on 127.0.0.1 in front of
 * s3rver, which itself listens only on a Unix socket in a private folder.
 * s3rver accepts anonymous and wrongly signed requests and ignores POST
 * policies; the gate refuses them first, as S3 does, with S3's XML error:
 * - a browser POST upload whose policy is missing, unsigned, wrongly signed,
 *   expired or not met (scripts/lib/s3-request-auth.ts); what passes reaches
 *   s3rver re-encoded from the fields the gate checked, the file last;
 * - any other request (GET, HEAD, PUT, DELETE, listings, multipart calls)
 *   not signed with the local key pair, in the header or the query.
 * It also honours If-Match on GET and HEAD (in the header, or signed into a
 * presigned URL's query), which s3rver ignores: bytes whose ETag is not the
 * one asked for are never passed on (412 PreconditionFailed).
 * Nothing of a body is read before the request is let in (the signature from
 * its headers, a POST's policy from the fields before its file); a refused
 * body is left unread. An admitted one is read a chunk at a time into a
 * private spool file (scripts/lib/s3-gate-body.ts), at most
 * MAX_CONCURRENT_UPLOADS at once, checked as it arrives (its size, its
 * claimed SHA-256), and only then passed to s3rver whole.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import {
  type ClientRequest,
  createServer,
  request as upstreamRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { MAX_IMPORT_BYTES } from '../../src/domain/imports';
import { FormReader, partHead, spoolIn, UploadSlots, type PartHead, type Spool } from './s3-gate-body';
import {
  claimedPayloadHash,
  PAYLOAD_MISMATCH,
  verifyPostPolicy,
  verifySignedRequest,
  type Query,
  type S3Refusal,
  type Verifier,
} from './s3-request-auth';

/** What S3 reads of a POST form's fields before the file, at most. */
const MAX_FIELDS_BYTES = 20 * 1024;
/**
 * Larger than any form the API hands out, with its fields and part heads: an import's file (contract §22,
 * 100 MiB), an attachment (20 MiB), an export part.
 */
const MAX_BODY_BYTES = MAX_IMPORT_BYTES + MAX_FIELDS_BYTES + 64 * 1024;
/** Bodies read at once, at most (each a chunk in memory at a time, the rest on disk). */
const MAX_CONCURRENT_UPLOADS = 8;

interface GateState {
  readonly verifier: Verifier;
  readonly upstreamSocket: string;
  /** A private folder (0700) the bodies are spooled in. */
  readonly spoolDirectory: string;
  readonly slots: UploadSlots;
}

/** One request through the gate: what to undo once it is answered (its upload slot, its spooled body). */
interface Exchange {
  readonly gate: GateState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly cleanup: (() => void)[];
}

const xmlEscape = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

function sendRefusal(res: ServerResponse, method: string, refusal: S3Refusal): void {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${refusal.code}</Code><Message>${xmlEscape(refusal.message)}</Message>` +
    `<RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(refusal.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
  });
  res.end(method === 'HEAD' ? undefined : body);
}

/** The query decoded (`+` is a literal plus, as S3 reads it); undefined when an escape is malformed. */
function parseQuery(raw: string): Query | undefined {
  const query: Query = {};
  try {
    for (const part of raw.split('&')) {
      if (!part) continue;
      const eq = part.indexOf('=');
      const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      const value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
      const had = query[key];
      query[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    }
  } catch {
    return undefined;
  }
  return query;
}

const headerText = (headers: IncomingHttpHeaders): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));

/** What s3rver is sent as the body: nothing, or a file read as it goes (the spool), between two texts. */
interface Forward {
  readonly head?: string;
  readonly spool?: Spool;
  readonly tail?: string;
  readonly contentType?: string;
}

const lengthOf = (body: Forward): number =>
  Buffer.byteLength(body.head ?? '') + (body.spool?.size ?? 0) + Buffer.byteLength(body.tail ?? '');

async function sendBody(upstream: ClientRequest, body: Forward): Promise<void> {
  if (body.head) upstream.write(body.head);
  if (body.spool) await pipeline(createReadStream(body.spool.path), upstream, { end: false });
  upstream.end(body.tail);
}

const MALFORMED_FORM: S3Refusal = {
  status: 400,
  code: 'MalformedPOSTRequest',
  message: 'The body of your POST request is not well-formed multipart/form-data.',
};
const FIELDS_TOO_LARGE: S3Refusal = {
  status: 400,
  code: 'MaxPostPreDataLengthExceeded',
  message: 'Your POST request fields preceding the upload file were too large.',
};
const TOO_LARGE: S3Refusal = { status: 400, code: 'MaxMessageLengthExceeded', message: 'Your request was too big.' };

/** Refuses the form read so far as too large or malformed. */
const formRefusal = (ended: 'too-long' | 'malformed' | 'last'): S3Refusal =>
  ended === 'too-long' ? FIELDS_TOO_LARGE : MALFORMED_FORM;

/**
 * A browser POST upload (no signature of its own): the fields before the file
 * are read (at most 20 KiB, as S3 allows) and checked against the policy before
 * a byte of the file is; the file then goes to the spool in an upload slot, its
 * size checked as it arrives. What passes is re-encoded from the checked fields,
 * the file last, so s3rver reads exactly them.
 */
async function checkedForm(exchange: Exchange, rawPath: string, contentType: string): Promise<S3Refusal | Forward> {
  const bucket = /^\/([^/]+)\/?$/.exec(rawPath)?.[1];
  if (!bucket) return { status: 405, code: 'MethodNotAllowed', message: 'POST uploads go to the bucket.' };
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  if (!boundary) return MALFORMED_FORM;
  const form = new FormReader(exchange.req as AsyncIterable<Buffer>, boundary[1] ?? boundary[2]!);
  const fields = new Map<string, string>();
  const before: [string, string][] = [];
  let left = MAX_FIELDS_BYTES;
  for (;;) {
    const head = await form.next(left);
    if (typeof head === 'string') {
      if (head === 'last')
        return { status: 400, code: 'InvalidArgument', message: 'POST requires exactly one file upload per request.' };
      return formRefusal(head);
    }
    if (head.name.toLowerCase() === 'file') {
      if (head.filename === undefined)
        return { status: 400, code: 'InvalidArgument', message: 'POST requires exactly one file upload per request.' };
      return checkedFile(exchange, form, {
        fields,
        before,
        bucket: decodeURIComponent(bucket),
        file: head,
      });
    }
    const value = await form.content(left);
    if (typeof value === 'string') return formRefusal(value);
    left -= value.length;
    const lower = head.name.toLowerCase();
    if (head.filename !== undefined || fields.has(lower))
      return {
        status: 400,
        code: 'InvalidArgument',
        message: `The form field ${head.name.slice(0, 64)} must appear once, as text.`,
      };
    fields.set(lower, value.toString('utf8'));
    before.push([head.name, value.toString('utf8')]);
  }
}

async function checkedFile(
  { gate, cleanup }: Exchange,
  form: FormReader,
  {
    fields,
    before,
    bucket,
    file,
  }: { fields: ReadonlyMap<string, string>; before: readonly [string, string][]; bucket: string; file: PartHead },
): Promise<S3Refusal | Forward> {
  const policy = await verifyPostPolicy(gate.verifier, fields, bucket);
  if ('code' in policy) return policy;
  const spool = spoolIn(gate.spoolDirectory, false);
  cleanup.push(spool.remove);
  const limit = Math.min(policy.maxFileBytes, MAX_BODY_BYTES);
  const read = await form.pipe(limit, spool.write);
  if (read === 'malformed') return MALFORMED_FORM;
  await spool.close();
  const sizeRefusal = policy.sizeRefusal(read === 'too-long' ? limit + 1 : spool.size);
  if (sizeRefusal) return sizeRefusal;
  if (read === 'too-long') return TOO_LARGE;
  // Fields after the file are not sent on (S3 ignores them).
  const boundary = `----s3gate${randomBytes(12).toString('hex')}`;
  const head =
    before.map(([name, value]) => `--${boundary}\r\n${partHead(name)}${value}\r\n`).join('') +
    `--${boundary}\r\n${partHead('file', file.filename, file.contentType ?? 'application/octet-stream')}`;
  return { head, spool, tail: `\r\n--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A signed request's body, spooled in an upload slot and checked against the hash it claims, if any. */
async function spooledBody(
  { gate, req, cleanup }: Exchange,
  claimedHash: string | undefined,
): Promise<S3Refusal | Forward> {
  const spool = spoolIn(gate.spoolDirectory, claimedHash !== undefined);
  cleanup.push(spool.remove);
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (spool.size + chunk.length > MAX_BODY_BYTES) return TOO_LARGE;
    await spool.write(chunk);
  }
  const hash = await spool.close();
  return hash !== claimedHash ? PAYLOAD_MISMATCH : { spool };
}

/** The ETags an If-Match asks for (header, or a presigned URL's signed query parameter). */
function ifMatchOf(headers: Record<string, string | undefined>, query: Query): string[] | undefined {
  const key = Object.keys(query).find((k) => k.toLowerCase() === 'if-match');
  const raw = headers['if-match'] ?? (key === undefined ? undefined : [query[key]].flat().join(','));
  return raw === undefined ? undefined : raw.split(',').map((s) => s.trim());
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'expect'];

function forward(
  { gate, req, res }: Exchange,
  headers: Record<string, string | undefined>,
  query: Query,
  body: Forward,
): void {
  const method = req.method ?? 'GET';
  const upstreamSocket = gate.upstreamSocket;
  const sent: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.includes(k)) sent[k] = v;
  if (body.contentType) sent['content-type'] = body.contentType;
  sent['content-length'] = lengthOf(body);
  const wanted = method === 'GET' || method === 'HEAD' ? ifMatchOf(headers, query) : undefined;
  const copySourceEtag = method === 'PUT' ? headers['x-amz-copy-source-if-match'] : undefined;
  if (copySourceEtag !== undefined && headers['x-amz-copy-source']) {
    // s3rver ignores the copy's condition too: the source's current ETag, asked first.
    const source = `/${headers['x-amz-copy-source'].replace(/^\//, '')}`;
    const head = upstreamRequest(
      { socketPath: upstreamSocket, method: 'HEAD', path: source, headers: { host: headers.host } },
      (answer) => {
        answer.resume();
        if (answer.statusCode === 200 && answer.headers.etag !== copySourceEtag)
          return sendRefusal(res, method, {
            status: 412,
            code: 'PreconditionFailed',
            message: 'At least one of the pre-conditions you specified did not hold',
          });
        forward({ gate, req, res, cleanup: [] }, { ...headers, 'x-amz-copy-source-if-match': undefined }, query, body);
      },
    );
    head.on('error', () =>
      sendRefusal(res, method, { status: 500, code: 'InternalError', message: 'The local S3 server failed.' }),
    );
    head.end();
    return;
  }
  const upstream = upstreamRequest({ socketPath: upstreamSocket, method, path: req.url, headers: sent }, (answer) => {
    const status = answer.statusCode ?? 502;
    const etag = answer.headers.etag;
    if (wanted && status < 300 && !wanted.some((w) => w === '*' || w === etag)) {
      answer.destroy();
      sendRefusal(res, method, {
        status: 412,
        code: 'PreconditionFailed',
        message: 'At least one of the pre-conditions you specified did not hold',
      });
      return;
    }
    res.writeHead(status, answer.headers);
    answer.pipe(res);
  });
  const failed = (): void => {
    if (!res.headersSent)
      sendRefusal(res, method, { status: 500, code: 'InternalError', message: 'The local S3 server failed.' });
    else res.destroy();
  };
  upstream.on('error', failed);
  sendBody(upstream, body).catch(() => upstream.destroy());
}

/** Whether the request carries a body (its length said, or sent in chunks). */
const hasBody = (req: IncomingMessage): boolean =>
  Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/**
 * Everything S3 checks before it reads a body (the signature, or a POST's
 * policy against the fields before its file) is checked before the gate
 * reads it; only then does the body take an upload slot and go to the spool,
 * and from there to s3rver. A refused body is read on and dropped, never kept.
 */
async function handle(exchange: Exchange, expectsContinue: boolean): Promise<void> {
  const { gate, req, res } = exchange;
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const query = parseQuery(q < 0 ? '' : url.slice(q + 1));
  if (!query)
    return sendRefusal(res, method, { status: 400, code: 'InvalidURI', message: "Couldn't parse the specified URI." });
  const headers = headerText(req.headers);
  if (Number(headers['content-length'] ?? 0) > MAX_BODY_BYTES) return sendRefusal(res, method, TOO_LARGE);
  // A CORS preflight carries no data and no signature, on S3 too.
  if (method === 'OPTIONS') return forward(exchange, headers, query, {});
  const contentType = headers['content-type'] ?? '';
  const browserPost =
    method === 'POST' &&
    headers.authorization === undefined &&
    !Object.keys(query).some((k) => k.toLowerCase() === 'x-amz-algorithm') &&
    /^multipart\/form-data\s*;/i.test(contentType);
  const refusal = browserPost
    ? undefined
    : await verifySignedRequest(gate.verifier, { method, rawPath, query, headers });
  if (refusal) return sendRefusal(res, method, refusal);
  if (!hasBody(req)) return forward(exchange, headers, query, {});
  exchange.cleanup.push(await gate.slots.take());
  if (expectsContinue) res.writeContinue();
  const body = browserPost
    ? await checkedForm(exchange, rawPath, contentType)
    : await spooledBody(exchange, claimedPayloadHash(headers));
  if ('code' in body) return sendRefusal(res, method, body);
  forward(exchange, headers, query, body);
}

/** How long a connection whose request was answered before its body was read stays open, not read from. */
const UNREAD_LINGER_MS = 5000;

/**
 * A request answered before its body was read whole (refused, or too large): the rest of its body is never
 * read. The connection stops reading and ends once the answer is out (the client reads the answer, then the
 * end); it is closed for good after a while, whatever the client does. Node's server would close it as soon as
 * the answer is written (`destroySoon`, for an answer that says `connection: close`, on the same 'finish' just
 * before this), which is taken back first: closed with unread bytes, a socket sends a reset, which reaches a
 * client still sending its body as EPIPE or ECONNRESET, often before it has read the answer.
 */
function leaveUnread(req: IncomingMessage): void {
  const socket = req.socket;
  socket.removeListener('finish', socket.destroy);
  socket.pause();
  socket.end();
  setTimeout(() => socket.destroy(), UNREAD_LINGER_MS).unref();
}

/**
 * The gate's HTTP server (not yet listening): every request checked, then passed to s3rver's socket.
 * `spoolDirectory`: a private folder (0700) for the bodies on their way.
 */
export function createS3Gate(verifier: Verifier, upstreamSocket: string, spoolDirectory: string): Server {
  const gate: GateState = { verifier, upstreamSocket, spoolDirectory, slots: new UploadSlots(MAX_CONCURRENT_UPLOADS) };
  const serve = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    const exchange: Exchange = { gate, req, res, cleanup: [] };
    // The body is the gate's to read: once a request is read from, node no longer reads on (and drops) a body left
    // unread when the answer is out, which would read a refused upload whole (leaveUnread stops reading instead).
    req.read(0);
    res.once('close', () => exchange.cleanup.forEach((undo) => undo()));
    res.once('finish', () => {
      if (!req.complete) leaveUnread(req);
    });
    handle(exchange, expectsContinue).catch(() => {
      if (!res.headersSent)
        sendRefusal(res, req.method ?? 'GET', {
          status: 500,
          code: 'InternalError',
          message: 'The local S3 gate failed.',
        });
      else res.destroy();
    });
  };
  const server = createServer((req, res) => serve(req, res, false));
  // A client that waits for 100 Continue (the SDK does, for large bodies) sends its body only once it is let in.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => serve(req, res, true));
  return server;
}

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
 */
import { randomBytes } from 'node:crypto';
import {
  createServer,
  request as upstreamRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { verifyPostPolicy, verifySignedRequest, type Query, type S3Refusal, type Verifier } from './s3-request-auth';

/** Larger than any attachment form (20 MiB and its fields) and any export part. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

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

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

interface Forward {
  readonly body: Buffer;
  readonly contentType?: string;
}

/**
 * A browser POST upload (no signature of its own): its fields up to the file
 * checked against the policy, then re-encoded so s3rver reads exactly them.
 */
async function checkedForm(
  verifier: Verifier,
  rawPath: string,
  contentType: string,
  body: Buffer,
): Promise<S3Refusal | Forward> {
  const bucket = /^\/([^/]+)\/?$/.exec(rawPath)?.[1];
  if (!bucket) return { status: 405, code: 'MethodNotAllowed', message: 'POST uploads go to the bucket.' };
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return {
      status: 400,
      code: 'MalformedPOSTRequest',
      message: 'The body of your POST request is not well-formed multipart/form-data.',
    };
  }
  const entries = [...form.entries()];
  const at = entries.findIndex(([name]) => name.toLowerCase() === 'file');
  const file = at < 0 ? undefined : entries[at]![1];
  if (file === undefined || typeof file === 'string')
    return { status: 400, code: 'InvalidArgument', message: 'POST requires exactly one file upload per request.' };
  const before = entries.slice(0, at);
  const fields = new Map<string, string>();
  for (const [name, value] of before) {
    const lower = name.toLowerCase();
    if (typeof value !== 'string' || fields.has(lower))
      return {
        status: 400,
        code: 'InvalidArgument',
        message: `The form field ${name.slice(0, 64)} must appear once, as text.`,
      };
    fields.set(lower, value);
  }
  const refusal = await verifyPostPolicy(verifier, fields, decodeURIComponent(bucket), file.size);
  if (refusal) return refusal;
  const checked = new FormData();
  for (const [name, value] of before) checked.append(name, value);
  checked.append('file', file, file.name);
  const encoded = new Response(checked);
  return {
    body: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') ?? undefined,
  };
}

/** The ETags an If-Match asks for (header, or a presigned URL's signed query parameter). */
function ifMatchOf(headers: Record<string, string | undefined>, query: Query): string[] | undefined {
  const key = Object.keys(query).find((k) => k.toLowerCase() === 'if-match');
  const raw = headers['if-match'] ?? (key === undefined ? undefined : [query[key]].flat().join(','));
  return raw === undefined ? undefined : raw.split(',').map((s) => s.trim());
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'expect'];

function forward(
  upstreamSocket: string,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string | undefined>,
  query: Query,
  body: Forward,
): void {
  const method = req.method ?? 'GET';
  const sent: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.includes(k)) sent[k] = v;
  if (body.contentType) sent['content-type'] = body.contentType;
  sent['content-length'] = body.body.length;
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
        forward(upstreamSocket, req, res, { ...headers, 'x-amz-copy-source-if-match': undefined }, query, body);
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
  upstream.on('error', () => {
    if (!res.headersSent)
      sendRefusal(res, method, { status: 500, code: 'InternalError', message: 'The local S3 server failed.' });
    else res.destroy();
  });
  upstream.end(body.body);
}

async function handle(
  verifier: Verifier,
  upstreamSocket: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  const body = await readBody(req);
  if (!body)
    return sendRefusal(res, method, {
      status: 400,
      code: 'MaxMessageLengthExceeded',
      message: 'Your request was too big.',
    });
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const query = parseQuery(q < 0 ? '' : url.slice(q + 1));
  if (!query)
    return sendRefusal(res, method, { status: 400, code: 'InvalidURI', message: "Couldn't parse the specified URI." });
  const headers = headerText(req.headers);
  // A CORS preflight carries no data and no signature, on S3 too.
  if (method === 'OPTIONS') return forward(upstreamSocket, req, res, headers, query, { body });
  const contentType = headers['content-type'] ?? '';
  const browserPost =
    method === 'POST' &&
    headers.authorization === undefined &&
    !Object.keys(query).some((k) => k.toLowerCase() === 'x-amz-algorithm') &&
    /^multipart\/form-data\s*;/i.test(contentType);
  if (browserPost) {
    const checked = await checkedForm(verifier, rawPath, contentType, body);
    if ('code' in checked) return sendRefusal(res, method, checked);
    return forward(upstreamSocket, req, res, headers, query, checked);
  }
  const refusal = await verifySignedRequest(verifier, { method, rawPath, query, headers, body });
  if (refusal) return sendRefusal(res, method, refusal);
  forward(upstreamSocket, req, res, headers, query, { body });
}

/** The gate's HTTP server (not yet listening): every request checked, then passed to s3rver's socket. */
export function createS3Gate(verifier: Verifier, upstreamSocket: string): Server {
  return createServer((req, res) => {
    handle(verifier, upstreamSocket, req, res).catch(() => {
      if (!res.headersSent)
        sendRefusal(res, req.method ?? 'GET', {
          status: 500,
          code: 'InternalError',
          message: 'The local S3 gate failed.',
        });
      else res.destroy();
    });
  });
}

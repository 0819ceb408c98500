/**
 * The S3 requests of the API functions, without the S3 client: a presigned
 * GET and a browser POST policy (pure SigV4 computations) and DeleteObjects
 * (one signed POST), made with the SDK's own signer (@smithy/signature-v4)
 * and credential chain, which every function carries for DynamoDB anyway.
 * Without the client (~140 KB of a bundle) these functions stay small (docs/benchmarks.md
 * "Cold start and bundles"); the workers' reads, copies and multipart uploads
 * use the client (src/data/s3/client.ts).
 *
 * URLs: the local endpoint path-style (S3_ENDPOINT, its gate checks these
 * signatures: scripts/lib/s3-gate.ts); on AWS the bucket's virtual-hosted
 * endpoint in the function's region, `https://<bucket>.s3.<region>.amazonaws.com`.
 */
import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Hash } from '@smithy/core/serde';
import { getSigningKey, SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, HttpRequest } from '@smithy/types';
import { serviceUnavailable } from '../../domain/errors';
import { s3Endpoint } from '../config';

/** The key pair and region the local endpoint's gate verifies (scripts/lib/s3-local.ts). */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const LOCAL_S3_REGION = 'us-east-1';

const sha256 = Hash.bind(null, 'sha256');

interface Target {
  readonly signer: SignatureV4;
  readonly region: string;
  readonly credentials: AwsCredentialIdentityProvider;
  /** The request of `key` in `bucket` (path and host), before signing. */
  readonly request: (bucket: string, key: string) => HttpRequest;
}

/** A key as one S3 URI path: every segment percent-encoded (RFC 3986 unreserved characters kept). */
const encodedKey = (key: string): string =>
  key
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');

function targetOf(endpoint: string | undefined): Target {
  const region = endpoint ? LOCAL_S3_REGION : (process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? '');
  if (!region) throw new Error('s3-requests: AWS_REGION is not set');
  const credentials: AwsCredentialIdentityProvider = endpoint
    ? () => Promise.resolve(LOCAL_S3_CREDENTIALS)
    : defaultProvider();
  const local = endpoint ? new URL(endpoint) : undefined;
  const request = (bucket: string, key: string): HttpRequest => {
    const hostname = local ? local.hostname : `${bucket}.s3.${region}.amazonaws.com`;
    const port = local?.port ? Number(local.port) : undefined;
    const base = local ? `${local.pathname.replace(/\/$/, '')}/${bucket}` : '';
    return {
      method: 'GET',
      protocol: local ? local.protocol : 'https:',
      hostname,
      ...(port !== undefined ? { port } : {}),
      path: `${base}/${encodedKey(key)}`,
      query: {},
      headers: { host: port !== undefined ? `${hostname}:${port}` : hostname },
    };
  };
  // S3 signs the path as sent (no second escaping) and presigned requests carry no payload hash.
  const signer = new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  return { signer, region, credentials, request };
}

let target: { endpoint: string | undefined; value: Target } | undefined;

/** One signer per process and endpoint (S3_ENDPOINT is read on use: tests change it). */
function current(): Target {
  const endpoint = s3Endpoint();
  if (target?.endpoint !== endpoint || !target) target = { endpoint, value: targetOf(endpoint) };
  return target.value;
}

const urlOf = (r: HttpRequest): string => {
  const query = Object.entries(r.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${r.protocol}//${r.headers.host}${r.path}${query ? `?${query}` : ''}`;
};

/**
 * A presigned GET of one object, valid `expiresSeconds`. `ifMatch` pins it to
 * the object with that ETag: the condition is signed into the URL's query, so
 * the URL alone never serves other bytes (S3 answers 412 once the object
 * changed; the local gate likewise). The response's type and disposition are
 * fixed when given.
 */
export async function presignGet(
  bucket: string,
  key: string,
  options: { expiresSeconds: number; ifMatch?: string; contentType?: string; contentDisposition?: string },
): Promise<string> {
  const { signer, request } = current();
  const r = request(bucket, key);
  r.query = {
    ...(options.contentDisposition ? { 'response-content-disposition': options.contentDisposition } : {}),
    ...(options.contentType ? { 'response-content-type': options.contentType } : {}),
    ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}),
  };
  r.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  // As the SDK's presigner: the payload hash goes into the signed query (X-Amz-Content-Sha256).
  return urlOf(await signer.presign(r, { expiresIn: options.expiresSeconds }));
}

export interface PresignedPost {
  readonly url: string;
  readonly fields: Record<string, string>;
}

const iso8601 = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A browser POST upload whose policy admits exactly one object: this key,
 * between `minBytes` and `maxBytes` bytes, this Content-Type, for
 * `expiresSeconds` (S3 refuses anything else at upload; so does the local
 * gate). The policy and its fields are those of @aws-sdk/s3-presigned-post.
 */
export async function presignPost(
  bucket: string,
  key: string,
  limits: { minBytes: number; maxBytes: number; contentType: string; expiresSeconds: number },
): Promise<PresignedPost> {
  const { region, credentials, request } = current();
  const now = new Date();
  const signingDate = iso8601(now).replace(/[-:]/g, '');
  const identity = await credentials();
  const fields: Record<string, string> = {
    'Content-Type': limits.contentType,
    bucket,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${identity.accessKeyId}/${signingDate.slice(0, 8)}/${region}/s3/aws4_request`,
    'X-Amz-Date': signingDate,
    ...(identity.sessionToken ? { 'X-Amz-Security-Token': identity.sessionToken } : {}),
  };
  const policy = Buffer.from(
    JSON.stringify({
      expiration: iso8601(new Date(now.getTime() + limits.expiresSeconds * 1000)),
      conditions: [
        ['content-length-range', limits.minBytes, limits.maxBytes],
        ['eq', '$Content-Type', limits.contentType],
        ...Object.entries(fields).map(([k, v]) => ({ [k]: v })),
        { key },
      ],
    }),
  ).toString('base64');
  // Signed with the key of the identity named in X-Amz-Credential (a refreshed one may differ).
  const signingKey = await getSigningKey(sha256, identity, signingDate.slice(0, 8), region, 's3');
  const signature = createHmac('sha256', signingKey).update(policy).digest('hex');
  const bucketUrl = request(bucket, '');
  return {
    url: `${bucketUrl.protocol}//${bucketUrl.headers.host}${bucketUrl.path.replace(/\/$/, '')}`,
    fields: { ...fields, key, Policy: policy, 'X-Amz-Signature': signature },
  };
}

const xmlText = (s: string): string =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** Tries of one DeleteObjects call answered 5xx (50 ms, then 200 ms apart). */
const DELETE_ATTEMPTS = 3;

/**
 * Deletes objects (missing ones are fine), 1000 per DeleteObjects call; any key
 * S3 reports as not deleted, or an answer other than 200, fails the
 * operation. `signal` bounds each call (an API request's deadline).
 */
export async function deleteKeys(
  bucket: string,
  keys: readonly string[],
  signal: () => { abortSignal?: AbortSignal } = () => ({}),
): Promise<void> {
  const { signer, request } = current();
  for (let i = 0; i < keys.length; i += 1000) {
    const objects = keys
      .slice(i, i + 1000)
      .map((k) => `<Object><Key>${xmlText(k)}</Key></Object>`)
      .join('');
    const body = `<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>${objects}</Delete>`;
    const r = request(bucket, '');
    r.method = 'POST';
    r.query = { delete: '' };
    r.body = body;
    Object.assign(r.headers, {
      'content-type': 'application/xml',
      'content-length': String(Buffer.byteLength(body)),
      // S3 requires an integrity check of a DeleteObjects body.
      'content-md5': createHash('md5').update(body).digest('base64'),
      'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
    });
    const signed = await signer.sign(r);
    // S3 answers a passing 500/503 (InternalError, SlowDown) to be retried; the local S3 server answers 500 when
    // two deletes of one key race. Two more tries, then 503 for the caller: nothing it asked for is done.
    let answer: Response | undefined;
    for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((done) => setTimeout(done, 50 * 4 ** (attempt - 1)));
      answer = await fetch(urlOf(signed), {
        method: 'POST',
        headers: signed.headers,
        body,
        signal: signal().abortSignal ?? null,
      });
      if (answer.status < 500) break;
      await answer.text();
    }
    if (!answer || answer.status >= 500) throw serviceUnavailable();
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`S3 DeleteObjects answered ${answer.status}`);
    const kept = text.match(/<Error>[\s\S]*?<Code>([^<]*)<\/Code>/);
    if (kept) throw new Error(`S3 kept object(s): ${kept[1]}`);
  }
}

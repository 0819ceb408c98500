/**
 * What the local S3 gate (scripts/lib/s3-gate.ts) checks before s3rver sees a
 * request (contract §19): the request's SigV4 signature (Authorization header
 * or presigned query), or a browser POST's policy, its signature and every
 * condition. Signatures are recomputed with the AWS SDK's own signer
 * (@smithy/signature-v4, the one the SDK signs with) and compared in constant
 * time; nothing here derives a key or an HMAC by hand.
 */
import { timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/** A refusal in S3's terms: the XML error's code and message, and its status. */
export interface S3Refusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const refusal = (status: number, code: string, message: string): S3Refusal => ({ status, code, message });
const denied = (message: string): S3Refusal => refusal(403, 'AccessDenied', message);
const MISMATCH = refusal(
  403,
  'SignatureDoesNotMatch',
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
);

/** S3 refuses a signed request dated more than 15 minutes from its clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
/** A presigned URL lives at most 7 days (SigV4). */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

export type Query = Record<string, string | string[]>;

export interface IncomingS3Request {
  readonly method: string;
  /** The path as sent, still percent-encoded (S3 signs it so: the SDK's signer does not escape it again). */
  readonly rawPath: string;
  /** The decoded query. */
  readonly query: Query;
  /** Lower-case names. */
  readonly headers: Record<string, string | undefined>;
}

export interface Verifier {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The SDK's SHA-256 (an S3 client's `config.sha256`). */
  readonly sha256: ConstructorParameters<typeof SignatureV4>[0]['sha256'];
  readonly now: () => number;
}

const signerFor = (v: Verifier, region: string): SignatureV4 =>
  new SignatureV4({
    credentials: { accessKeyId: v.accessKeyId, secretAccessKey: v.secretAccessKey },
    region,
    service: 's3',
    sha256: v.sha256,
    // As the S3 client signs: the key is escaped once, in the path it sent; no checksum header added.
    uriEscapePath: false,
    applyChecksum: false,
  });

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** `YYYYMMDDTHHMMSSZ` as a date, or undefined. */
function amzDate(value: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!m) return undefined;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

interface Scope {
  readonly region: string;
  readonly date: Date;
}

/** The credential `AKID/YYYYMMDD/region/s3/aws4_request` of this server's key pair, dated `dateText`. */
function scopeOf(v: Verifier, credential: string | undefined, dateText: string | undefined): Scope | S3Refusal {
  const parts = (credential ?? '').split('/');
  if (parts.length !== 5 || parts[3] !== 's3' || parts[4] !== 'aws4_request')
    return refusal(400, 'AuthorizationQueryParametersError', 'The credential is malformed.');
  if (!sameText(parts[0]!, v.accessKeyId))
    return refusal(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  const date = amzDate(dateText);
  if (!date || dateText!.slice(0, 8) !== parts[1])
    return denied('AWS authentication requires a valid X-Amz-Date matching the credential scope.');
  return { region: parts[2]!, date };
}

const isRefusal = (x: unknown): x is S3Refusal => typeof (x as S3Refusal)?.code === 'string';

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The query entry named `name` in any letter case. */
const queryKey = (query: Query, name: string): string | undefined =>
  Object.keys(query).find((k) => k.toLowerCase() === name.toLowerCase());

function signedHeadersOf(request: IncomingS3Request, list: string): Record<string, string> | S3Refusal {
  const names = list.split(';');
  if (!names.includes('host')) return denied('Host must be a signed header.');
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    // A header the signature covers but the request lacks: the signature cannot match.
    if (value === undefined) return MISMATCH;
    headers[name] = value;
  }
  return headers;
}

const requestFor = (request: IncomingS3Request, query: Query, headers: Record<string, string>) => ({
  method: request.method,
  protocol: 'http:',
  hostname: (request.headers.host ?? '').replace(/:\d+$/, ''),
  path: request.rawPath,
  query,
  headers,
});

/** A request signed in its Authorization header (what the SDK sends). */
async function verifyHeaderSignature(v: Verifier, request: IncomingS3Request): Promise<S3Refusal | undefined> {
  const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
    request.headers.authorization ?? '',
  );
  if (!m) return refusal(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
  const [, credential, signedList, signature] = m;
  const dateText = request.headers['x-amz-date'];
  const scope = scopeOf(v, credential, dateText);
  if (isRefusal(scope)) return scope;
  if (Math.abs(scope.date.getTime() - v.now()) > MAX_SKEW_MS)
    return refusal(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  if (!request.headers['x-amz-content-sha256'])
    return refusal(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  const headers = signedHeadersOf(request, signedList!);
  if (isRefusal(headers)) return headers;
  const signed = await signerFor(v, scope.region).sign(requestFor(request, request.query, headers), {
    signingDate: scope.date,
    signableHeaders: new Set(Object.keys(headers)),
  });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1] ?? '';
  const expectedList = /SignedHeaders=([^,\s]+)/.exec(String(signed.headers.authorization))?.[1];
  return expectedList === signedList && sameText(expected, signature!) ? undefined : MISMATCH;
}

/** The SigV4 query parameters a presigned URL carries besides the request's own. */
const AUTH_PARAMS = [
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-signedheaders',
  'x-amz-signature',
  'x-amz-security-token',
];

/** A presigned URL (query parameters X-Amz-*). */
async function verifyQuerySignature(v: Verifier, request: IncomingS3Request): Promise<S3Refusal | undefined> {
  const get = (name: string): string | undefined => {
    const key = queryKey(request.query, name);
    return key === undefined ? undefined : first(request.query[key]);
  };
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
    return refusal(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const dateText = get('X-Amz-Date');
  const scope = scopeOf(v, get('X-Amz-Credential'), dateText);
  if (isRefusal(scope)) return scope;
  const expiresIn = Number(get('X-Amz-Expires'));
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_SECONDS)
    return refusal(
      400,
      'AuthorizationQueryParametersError',
      'X-Amz-Expires must be a whole number of seconds, at most 604800.',
    );
  const now = v.now();
  if (scope.date.getTime() - now > MAX_SKEW_MS) return denied('Request is not valid yet');
  if (scope.date.getTime() + expiresIn * 1000 < now) return denied('Request has expired');
  const signedList = get('X-Amz-SignedHeaders') ?? '';
  const headers = signedHeadersOf(request, signedList);
  if (isRefusal(headers)) return headers;
  // The request's own parameters, X-Amz-* ones included, as the URL has them; the signer adds its own.
  const query: Query = {};
  for (const [k, value] of Object.entries(request.query)) if (!AUTH_PARAMS.includes(k.toLowerCase())) query[k] = value;
  // The payload hash: the URL's X-Amz-Content-Sha256 (UNSIGNED-PAYLOAD when absent, as S3 takes it).
  // Given to the signer as a header it hoists back into the query, under the URL's own spelling.
  const hashKey = queryKey(query, 'x-amz-content-sha256');
  const hashHeader: Record<string, string> = hashKey
    ? { [hashKey]: first(query[hashKey]) ?? '' }
    : { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  if (hashKey) delete query[hashKey];
  const signed = await signerFor(v, scope.region).presign(requestFor(request, query, { ...headers, ...hashHeader }), {
    signingDate: scope.date,
    expiresIn,
    signableHeaders: new Set(Object.keys(headers)),
    unhoistableHeaders: new Set([...Object.keys(headers), ...(hashKey ? [] : ['x-amz-content-sha256'])]),
    unsignableHeaders: new Set(hashKey ? [] : ['x-amz-content-sha256']),
  });
  const expected = String(signed.query?.['X-Amz-Signature'] ?? '');
  return signed.query?.['X-Amz-SignedHeaders'] === signedList && sameText(expected, get('X-Amz-Signature') ?? '')
    ? undefined
    : MISMATCH;
}

/** The body's SHA-256 a header-signed request claims (hex), if it claims one: the body is checked against it. */
export const claimedPayloadHash = (headers: Record<string, string | undefined>): string | undefined => {
  const claimed = headers.authorization === undefined ? undefined : headers['x-amz-content-sha256'];
  return claimed !== undefined && /^[0-9a-f]{64}$/.test(claimed) ? claimed : undefined;
};

export const PAYLOAD_MISMATCH = refusal(
  400,
  'XAmzContentSHA256Mismatch',
  "The provided 'x-amz-content-sha256' header does not match what was computed.",
);

/**
 * A request authenticated in the header or the query (S3 allows one of the
 * two), or a refusal, from its method, path, query and headers: the signature
 * covers the body's claimed hash, not the body, so this needs none of it;
 * the body is checked against that hash as it is read (claimedPayloadHash). A
 * request that is neither is refused; an anonymous one is refused: the local bucket is
 * private, as the deployed one is.
 */
export async function verifySignedRequest(v: Verifier, request: IncomingS3Request): Promise<S3Refusal | undefined> {
  const inHeader = request.headers.authorization !== undefined;
  const inQuery = queryKey(request.query, 'X-Amz-Algorithm') !== undefined;
  if (inHeader && inQuery)
    return refusal(
      400,
      'InvalidArgument',
      'Only one auth mechanism allowed: the X-Amz-Algorithm query parameter or the Authorization header.',
    );
  if (inHeader) return verifyHeaderSignature(v, request);
  if (inQuery) return verifyQuerySignature(v, request);
  return denied('Access Denied');
}

// ---------------------------------------------------------------- browser POST (policy)

/** One form field as the client sent it. */
export interface FormField {
  readonly name: string;
  readonly value: string;
}

/** Fields S3 exempts from the policy's conditions. */
const EXEMPT = (name: string): boolean =>
  ['policy', 'x-amz-signature', 'file'].includes(name) || name.startsWith('x-ignore-');

type Condition = Record<string, unknown> | unknown[];

/**
 * Why a POST policy does not admit this form (S3's "Invalid according to
 * Policy" reasons), or undefined when it does: every condition holds for the
 * form's fields (names in any letter case; `$bucket` is the URL's bucket),
 * the file's size is inside every `content-length-range` (not checked while
 * the size is undefined: the fields are checked before the file is read),
 * and every field but the exempt ones is named by a condition.
 */
export function policyProblem(
  conditions: readonly Condition[],
  fields: ReadonlyMap<string, string>,
  bucket: string,
  fileSize: number | undefined,
): string | undefined {
  const valueOf = (name: string): string | undefined => (name === 'bucket' ? bucket : fields.get(name));
  const named = fields.get('bucket');
  if (named !== undefined && named !== bucket) return `The form names the bucket ${named.slice(0, 64)}, not ${bucket}`;
  const covered = new Set<string>();
  for (const condition of conditions) {
    const shown = JSON.stringify(condition);
    const failed = `Policy Condition failed: ${shown}`;
    if (Array.isArray(condition)) {
      const [op, a, b] = condition;
      if (op === 'content-length-range') {
        if (typeof a !== 'number' || typeof b !== 'number') return `Invalid condition: ${shown}`;
        if (fileSize !== undefined && (fileSize < a || fileSize > b)) return failed;
        continue;
      }
      if ((op !== 'eq' && op !== 'starts-with') || typeof a !== 'string' || !a.startsWith('$') || typeof b !== 'string')
        return `Invalid condition: ${shown}`;
      const name = a.slice(1).toLowerCase();
      covered.add(name);
      const value = valueOf(name);
      if (value === undefined || (op === 'eq' ? value !== b : !value.startsWith(b))) return failed;
      continue;
    }
    if (condition === null || typeof condition !== 'object') return `Invalid condition: ${shown}`;
    const entries = Object.entries(condition);
    if (entries.length !== 1 || typeof entries[0]![1] !== 'string') return `Invalid condition: ${shown}`;
    const name = entries[0]![0].toLowerCase();
    covered.add(name);
    if (valueOf(name) !== entries[0]![1]) return failed;
  }
  const extra = [...fields.keys()].filter((name) => !EXEMPT(name) && !covered.has(name));
  return extra.length ? `Extra input fields: ${extra.join(', ')}` : undefined;
}

/** A POST policy that admits a form's fields: what it says of the file's size, checked once the file is read. */
export interface AdmittedPost {
  /** The largest file every `content-length-range` admits. */
  readonly maxFileBytes: number;
  readonly sizeRefusal: (fileSize: number) => S3Refusal | undefined;
}

/**
 * A browser POST upload, before its file is read: the policy must be there,
 * signed with this server's key, unexpired, and admit the form's fields
 * (policyProblem). `fields`: every field before the file, names lower-cased
 * (duplicates are refused by the caller).
 */
export async function verifyPostPolicy(
  v: Verifier,
  fields: ReadonlyMap<string, string>,
  bucket: string,
): Promise<S3Refusal | AdmittedPost> {
  const policy = fields.get('policy');
  if (policy === undefined) return denied('Access Denied: the form has no policy');
  if (!fields.has('key')) return refusal(400, 'InvalidArgument', "Bucket POST must contain a field named 'key'.");
  if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256')
    return denied("Bucket POST must contain the field 'x-amz-algorithm' with the value AWS4-HMAC-SHA256.");
  const signature = fields.get('x-amz-signature');
  if (signature === undefined) return denied("Bucket POST must contain a field named 'x-amz-signature'.");
  const scope = scopeOf(v, fields.get('x-amz-credential'), fields.get('x-amz-date'));
  if (isRefusal(scope)) return scope;
  const expected = await signerFor(v, scope.region).sign(policy, { signingDate: scope.date });
  if (!sameText(expected, signature)) return MISMATCH;
  let document: { expiration?: unknown; conditions?: unknown };
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as typeof document;
  } catch {
    return refusal(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  const expiration = typeof document.expiration === 'string' ? Date.parse(document.expiration) : NaN;
  if (Number.isNaN(expiration) || !Array.isArray(document.conditions))
    return refusal(400, 'InvalidPolicyDocument', 'Invalid Policy: it needs an expiration and conditions.');
  if (expiration < v.now()) return denied('Invalid according to Policy: Policy expired.');
  const conditions = document.conditions as Condition[];
  const problemFor = (fileSize: number | undefined): S3Refusal | undefined => {
    const problem = policyProblem(conditions, fields, bucket, fileSize);
    return problem ? denied(`Invalid according to Policy: ${problem}`) : undefined;
  };
  const fieldsRefusal = problemFor(undefined);
  if (fieldsRefusal) return fieldsRefusal;
  const ranges = conditions.filter((c): c is unknown[] => Array.isArray(c) && c[0] === 'content-length-range');
  return {
    maxFileBytes: Math.min(Infinity, ...ranges.map((c) => Number(c[2]))),
    sizeRefusal: problemFor,
  };
}

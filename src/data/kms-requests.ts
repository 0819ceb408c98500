/**
 * KMS Encrypt and Decrypt (src/data/secret-box.ts) without the KMS client: one signed POST of KMS's JSON protocol
 * each, made with the SDK's own signer (@smithy/signature-v4) and credential chain, which every function carries
 * for DynamoDB anyway, as src/data/s3-requests.ts does for S3. The client was 28 KB of
 * create-webhook-subscription's bundle and 3 % of a bare DocumentClient's init (README "Cold start and bundles").
 *
 * Endpoint: `https://kms.<region>.amazonaws.com`, or AWS_ENDPOINT_URL_KMS (the SDK's own override; tests).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { awsRegion } from './config';

/** Tries of one call, as the client's `maxAttempts: 3`: a 5xx, a throttling answer or a failed connection. */
const ATTEMPTS = 3;

/** A KMS error answer: `type` is KMS's exception name (`AccessDeniedException`, `InvalidCiphertextException`...). */
export class KmsError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(`KMS ${type} (${status}): ${message}`);
    this.name = 'KmsError';
  }
}

let target: { key: string; url: URL; signer: SignatureV4 } | undefined;

/** One signer per process, region and endpoint (read on use: tests change them). */
function current(): { url: URL; signer: SignatureV4 } {
  const region = awsRegion() ?? process.env.AWS_DEFAULT_REGION ?? '';
  if (!region) throw new Error('kms-requests: AWS_REGION is not set');
  const endpoint = process.env.AWS_ENDPOINT_URL_KMS || `https://kms.${region}.amazonaws.com`;
  const key = `${region} ${endpoint}`;
  if (target?.key !== key) {
    const signer = new SignatureV4({
      credentials: defaultProvider(),
      region,
      service: 'kms',
      sha256: Hash.bind(null, 'sha256'),
    });
    target = { key, url: new URL(endpoint), signer };
  }
  return target;
}

/** An error answer's JSON body; nothing when it is not JSON (a proxy's 502 page). */
function jsonOrNothing(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

const THROTTLED = /Throttling|LimitExceeded|RequestLimitExceeded/;

/** One KMS action (`Encrypt`, `Decrypt`) with its JSON input; its JSON output. */
export async function kmsCall(action: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { url, signer } = current();
  const body = JSON.stringify(input);
  const host = url.host;
  const request: HttpRequest = {
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: {
      host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `TrentService.${action}`,
    },
    body,
  };
  for (let attempt = 1; ; attempt++) {
    let failure: Error;
    try {
      // Signed per try: a signature carries its time.
      const signed = await signer.sign(request);
      const answer = await fetch(url, { method: 'POST', headers: signed.headers, body });
      const text = await answer.text();
      if (answer.status === 200) return JSON.parse(text) as Record<string, unknown>;
      const error = jsonOrNothing(text) as { __type?: string; message?: string; Message?: string };
      const type = String(error.__type ?? 'UnknownError').replace(/^.*#/, '');
      failure = new KmsError(type, answer.status, error.message ?? error.Message ?? '');
      if (answer.status < 500 && !THROTTLED.test(type)) throw failure;
    } catch (error) {
      // fetch rejects with a TypeError when the connection fails; anything else (a KmsError above) is final.
      if (!(error instanceof TypeError)) throw error;
      failure = error;
    }
    if (attempt >= ATTEMPTS) throw failure;
    await new Promise((done) => setTimeout(done, 50 * 4 ** (attempt - 1)));
  }
}

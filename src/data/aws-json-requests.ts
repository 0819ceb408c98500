/**
 * Calls of AWS's JSON protocols without the service clients: KMS Encrypt and Decrypt (src/data/secret-box.ts) and
 * SQS SendMessage (src/data/export-queue.ts), one signed POST each, made with the SDK's own signer
 * (@smithy/signature-v4) and credential chain, which every function carries for DynamoDB anyway, as
 * src/data/s3/requests.ts does for S3. The clients were 28 KB (KMS) and 25 KB (SQS) of the bundles that call them
 * and 2-3 % of a bare DocumentClient's init each (docs/benchmarks.md "Cold start and bundles").
 *
 * Endpoint: the one a call names (SQS: its queue URL's), else AWS_ENDPOINT_URL_<SERVICE> (the SDK's own override),
 * else `https://<service>.<region>.amazonaws.com`.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { serviceUnavailable } from '../domain/errors';
import { awsRegion } from './config';
import { remainingMs, sleepWithin } from './deadline';

/** The services called, with their JSON protocol's target prefix and version. */
const SERVICES = {
  kms: { target: 'TrentService', contentType: 'application/x-amz-json-1.1' },
  sqs: { target: 'AmazonSQS', contentType: 'application/x-amz-json-1.0' },
} as const;
export type JsonService = keyof typeof SERVICES;

/** Tries of one call, as the clients' `maxAttempts: 3`: a 5xx, a throttling answer or a failed connection. */
const ATTEMPTS = 3;

/** An error answer: `type` is the service's exception name (`AccessDeniedException`, `InvalidCiphertextException`...). */
export class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(`${type} (${status}): ${message}`);
    this.name = 'AwsJsonError';
  }
}

const targets = new Map<JsonService, { key: string; url: URL; signer: SignatureV4 }>();

/** One signer per process, service, region and endpoint (read on use: tests change them). */
function current(service: JsonService, endpointOfCall: string | undefined): { url: URL; signer: SignatureV4 } {
  const region = awsRegion() ?? process.env.AWS_DEFAULT_REGION ?? '';
  if (!region) throw new Error('aws-json-requests: AWS_REGION is not set');
  const endpoint =
    endpointOfCall ||
    process.env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`] ||
    `https://${service}.${region}.amazonaws.com`;
  const key = `${region} ${endpoint}`;
  let target = targets.get(service);
  if (target?.key !== key) {
    const signer = new SignatureV4({
      credentials: defaultProvider(),
      region,
      service,
      sha256: Hash.bind(null, 'sha256'),
    });
    target = { key, url: new URL(endpoint), signer };
    targets.set(service, target);
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

/**
 * One action of `service` (KMS `Encrypt`, SQS `SendMessage`...) with its JSON input; its JSON output. `endpoint`
 * is where this call goes when the call names it (an SQS queue URL's origin, as the SQS client sends there).
 */
export async function awsJsonCall(
  service: JsonService,
  action: string,
  input: Record<string, unknown>,
  endpoint?: string,
): Promise<Record<string, unknown>> {
  const { url, signer } = current(service, endpoint);
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
      'content-type': SERVICES[service].contentType,
      'x-amz-target': `${SERVICES[service].target}.${action}`,
    },
    body,
  };
  for (let attempt = 1; ; attempt++) {
    let failure: Error;
    try {
      // Signed per try: a signature carries its time.
      const signed = await signer.sign(request);
      // Inside a request, a try that has not answered when the request's deadline comes is given up (503).
      const left = remainingMs();
      if (left <= 0) throw serviceUnavailable();
      const signal = Number.isFinite(left) ? AbortSignal.timeout(left) : undefined;
      const answer = await fetch(url, { method: 'POST', headers: signed.headers, body, signal });
      const text = await answer.text();
      if (answer.status === 200) return JSON.parse(text) as Record<string, unknown>;
      const error = jsonOrNothing(text) as { __type?: string; message?: string; Message?: string };
      const type = String(error.__type ?? 'UnknownError').replace(/^.*#/, '');
      failure = new AwsJsonError(type, answer.status, error.message ?? error.Message ?? '');
      if (answer.status < 500 && !THROTTLED.test(type)) throw failure;
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw serviceUnavailable();
      // fetch rejects with a TypeError when the connection fails; anything else (an AwsJsonError above) is final.
      if (!(error instanceof TypeError)) throw error;
      failure = error;
    }
    if (attempt >= ATTEMPTS) throw failure;
    // A pause the request's deadline has no room for ends it with 503 now.
    await sleepWithin(50 * 4 ** (attempt - 1));
  }
}

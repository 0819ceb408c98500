import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { s3Endpoint } from '../config';
import { LOCAL_S3_CREDENTIALS, LOCAL_S3_REGION } from './requests';

/**
 * How every client of the local S3 endpoint (S3_ENDPOINT: `npm start` and
 * the tests, scripts/lib/s3-local.ts) connects: path-style URLs on its
 * loopback address, the fixed key pair its gate verifies signatures with.
 */
export const localS3Config = (endpoint: string): S3ClientConfig => ({
  endpoint,
  region: LOCAL_S3_REGION,
  forcePathStyle: true,
  credentials: LOCAL_S3_CREDENTIALS,
});

/**
 * One client per process for attachments and exports alike. Its request
 * timeout fits an export's multipart part (megabytes); a call made for an
 * API request is bounded much tighter by its own signal (src/data/s3/objects.ts).
 */
function createClient(): S3Client {
  const endpoint = s3Endpoint();
  return new S3Client({
    ...(endpoint ? localS3Config(endpoint) : {}),
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 2000, requestTimeout: 60_000, throwOnRequestTimeout: true },
  });
}

let client: S3Client | undefined;

/** One client per process, created on first use (S3_ENDPOINT is read then). */
export const s3 = (): S3Client => (client ??= createClient());

/** For tests and scripts that change S3_ENDPOINT after a client was made. */
export const resetS3Client = (): void => {
  client?.destroy();
  client = undefined;
};

import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { s3Endpoint } from './config';

/**
 * How every client of the local S3-compatible server (S3_ENDPOINT, `npm start`
 * and the tests: scripts/lib/s3-local.ts) connects: path-style URLs on its
 * loopback address, the fixed key pair it verifies signatures with.
 */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const localS3Config = (endpoint: string): S3ClientConfig => ({
  endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: LOCAL_S3_CREDENTIALS,
});

function createClient(): S3Client {
  const endpoint = s3Endpoint();
  return new S3Client({
    ...(endpoint ? localS3Config(endpoint) : {}),
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 5000, throwOnRequestTimeout: true },
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

import type { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import S3rver from 's3rver';
import { localS3Config } from '../../src/data/s3-client';
import { freePort, makePrivate } from './dynamodb-local';

/** The bucket `npm start` uses when ATTACHMENTS_BUCKET does not name another. */
export const DEFAULT_LOCAL_BUCKET = 'hr-api-attachments';

export interface RunningS3 {
  endpoint: string;
  /** Object-created and -removed notifications, in the shape S3 sends them to Lambda. */
  onEvent(listener: (event: S3Event) => void): void;
  stop(): Promise<void>;
}

/**
 * Starts s3rver (an S3-compatible server written in Node) on 127.0.0.1.
 * `path` keeps its objects there (folder 0700, like DynamoDB Local's);
 * without it they live in a temporary folder removed at stop.
 *
 * s3rver stores POST uploads but does not enforce a POST policy's conditions
 * (size range, Content-Type, expiry): the post-upload check
 * (src/services/attachment-check.ts) is what rejects a file of another size
 * or type locally, as S3 itself would refuse it at upload.
 */
export async function startS3Local(options: { path?: string; port?: number } = {}): Promise<RunningS3> {
  const port = options.port ?? (await freePort());
  const directory = options.path ? resolvePath(options.path) : mkdtempSync(join(tmpdir(), 's3-local-'));
  makePrivate(directory);
  const umask = process.umask(0o077);
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, resetOnClose: false });
  try {
    await server.run();
  } finally {
    process.umask(umask);
  }
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    // s3rver is a Koa application (an EventEmitter); its types leave out the 'event' it emits per stored object.
    onEvent: (listener) => (server as unknown as EventEmitter).on('event', listener),
    stop: async () => {
      await server.close();
      if (!options.path) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Creates the bucket if it is missing (local endpoints only; CDK creates the deployed one). */
export async function ensureBucket(endpoint: string, bucket: string): Promise<void> {
  const client = new S3Client(localS3Config(endpoint));
  try {
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    }
  } finally {
    client.destroy();
  }
}

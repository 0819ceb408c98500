import type { EventEmitter } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import type S3rver from 's3rver';
import { localS3Config } from '../../src/data/s3/client';
import { LOCAL_S3_CREDENTIALS } from '../../src/data/s3/requests';
import { createS3Gate } from './s3-gate';
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
 * Starts the local S3 endpoint on 127.0.0.1: the gate (scripts/lib/s3-gate.ts)
 * that refuses what S3 refuses (unsigned or wrongly signed requests, POST
 * uploads outside their policy), in front of s3rver (an S3-compatible server
 * written in Node), which listens only on a Unix socket in a private
 * temporary folder. `path` keeps the objects there (folder 0700, like
 * DynamoDB Local's); without it they live in a temporary folder removed at stop.
 */
export async function startS3Local(options: { path?: string; port?: number } = {}): Promise<RunningS3> {
  const port = options.port ?? (await freePort());
  const directory = options.path ? resolvePath(options.path) : mkdtempSync(join(tmpdir(), 's3-local-'));
  makePrivate(directory);
  const socketDirectory = mkdtempSync(join(tmpdir(), 's3-socket-'));
  const socket = join(socketDirectory, 's3rver.sock');
  // Loaded here, not at the top: most importers only need ensureBucket (every integration test file, each
  // `npm start` instance that does not serve the local S3), and s3rver with Koa costs ~0.3 s of CPU to load.
  const { default: S3rverServer } = await import('s3rver');
  const server: S3rver = new S3rverServer({ silent: true, directory, resetOnClose: false });
  // s3rver's own listen (it records the server for close()), on the socket instead of a TCP port.
  const internal = server as unknown as { listen(path: string): Promise<HttpServer>; httpServer?: HttpServer };
  internal.httpServer = await internal.listen(socket);
  const endpoint = `http://127.0.0.1:${port}`;
  const sdk = new S3Client(localS3Config(endpoint));
  // The socket's private folder also holds the bodies on their way through the gate.
  const gate = createS3Gate(
    { ...LOCAL_S3_CREDENTIALS, sha256: sdk.config.sha256, now: Date.now },
    socket,
    socketDirectory,
  );
  sdk.destroy();
  await new Promise<void>((resolve, reject) => {
    gate.once('error', reject);
    gate.listen(port, '127.0.0.1', resolve);
  });
  return {
    endpoint,
    // s3rver is a Koa application (an EventEmitter); its types leave out the 'event' it emits per stored object.
    onEvent: (listener) => (server as unknown as EventEmitter).on('event', listener),
    stop: async () => {
      await new Promise<void>((resolve) => {
        gate.close(() => resolve());
        gate.closeAllConnections();
      });
      await server.close();
      rmSync(socketDirectory, { recursive: true, force: true });
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

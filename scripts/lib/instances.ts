/**
 * `INSTANCES=N npm start` (contract §18): N processes serve one port, each
 * with its own module state (token cache, page hints, rate counts) as a Lambda
 * instance has, so what several instances do to one tenant can be seen and
 * tested on this machine. node:cluster: the primary (DynamoDB Local, S3, the
 * demo business, the webhook dispatcher) forks N workers that share its
 * listening socket; it hands each new connection to one worker in turn
 * (round-robin), so a client that opens a connection per request meets every
 * instance, and one that keeps its connection stays with one (as a caller of
 * API Gateway may, too). Every answer of a worker names it in
 * `X-Local-Instance` (the local server only) so tests can tell them apart.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { rateCountsSent } from '../../src/data/rate-counts';

export const MAX_INSTANCES = 16;

/** INSTANCES as a count 1..16 (default 1), or one line saying what is wrong. */
export function instanceCount(raw: string | undefined = process.env.INSTANCES): number | string {
  if (raw === undefined || raw === '') return 1;
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_INSTANCES))
    return `INSTANCES must be a whole number from 1 to ${MAX_INSTANCES}, got ${JSON.stringify(raw)}`;
  return n;
}

/** Whether this process is one of the instances the primary forked. */
export const isInstance = (): boolean => cluster.isWorker;

/** In an instance: serve `server` on the primary's port (the cluster shares its socket). */
export async function serveInstance(server: Server): Promise<void> {
  const id = String(cluster.worker?.id ?? 0);
  server.prependListener('request', (_req, res) => res.setHeader('X-Local-Instance', id));
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST || '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const stop = (): void => {
    server.close();
    // The counts this instance admitted reach the other instances first (a sync a second at most).
    void rateCountsSent(3000).then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The primary's end is the instances' end (no orphan keeps the port).
  process.on('disconnect', stop);
}

/**
 * In the primary: forks `n` instances with the primary's environment (the
 * endpoints and keys it set up) and waits until each listens. Rejects if one
 * exits first (a port in use: every instance fails the same way).
 */
export async function startInstances(n: number): Promise<{ stop: () => Promise<void> }> {
  const workers: Worker[] = [];
  await Promise.all(
    Array.from({ length: n }, () => {
      const worker = cluster.fork({ ...process.env });
      workers.push(worker);
      return new Promise<void>((resolve, reject) => {
        worker.once('listening', () => resolve());
        worker.once('exit', (code) =>
          reject(new Error(`instance ${worker.id} exited with code ${code} before listening`)),
        );
      });
    }),
  ).catch((error: unknown) => {
    for (const worker of workers) worker.process.kill();
    throw error;
  });
  return {
    stop: async () => {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              worker.once('exit', () => resolve());
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

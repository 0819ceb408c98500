import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
  /** What the receiver answered it. */
  readonly status: number;
}

/**
 * A webhook receiver on a loopback port that records every POST and answers `answer.status` (204 unless a test
 * sets another: a receiver that is down answers 503).
 */
export async function startLoopbackReceiver(host = '127.0.0.1'): Promise<{
  url: string;
  received: Delivery[];
  answer: { status: number };
  close(): Promise<void>;
}> {
  const received: Delivery[] = [];
  const answer = { status: 204 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const status = answer.status;
      received.push({ body, headers: req.headers as Record<string, string>, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hook`,
    received,
    answer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

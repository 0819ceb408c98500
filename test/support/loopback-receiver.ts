import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** A webhook receiver on a loopback port that records every POST and answers 204. */
export async function startLoopbackReceiver(
  host = '127.0.0.1',
): Promise<{ url: string; received: Delivery[]; close(): Promise<void> }> {
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ body, headers: req.headers as Record<string, string> });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

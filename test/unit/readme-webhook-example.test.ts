import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../src/services/webhook-delivery';

/**
 * The receiver in docs/api.md, "Webhooks" (issue 13: subscribe, receive, verify
 * in about 10 lines of Node), runs as printed: its `require` is the real one, except that the
 * port it listens on becomes a free one on 127.0.0.1. It must accept what the
 * dispatcher signs and refuse a tampered body.
 */
const GUIDE = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
const section = GUIDE.slice(GUIDE.indexOf('## Webhooks'));
const example = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

let server: http.Server | undefined;
let logged: string[] = [];

afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

it('is a short, complete receiver', () => {
  expect(example).toContain("require('standardwebhooks')");
  expect(example.trim().split('\n').length).toBeLessThanOrEqual(12);
});

it('verifies what the dispatcher signs and refuses a tampered body', async () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const shim = (id: string): unknown => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the example's own require, as it runs in Node
    if (id !== 'node:http') return require(id);
    return {
      ...http,
      createServer: (listener: http.RequestListener) => {
        server = http.createServer(listener);
        return { listen: () => server!.listen(0, '127.0.0.1') };
      },
    };
  };
  logged = [];
  const sandboxConsole = { log: (...args: unknown[]) => logged.push(args.join(' ')) };
  vm.runInNewContext(example, {
    require: shim,
    process: { env: { WEBHOOK_SECRET: secret } },
    console: sandboxConsole,
  });
  await new Promise<void>((resolve) => (server!.listening ? resolve() : server!.once('listening', resolve)));
  const port = (server!.address() as AddressInfo).port;

  const entry = { cursor: 'c1', type: 'employee.created', id: 'e1', occurred_at: new Date().toISOString(), data: {} };
  const body = JSON.stringify(entry);
  const headers = signatureHeaders({ secret, webhookId: 'msg_wh_1_c1', body, now: new Date() });
  const post = (payload: string) =>
    fetch(`http://127.0.0.1:${port}/hook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: payload,
    });
  expect((await post(body)).status).toBe(204);
  expect(logged).toEqual(['employee.created e1 c1']);
  expect((await post(body.replace('e1', 'e2'))).status).toBe(400);
  // The dispatcher's signature is the one the reference verifier accepts.
  expect(new Webhook(secret).verify(body, headers)).toEqual(entry);
});

import { createHmac, randomBytes } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '../../client/src/webhook';

/**
 * verifyWebhook (contract §23) on the inputs receivers hand it: the raw body as a string or bytes, an API Gateway
 * event (base64 or not), header names in any case, several signatures (a rotated secret); and what it refuses.
 * A real delivery of the dispatcher is verified in test/integration/client.test.ts.
 */
const key = randomBytes(32);
const secret = `whsec_${key.toString('base64')}`;
const entry = { cursor: 'c1', type: 'employee.created', id: 'e1', data: { first_name: 'Jürgen' } };
const body = JSON.stringify(entry);
const now = new Date('2026-11-27T06:00:00Z');
const timestamp = String(now.getTime() / 1000);
const sign = (content: string, withKey = key) => `v1,${createHmac('sha256', withKey).update(content).digest('base64')}`;
const headers = {
  'webhook-id': 'msg_1',
  'webhook-timestamp': timestamp,
  'webhook-signature': sign(`msg_1.${timestamp}.${body}`),
};

describe('verifyWebhook', () => {
  it('accepts the raw body as text, bytes, ArrayBuffer, a Headers object and API Gateway events', async () => {
    const bytes = new TextEncoder().encode(body);
    expect(await verifyWebhook(secret, { headers, body }, { now })).toEqual(entry);
    expect(await verifyWebhook(secret, { headers, body: bytes }, { now })).toEqual(entry);
    expect(await verifyWebhook(secret, { headers, body: bytes.buffer as ArrayBuffer }, { now })).toEqual(entry);
    expect(await verifyWebhook(secret, { headers: new Headers(headers), body }, { now })).toEqual(entry);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await verifyWebhook(secret, { headers: upper, body, isBase64Encoded: false }, { now })).toEqual(entry);
    const base64 = { headers, body: Buffer.from(body).toString('base64'), isBase64Encoded: true };
    expect(await verifyWebhook(secret, base64, { now })).toEqual(entry);
    // A rotated secret: any v1 signature of the list may match.
    const two = {
      ...headers,
      'webhook-signature': `${sign('other', randomBytes(32))} ${headers['webhook-signature']}`,
    };
    expect(await verifyWebhook(secret, { headers: two, body }, { now })).toEqual(entry);
  });

  it.each([
    ['a changed body', { headers, body: body.replace('Jürgen', 'Jurgen') }, 'no signature matches'],
    [
      'a base64 body not flagged as such',
      { headers, body: Buffer.from(body).toString('base64') },
      'no signature matches',
    ],
    ['a parsed body', { headers, body: entry as unknown as string }, 'raw request body'],
    ['no signature', { headers: { ...headers, 'webhook-signature': undefined }, body }, 'missing'],
    ['another id', { headers: { ...headers, 'webhook-id': 'msg_2' }, body }, 'no signature matches'],
    [
      'a v2 signature',
      { headers: { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, body },
      'no signature matches',
    ],
  ])('refuses %s', async (_name, input, message) => {
    await expect(verifyWebhook(secret, input, { now })).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(secret, input, { now })).rejects.toThrow(message);
  });

  it('refuses a timestamp more than 5 minutes away, either way', async () => {
    for (const offset of [-301_000, 301_000])
      await expect(verifyWebhook(secret, { headers, body }, { now: new Date(now.getTime() + offset) })).rejects.toThrow(
        '5 minutes',
      );
    expect(await verifyWebhook(secret, { headers, body }, { now: new Date(now.getTime() + 299_000) })).toEqual(entry);
  });
});

/**
 * Standard Webhooks verification with WebCrypto (Node 20+, browsers, edge runtimes): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` with the subscription's `whsec_` secret, any `v1,` signature of the
 * space-separated list matching, the timestamp within 5 minutes.
 */
import type { components } from './schema.js';

/** A change-feed entry, or the `webhook.ping` entry a ping request sends. */
export type WebhookEvent = components['schemas']['ChangeEntry'] | components['schemas']['WebhookPingEntry'];

type HeaderValue = string | string[] | undefined;

/** What a receiver has: the headers and the raw body, as a string or its bytes. */
export interface WebhookRequest {
  headers: Headers | Record<string, HeaderValue>;
  body: string | Uint8Array | ArrayBuffer;
}

/** An API Gateway HTTP API (payload 2.0) or REST proxy event: the body as delivered, base64 when flagged. */
export interface ApiGatewayEvent {
  headers?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const TOLERANCE_SECONDS = 5 * 60;
const encoder = new TextEncoder();

const header = (headers: WebhookRequest['headers'] | ApiGatewayEvent['headers'], name: string): string | undefined => {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  return undefined;
};

const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

function bodyBytes(input: WebhookRequest | ApiGatewayEvent): Uint8Array {
  const { body } = input;
  if (typeof body === 'string')
    return (input as ApiGatewayEvent).isBase64Encoded ? fromBase64(body) : encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // A parsed object cannot be verified: its bytes are gone (pass the raw body, e.g. express.raw()).
  throw new WebhookVerificationError('the body must be the raw request body: a string or bytes');
}

/** Constant-time comparison of two strings of the same alphabet. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies one delivery and returns its change-feed entry, or throws `WebhookVerificationError`.
 * `input`: `{headers, body}` (body a string or bytes) or an API Gateway event (base64 bodies included).
 */
export async function verifyWebhook(
  secret: string,
  input: WebhookRequest | ApiGatewayEvent,
  options: { now?: Date } = {},
): Promise<WebhookEvent> {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, -timestamp or -signature');
  const seconds = Number(timestamp);
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError('webhook-timestamp is not within 5 minutes of now');
  const body = bodyBytes(input);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  } catch {
    throw new WebhookVerificationError('the secret is not a whsec_ secret');
  }
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, signed)));
  const matches = signatures.split(' ').some((s) => s.startsWith('v1,') && sameText(s.slice(3), expected));
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
}

/**
 * The I/O of webhooks kept thin: resolving a URL's host at subscribe time, and
 * one signed POST at delivery time through request-filtering-agent, which
 * checks the address it actually connects to (a host that resolved to a
 * public address when subscribing and to 169.254.169.254 now is refused at
 * connect: no DNS rebinding). Tests inject `lookup` so no traffic goes to a
 * refused address and no real DNS is asked.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';
import { webhooksAllowLoopback } from '../data/config';
import {
  agentAllowList,
  DELIVERY_TIMEOUT_MS,
  httpFailure,
  isAllowedAddress,
  urlTarget,
  type DeliveryOutcome,
  type UrlPolicy,
} from '../domain/webhooks';

/** node's dns.lookup signature (all addresses). */
export type Lookup = typeof dnsLookup;

let lookupImpl: Lookup = dnsLookup;

/** Tests stub name resolution here (never real DNS, never traffic to a refused address). */
export function useLookup(next: Lookup | undefined): void {
  lookupImpl = next ?? dnsLookup;
}

/** Local mode: the local server (`npm start`, tests) sets WEBHOOKS_ALLOW_LOOPBACK=1; never deployed. */
export const urlPolicy = (): UrlPolicy => ({ local: webhooksAllowLoopback() });

function resolveAll(host: string): Promise<string[]> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return Promise.resolve([bare]);
  return new Promise((resolve) => {
    lookupImpl(bare, { all: true }, (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      resolve(error ? [] : addresses.map((a) => a.address));
    });
  });
}

/**
 * Subscribe-time check: the URL's form, then every address its host resolves
 * to. A host that does not resolve is not allowed either.
 */
export async function isAllowedUrl(url: string, policy = urlPolicy()): Promise<boolean> {
  const target = urlTarget(url, policy);
  if (!target) return false;
  const addresses = await resolveAll(target.host);
  return addresses.length > 0 && addresses.every((a) => isAllowedAddress(a, policy));
}

export interface SignedDelivery {
  readonly url: string;
  readonly secret: string;
  readonly webhookId: string;
  readonly body: string;
  readonly now: Date;
}

/** The three Standard Webhooks headers for this body, signed with `standardwebhooks`. */
export function signatureHeaders(d: Omit<SignedDelivery, 'url'>): Record<string, string> {
  return {
    'webhook-id': d.webhookId,
    'webhook-timestamp': String(Math.floor(d.now.getTime() / 1000)),
    'webhook-signature': new Webhook(d.secret).sign(d.webhookId, d.now, d.body),
  };
}

/**
 * One POST; a 2xx answered within DELIVERY_TIMEOUT_MS is success, anything
 * else (status, refused address, network error, timeout) a failure whose text
 * becomes `last_delivery_error`. Never throws.
 */
export function deliver(d: SignedDelivery, policy = urlPolicy()): Promise<DeliveryOutcome> {
  if (!urlTarget(d.url, policy)) return Promise.resolve({ ok: false, error: 'url is not allowed' });
  const url = new URL(d.url);
  const filter = {
    allowPrivateIPAddress: false,
    allowMetaIPAddress: false,
    allowIPAddressList: agentAllowList(policy),
  };
  const agent =
    url.protocol === 'https:' ? new RequestFilteringHttpsAgent({ ...filter }) : new RequestFilteringHttpAgent(filter);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: DeliveryOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      agent.destroy();
      resolve(outcome);
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        agent,
        lookup: lookupImpl,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'hr-api-webhooks/1',
          ...signatureHeaders(d),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not used: read and drop it so the socket closes cleanly.
        res.resume();
        res.on('end', () =>
          finish(status >= 200 && status < 300 ? { ok: true } : { ok: false, error: httpFailure(status) }),
        );
        res.on('error', () => finish({ ok: false, error: httpFailure(status) }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` });
    }, DELIVERY_TIMEOUT_MS);
    req.on('error', (error) => {
      const refused = /is not allowed/.test(error.message);
      finish({
        ok: false,
        error: refused ? 'url is not allowed' : `connection failed: ${error.message}`.slice(0, 200),
      });
    });
    req.end(d.body);
  });
}

/**
 * The I/O of a webhook delivery kept thin: one signed POST through
 * request-filtering-agent (the subscribe-time resolution is
 * src/services/webhook-urls.ts). The address
 * it actually connects to is checked with the subscribe-time rule
 * (isAllowedAddress) by the lookup the agent calls, so a host that resolved to a
 * public address when subscribing and to 169.254.169.254 now is refused at
 * connect (no DNS rebinding); the agent's own, narrower check runs as well.
 * Tests inject `lookup` so no traffic goes to a refused address and no real
 * DNS is asked.
 */
import type { LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';
import {
  CONNECTION_FAILED,
  DELIVERY_TIMEOUT_MS,
  httpFailure,
  MAX_ANSWER_BYTES,
  TIMEOUT,
  type DeliveryOutcome,
} from '../domain/webhooks';
import { agentAllowList, isAllowedAddress, urlTarget, type UrlPolicy } from '../domain/webhook-urls';
import { bareHost, currentLookup, urlPolicy, type Lookup } from './webhook-urls';

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

class RefusedAddress extends Error {
  constructor(address: string) {
    super(`${address} is not allowed`);
    this.name = 'RefusedAddress';
  }
}

/** The lookup the delivery agent connects with: every address it hands out passes isAllowedAddress. */
function checkedLookup(policy: UrlPolicy): Lookup {
  const checked = (
    hostname: string,
    options: { all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void,
  ): void => {
    currentLookup()(
      hostname,
      { ...options, all: true },
      (error: NodeJS.ErrnoException | null, found: LookupAddress[]) => {
        if (error) return callback(error);
        const refused = found.find((a) => !isAllowedAddress(a.address, policy));
        if (refused || found.length === 0) return callback(new RefusedAddress(refused?.address ?? hostname));
        if (options.all) return callback(null, found);
        const [first] = found as [LookupAddress];
        callback(null, first.address, first.family);
      },
    );
  };
  return checked as unknown as Lookup;
}

/**
 * One POST; a 2xx answered within DELIVERY_TIMEOUT_MS is success, anything
 * else a failure whose text (`HTTP <status>`, `timeout`, `connection failed`)
 * becomes `last_delivery_error`. At most MAX_ANSWER_BYTES of the answer are
 * read: then the connection is closed, so an endless answer costs no more than
 * that. Never throws.
 */
export function deliver(d: SignedDelivery, policy = urlPolicy()): Promise<DeliveryOutcome> {
  const target = urlTarget(d.url, policy);
  // An address literal never reaches a lookup: it is checked here, by the same rule.
  const literal = target && isIP(bareHost(target.host)) !== 0 ? bareHost(target.host) : undefined;
  if (!target || (literal !== undefined && !isAllowedAddress(literal, policy)))
    return Promise.resolve({ ok: false, error: CONNECTION_FAILED });
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
    // Set when the status line arrives: a 2xx within the time is a success even if its body is slow.
    let answered: DeliveryOutcome | undefined;
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
        lookup: checkedLookup(policy),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'hr-api-webhooks/1',
          ...signatureHeaders(d),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const outcome: DeliveryOutcome =
          status >= 200 && status < 300 ? { ok: true, status } : { ok: false, error: httpFailure(status) };
        answered = outcome;
        // The status decides; the body is not used. It is read (and dropped) up to its end or
        // MAX_ANSWER_BYTES, whichever comes first, so a well-behaved receiver sees a clean close.
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_ANSWER_BYTES) {
            finish(outcome);
            req.destroy();
          }
        });
        res.on('end', () => finish(outcome));
        res.on('error', () => finish(outcome));
        res.on('close', () => finish(outcome));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(answered ?? { ok: false, error: TIMEOUT });
    }, DELIVERY_TIMEOUT_MS);
    req.on('error', () => finish({ ok: false, error: CONNECTION_FAILED }));
    req.end(d.body);
  });
}

/**
 * Resolving a subscription URL's host at subscribe time (contract §14, SSRF):
 * every address it resolves to must pass the address policy
 * (src/domain/webhook-urls.ts). Tests inject `lookup` so no real DNS is asked.
 * Apart from the delivery (src/services/webhook-delivery.ts), whose signing
 * and filtering agent the create does not need.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { webhooksAllowLoopback } from '../data/config';
import { isAllowedAddress, urlTarget, type UrlPolicy } from '../domain/webhook-urls';

/** node's dns.lookup signature (all addresses). */
export type Lookup = typeof dnsLookup;

let lookupImpl: Lookup = dnsLookup;

/** The lookup in use (the delivery agent's connect-time check asks it too). */
export const currentLookup = (): Lookup => lookupImpl;

/** Tests stub name resolution here (never real DNS, never traffic to a refused address). */
export function useLookup(next: Lookup | undefined): void {
  lookupImpl = next ?? dnsLookup;
}

/** Local mode: the local server (`npm start`, tests) sets WEBHOOKS_ALLOW_LOOPBACK=1; never deployed. */
export const urlPolicy = (): UrlPolicy => ({ local: webhooksAllowLoopback() });

export const bareHost = (host: string): string => (host.startsWith('[') ? host.slice(1, -1) : host);

function resolveAll(host: string): Promise<string[]> {
  const bare = bareHost(host);
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

/**
 * The URL and address policy of webhook subscriptions (contract §14, SSRF):
 * what a subscription URL may be and which addresses a delivery may reach.
 * Pure; src/services/webhook-urls.ts resolves hosts with it.
 */
import ipaddr from 'ipaddr.js';

export interface UrlPolicy {
  /** The local server (`npm start`): loopback http targets are allowed too. */
  readonly local: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The syntactic check of a subscription URL: https (or, locally, http to a
 * loopback host), no credentials. Returns the host to resolve, or null when
 * the URL is not allowed.
 */
export function urlTarget(raw: string, policy: UrlPolicy): { host: string } | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  const host = url.hostname;
  if (url.protocol === 'https:') return { host };
  if (url.protocol === 'http:' && policy.local && LOOPBACK_HOSTS.has(host)) return { host };
  return null;
}

/**
 * IPv6 prefixes that carry an IPv4 address for a translator or tunnel to reach
 * (IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and the
 * local-use 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32): refused whole,
 * whatever IPv4 address they embed, because where they lead is decided by a
 * gateway this service cannot check. Listed here rather than left to ipaddr.js's
 * range names, which do not cover ::/96.
 */
const TRANSLATED_PREFIXES = [
  '::/96',
  '::ffff:0:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2002::/16',
  '2001::/32',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * An IPv6 text as the WHATWG URL parser writes it (hex groups, compressed,
 * lower case), so every spelling is judged by its one meaning: ipaddr.js alone
 * reads the IPv4-compatible `::a.b.c.d` as the mapped `::ffff:a.b.c.d`.
 * IPv4 text is left as is; undefined when it is no address.
 */
function canonicalAddress(address: string): string | undefined {
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/**
 * Whether an address may receive deliveries: public unicast only (ipaddr.js
 * ranges: private, loopback, link-local incl. 169.254.169.254, unique-local incl.
 * fd00:ec2::254, multicast, carrier-grade NAT, reserved and unspecified are
 * refused, and so is every IPv4-in-IPv6 translation form above); locally,
 * loopback too. An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 address it
 * carries (a socket connects to that), so it is judged as that address. The
 * delivery agent applies this same function at connect time
 * (src/services/webhook-delivery.ts).
 */
export function isAllowedAddress(address: string, policy: UrlPolicy): boolean {
  const canonical = canonicalAddress(address);
  if (canonical === undefined || !ipaddr.isValid(canonical)) return false;
  const parsed = ipaddr.process(canonical);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (policy.local && v6.range() === 'loopback') return true;
    if (TRANSLATED_PREFIXES.some((cidr) => v6.match(cidr))) return false;
  }
  const range = parsed.range();
  if (range === 'unicast') return true;
  return policy.local && range === 'loopback';
}

/**
 * The local exception for request-filtering-agent: the two loopback addresses the
 * contract's local hosts resolve to (exact addresses: its CIDR matching warns
 * across IPv4/IPv6).
 */
export const agentAllowList = (policy: UrlPolicy): string[] => (policy.local ? ['127.0.0.1', '::1'] : []);

import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/** Which proxies' `X-Forwarded-For` is believed: a function of the address and its hop, as Express takes it. */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * `TRUST_PROXY` (docs/decisions.md §14): unset, nobody is trusted and the client is the socket's peer; a number trusts that
 * many hops in front of the API; otherwise a comma-separated list of addresses, CIDR ranges or proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`). Throws on an entry proxy-addr does not understand.
 */
export function compileTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined) return () => false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile(value.split(',').map((s) => s.trim()).filter(Boolean));
}

/** The client's address for a request or an upgrade: the socket's peer, or what the trusted proxies report. */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  return proxyaddr(req, trust) ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * The key an address is limited under: an IPv4 address (also IPv4-mapped IPv6, `::ffff:1.2.3.4`) as it is, an IPv6
 * address by its /64 prefix, since one subscriber is routinely given a whole /64 and could otherwise rotate through it.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

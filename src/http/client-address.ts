import type { Express } from 'express';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import { isIpAddress, type TrustProxy } from '../security/trust-proxy.ts';

/**
 * The client's address for a request or an upgrade: the socket's peer, or what the trusted proxies report. The walk
 * from the socket stops at the first hop that is not trusted; when that hop's value is not an IP address (`unknown`,
 * a name, anything a client wrote), it is ignored and the client is the hop that reported it, so a made-up value can
 * never become a limiter key or a fresh identity.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  const chain = proxyaddr.all(req, trust); // [socket's peer, …, first hop not trusted]
  const candidate = chain.at(-1);
  if (candidate !== undefined && isIpAddress(candidate)) return candidate;
  return chain.at(-2) ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * Makes Express agree with the limiters on who the client is: `trust proxy` for what Express derives from it
 * (`req.ips`, `req.protocol`), and `req.ip` answered by clientAddress itself (Express's own would return a value that
 * is not an IP address as it is).
 */
export function useClientAddress(app: Express, trust: TrustProxy): void {
  app.set('trust proxy', trust);
  Object.defineProperty(app.request, 'ip', {
    configurable: true,
    enumerable: true,
    get(this: IncomingMessage) {
      return clientAddress(this, trust);
    },
  });
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

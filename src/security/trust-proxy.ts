// Which proxies are believed about a client's address (TRUST_PROXY): the rule itself, on the ground floor, so the
// settings (src/config.ts, which validates TRUST_PROXY at start-up) and the HTTP layer (src/http/client-address.ts,
// which finds the client's address with it) both read it from below (docs/architecture.md habit 16).
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

/**
 * Which hops' `X-Forwarded-For` is believed: a function of the address and its hop (0 is the socket's peer, 1 the
 * address that peer reports, and so on), as proxy-addr and Express take it.
 */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * `TRUST_PROXY` (docs/decisions.md §14, §16): unset, nobody is trusted and the client is the socket's peer. A number N
 * trusts the N hops nearest the socket, whatever their addresses: the socket's peer and the N − 1 proxies it reports,
 * so the client is the address N hops in from the socket (Express's own meaning of a number, checked in
 * test/unit/http/address-limit.test.ts). Otherwise a comma-separated list of addresses, CIDR ranges or proxy-addr's
 * names (`loopback`, `linklocal`, `uniquelocal`): a hop is trusted when its address is in the list. Either way a value
 * that is not an IP address is never trusted (see clientAddress, src/http/client-address.ts). Throws on an entry
 * proxy-addr does not understand.
 */
export function compileTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined) return () => false;
  const hops = /^\d+$/.test(value) ? Number(value) : undefined;
  const trusted: TrustProxy =
    hops !== undefined ? (_address, hop) => hop < hops : proxyaddr.compile(value.split(',').map((s) => s.trim()).filter(Boolean));
  return (address, hop) => isIpAddress(address) && trusted(address, hop);
}

/** An IP address in one of its usual notations (node:net's test: "0x7f.1" or "1" are not addresses here). */
export function isIpAddress(value: string): boolean {
  return isIP(value) !== 0;
}

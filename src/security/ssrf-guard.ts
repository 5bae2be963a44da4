import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

// Guard for URLs Convene calls but did not choose: tenants' webhooks (docs/decisions.md §10) and the links recordings are
// downloaded from (docs/decisions.md §7, guarded-download.ts). A tenant or a provider's link must not be able to make the
// service reach its own network: loopback, private and link-local ranges, cloud metadata endpoints.
// Two layers, both needed:
//   1. assertSafeWebhookUrl: when the config is saved and again before every delivery; resolves the host and
//      refuses it when ANY of its addresses is not public.
//   2. safeLookup / createSafeLookup: passed as `lookup` to the HTTP client (http.request, or an undici Agent's
//      `connect.lookup`), so the address actually connected to is checked too. Without it a host could answer
//      the check with a public address and the connect with 127.0.0.1 (DNS rebinding).
// Outside production `http:` and loopback addresses are allowed (local receivers, the development media server); every
// other rule holds. Recording downloads take loopback only when SSRF_ALLOW_LOOPBACK says so (docs/decisions.md §7:
// `npm run dev` and the tests set it), through ssrfPolicy(config).

export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
}

/**
 * The host has no DNS answer. Still refused (nothing could be checked), but a DNS failure rather than a ruling on the
 * address, so a caller can say so: a webhook attempt reports it as a DNS failure and retries.
 */
export class UnresolvableHostError extends UnsafeUrlError {
  override name = 'UnresolvableHostError';
}

export interface SsrfPolicy {
  /** https only, public addresses only. */
  production: boolean;
  /**
   * Outside production, whether loopback addresses may be called. Unset: they may (what webhooks are checked with);
   * ssrfPolicy(config) sets it from SSRF_ALLOW_LOOPBACK. Never in production.
   */
  allowLoopback?: boolean;
}

/** The guard's policy from the configuration, with loopback only by SSRF_ALLOW_LOOPBACK (recording downloads). */
export function ssrfPolicy(config: { nodeEnv: string; ssrfAllowLoopback: boolean }): SsrfPolicy {
  const production = config.nodeEnv === 'production';
  return { production, allowLoopback: !production && config.ssrfAllowLoopback };
}

const MAX_URL_LENGTH = 2048;

// Names that reach a cloud provider's instance metadata service without going through a checked address.
const METADATA_HOSTNAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified (0.0.0.0/8 or ::)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (169.254.0.0/16 or fe80::/10, includes cloud metadata)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private (10/8, 172.16/12, 192.168/16)',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
};

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** Why `address` (a literal IP) may not be called under `policy`, or undefined when it may. */
export function addressRefusal(address: string, policy: SsrfPolicy): string | undefined {
  // net.isIP accepts only canonical notations; odd IPv4 spellings ("0x7f.1") never reach ipaddr.
  if (isIP(address) === 0) return `${address} is not an IP address`;
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // IPv4 addresses wrapped in IPv6 are judged by the IPv4 address they reach.
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(NAT64)) ip = embeddedIPv4(v6);
    else if (v6.parts.slice(0, 6).every((p) => p === 0) && v6.range() !== 'loopback' && v6.range() !== 'unspecified') {
      return `${address} is an IPv4-compatible IPv6 address`;
    }
  }
  const range = ip.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && !policy.production && (policy.allowLoopback ?? true)) return undefined;
  const shown = ip.toString() === address ? address : `${address} (${ip.toString()})`;
  return `${shown} is a ${RANGE_NAMES[range] ?? `special-purpose (${range})`} address`;
}

function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = v6.toByteArray().slice(12);
  return ipaddr.fromByteArray(bytes) as ipaddr.IPv4;
}

function normaliseHostname(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

function hostnameRefusal(hostname: string): string | undefined {
  if (METADATA_HOSTNAMES.has(normaliseHostname(hostname))) return `host ${hostname} is a cloud metadata endpoint`;
  return undefined;
}

export interface AssertSafeUrlOptions extends SsrfPolicy {
  /** Resolver, all addresses of a host; defaults to the system resolver (dns.lookup, all: true). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** Longer URLs are refused; a tenant's webhook URL is kept short, a provider's signed link may be longer. */
  maxLength?: number;
}

/** Resolves when `url` may be called under the policy (returns it parsed); otherwise throws UnsafeUrlError. */
export async function assertSafeWebhookUrl(url: string | URL, options: AssertSafeUrlOptions): Promise<URL> {
  const text = String(url);
  const maxLength = options.maxLength ?? MAX_URL_LENGTH;
  if (text.length > maxLength) throw new UnsafeUrlError(`URL is longer than ${maxLength} characters`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new UnsafeUrlError('not a valid absolute URL');
  }
  if (options.production ? parsed.protocol !== 'https:' : !['http:', 'https:'].includes(parsed.protocol)) {
    throw new UnsafeUrlError(options.production ? 'URL must use https in production' : 'URL must use http or https');
  }
  const hostname = normaliseHostname(parsed.hostname);
  const byName = hostnameRefusal(hostname);
  if (byName) throw new UnsafeUrlError(byName);

  if (isIP(hostname) !== 0) {
    const why = addressRefusal(hostname, options);
    if (why) throw new UnsafeUrlError(`URL host ${why}`);
    return parsed;
  }

  const resolve = options.resolve ?? ((host: string) => dnsLookup(host, { all: true }));
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostname);
  } catch (err) {
    throw new UnresolvableHostError(`host ${hostname} could not be resolved (${(err as { code?: string }).code ?? 'error'})`);
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`host ${hostname} has no address`);
  for (const { address } of addresses) {
    const why = addressRefusal(address, options);
    if (why) throw new UnsafeUrlError(`host ${hostname} resolves to ${why}`);
  }
  return parsed;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup-compatible function (`lookup(hostname, [options,] callback)`) that fails with UnsafeUrlError when
 * any address of the host is refused by the policy. Give it to the HTTP client so the connection goes to an
 * address that passed the check. Note: clients skip lookup for literal IP hosts; assertSafeWebhookUrl covers those.
 */
export function createSafeLookup(policy: SsrfPolicy): LookupFunction {
  function safeLookup(
    hostname: string,
    optionsOrCallback: LookupOptions | number | LookupCallback,
    maybeCallback?: LookupCallback,
  ): void {
    const callback = (typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback) as LookupCallback;
    const options: LookupOptions =
      typeof optionsOrCallback === 'number'
        ? { family: optionsOrCallback }
        : typeof optionsOrCallback === 'object' && optionsOrCallback !== null
          ? optionsOrCallback
          : {};
    const fail = (why: string) => process.nextTick(() => callback(new UnsafeUrlError(why), options.all ? [] : ''));

    const byName = hostnameRefusal(hostname);
    if (byName) return void fail(byName);
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      if (addresses.length === 0) return fail(`host ${hostname} has no address`);
      for (const { address } of addresses) {
        const why = addressRefusal(address, policy);
        if (why) return fail(`host ${hostname} resolves to ${why}`);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  }
  return safeLookup as LookupFunction;
}

/** createSafeLookup with the production rule (public addresses only). */
export const safeLookup: LookupFunction = createSafeLookup({ production: true });

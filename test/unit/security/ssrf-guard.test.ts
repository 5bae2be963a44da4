import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  UnresolvableHostError,
  UnsafeUrlError,
  addressRefusal,
  assertSafeWebhookUrl,
  createSafeLookup,
  safeLookup,
  ssrfPolicy,
} from '../../../src/security/ssrf-guard.ts';
import { loadConfig } from '../../../src/config.ts';

const production = { production: true };
const development = { production: false };

describe('ssrfPolicy: recording downloads reach loopback only by SSRF_ALLOW_LOOPBACK, never in production (docs/decisions.md §7)', () => {
  test('off by default; on when set; refused at start-up in production', () => {
    const byDefault = ssrfPolicy(loadConfig({}));
    expect(byDefault).toEqual({ production: false, allowLoopback: false });
    expect(addressRefusal('127.0.0.1', byDefault)).toBe('127.0.0.1 is a loopback address');
    expect(addressRefusal('10.0.0.1', byDefault)).toMatch(/private/);
    const allowed = ssrfPolicy(loadConfig({ SSRF_ALLOW_LOOPBACK: 'true' }));
    expect(allowed).toEqual({ production: false, allowLoopback: true });
    expect(addressRefusal('::1', allowed)).toBeUndefined();
    expect(addressRefusal('169.254.169.254', allowed)).toMatch(/link-local/);
    const secrets = { SECRETS_KEY: Buffer.alloc(32).toString('hex'), UPSTREAM_WEBHOOK_SECRET: 'x' };
    expect(ssrfPolicy(loadConfig({ NODE_ENV: 'production', ...secrets }))).toEqual({ production: true, allowLoopback: false });
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets, SSRF_ALLOW_LOOPBACK: 'true' })).toThrow(/^Invalid SSRF_ALLOW_LOOPBACK: must not be set in production/);
  });
});

describe('addressRefusal', () => {
  test.each([
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['169.254.1.1', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.100.100.200', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.10', /reserved/],
    ['240.0.0.1', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['fe80::1', /link-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /link-local/],
    ['64:ff9b::a9fe:a9fe', /link-local/],
    ['::127.0.0.1', /loopback/],
    ['::7f00:1', /IPv4-compatible/],
    ['::a00:1', /IPv4-compatible/],
    ['2001:db8::1', /special-purpose|reserved/],
  ])('refuses %s in production', (address, why) => {
    expect(addressRefusal(address, production)).toMatch(why);
  });

  test.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(addressRefusal(address, production)).toBeUndefined();
      expect(addressRefusal(address, development)).toBeUndefined();
    },
  );

  test('outside production loopback is allowed, the other ranges are not', () => {
    expect(addressRefusal('127.0.0.1', development)).toBeUndefined();
    expect(addressRefusal('::1', development)).toBeUndefined();
    expect(addressRefusal('::ffff:127.0.0.1', development)).toBeUndefined();
    expect(addressRefusal('169.254.169.254', development)).toMatch(/link-local/);
    expect(addressRefusal('10.0.0.1', development)).toMatch(/private/);
  });

  test('refuses what is not a canonical IP address', () => {
    expect(addressRefusal('0x7f.1', production)).toMatch(/not an IP/);
    expect(addressRefusal('example.com', production)).toMatch(/not an IP/);
  });
});

describe('assertSafeWebhookUrl', () => {
  test('production: https to a public address passes and the URL comes back parsed', async () => {
    const url = await assertSafeWebhookUrl('https://93.184.215.14/hooks/convene?x=1', production);
    expect(url.pathname).toBe('/hooks/convene');
    await expect(assertSafeWebhookUrl('https://[2606:4700::1111]:8443/h', production)).resolves.toBeInstanceOf(URL);
  });

  test('production: http is refused', async () => {
    await expect(assertSafeWebhookUrl('http://93.184.215.14/h', production)).rejects.toThrow(/https/);
  });

  test.each([
    'https://127.0.0.1/h',
    'https://localhost/h',
    'https://LOCALHOST./h',
    'https://[::1]/h',
    'https://10.0.0.5/h',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::ffff:127.0.0.1]/',
    'https://2130706433/', // 127.0.0.1 as one number: the URL parser normalises it, the guard sees 127.0.0.1
    'https://0x7f000001/',
    'https://0/',
    'https://100.64.1.1/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://metadata/',
  ])('production: refuses %s', async (url) => {
    await expect(assertSafeWebhookUrl(url, production)).rejects.toThrow(UnsafeUrlError);
  });

  test('the message says why', async () => {
    await expect(assertSafeWebhookUrl('https://169.254.169.254/', production)).rejects.toThrow(
      'URL host 169.254.169.254 is a link-local (169.254.0.0/16 or fe80::/10, includes cloud metadata) address',
    );
    await expect(assertSafeWebhookUrl('https://localhost:9/', production)).rejects.toThrow(
      /^host localhost resolves to 127\.0\.0\.1 is a loopback address$|^host localhost resolves to ::1 is a loopback address$/,
    );
  });

  test('every resolved address must be public, not just one of them', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(assertSafeWebhookUrl('https://mixed.example/h', { production: true, resolve })).rejects.toThrow(
      'host mixed.example resolves to 10.0.0.7 is a private (10/8, 172.16/12, 192.168/16) address',
    );
    const publicOnly = async () => [{ address: '93.184.215.14', family: 4 }];
    await expect(assertSafeWebhookUrl('https://public.example/h', { production: true, resolve: publicOnly })).resolves.toBeInstanceOf(URL);
  });

  test('a host that does not resolve, or resolves to nothing, is refused', async () => {
    // A stand-in resolver: the tests make no DNS queries beyond /etc/hosts.
    const notFound = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.example'), { code: 'ENOTFOUND' });
    };
    await expect(assertSafeWebhookUrl('https://gone.example/h', { production: true, resolve: notFound })).rejects.toThrow(
      'host gone.example could not be resolved (ENOTFOUND)',
    );
    // Still a refusal (an UnsafeUrlError), of its own kind so a webhook attempt can report it as a DNS failure.
    const refusal = await assertSafeWebhookUrl('https://gone.example/h', { production: true, resolve: notFound }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(UnresolvableHostError);
    expect(refusal).toBeInstanceOf(UnsafeUrlError);
    await expect(assertSafeWebhookUrl('https://empty.example/h', { production: true, resolve: async () => [] })).rejects.toThrow(
      /has no address/,
    );
  });

  test('outside production http and loopback are fine, metadata and private ranges are not', async () => {
    await expect(assertSafeWebhookUrl('http://127.0.0.1:4000/h', development)).resolves.toBeInstanceOf(URL);
    await expect(assertSafeWebhookUrl('http://localhost:4000/h', development)).resolves.toBeInstanceOf(URL);
    await expect(assertSafeWebhookUrl('http://[::1]:4000/h', development)).resolves.toBeInstanceOf(URL);
    await expect(assertSafeWebhookUrl('http://169.254.169.254/', development)).rejects.toThrow(UnsafeUrlError);
    await expect(assertSafeWebhookUrl('http://metadata.google.internal/', development)).rejects.toThrow(UnsafeUrlError);
    await expect(assertSafeWebhookUrl('http://192.168.0.10/', development)).rejects.toThrow(UnsafeUrlError);
  });

  test('refuses other schemes, malformed and oversize URLs in any mode', async () => {
    for (const policy of [production, development]) {
      for (const url of ['ftp://93.184.215.14/', 'file:///etc/passwd', 'gopher://93.184.215.14/', 'not a url', '/relative', `https://93.184.215.14/${'a'.repeat(3000)}`]) {
        await expect(assertSafeWebhookUrl(url, policy)).rejects.toThrow(UnsafeUrlError);
      }
    }
  });
});

describe('safeLookup (pins the checked address for the HTTP client)', () => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  function get(lookup: typeof safeLookup): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: 'localhost', port, path: '/', family: 4, lookup }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('production: a request to a loopback host is refused before connecting', async () => {
    let reached = false;
    server.once('request', () => (reached = true));
    await expect(get(safeLookup)).rejects.toThrow(UnsafeUrlError);
    await expect(get(createSafeLookup({ production: true }))).rejects.toThrow(/resolves to 127\.0\.0\.1 is a loopback address/);
    expect(reached).toBe(false);
  });

  test('development: the same request goes through', async () => {
    await expect(get(createSafeLookup({ production: false }))).resolves.toBe('reached');
  });

  test('is dns.lookup-compatible: callback only, family number, all: true', async () => {
    const lookup = createSafeLookup({ production: false }) as unknown as (...args: unknown[]) => void;
    const call = (...args: unknown[]) =>
      new Promise<unknown[]>((resolve) => lookup('localhost', ...args, (...result: unknown[]) => resolve(result)));
    const [err1, address1] = await call();
    expect(err1).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(address1);
    expect(await call(4)).toEqual([null, '127.0.0.1', 4]);
    const [err3, all] = await call({ all: true, family: 4 });
    expect(err3).toBeNull();
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const [refused] = await new Promise<unknown[]>((resolve) =>
      (safeLookup as unknown as (...args: unknown[]) => void)('metadata.google.internal', {}, (...r: unknown[]) => resolve(r)),
    );
    expect(refused).toBeInstanceOf(UnsafeUrlError);
  });
});

import express from 'express';
import type { IncomingMessage } from 'node:http';
import supertest from 'supertest';
import type { Orm } from '../../../src/db/orm.ts';
import { ApiError } from '../../../src/domain/errors.ts';
import { AuthFailureLimiter } from '../../../src/http/address-limit.ts';
import { addressKey, clientAddress, useClientAddress } from '../../../src/http/client-address.ts';
import { compileTrustProxy } from '../../../src/security/trust-proxy.ts';
import { createLogger } from '../../../src/logger.ts';

test('addresses: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
  expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8:1:2::9')).toBe(addressKey('2001:db8:1:2:ffff::1'));
  expect(addressKey('::1')).toBe('::/64');
});

/** A request as proxy-addr sees it: the socket's peer and the X-Forwarded-For header. */
const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

test('TRUST_PROXY: unset trusts nobody, a number trusts that many hops, names and ranges compile', () => {
  expect(compileTrustProxy(undefined)('127.0.0.1', 0)).toBe(false);
  const twoHops = compileTrustProxy('2');
  expect([twoHops('1.2.3.4', 0), twoHops('1.2.3.4', 1), twoHops('1.2.3.4', 2)]).toEqual([true, true, false]);
  const loopback = compileTrustProxy('loopback, 10.0.0.0/8');
  expect([loopback('127.0.0.1', 0), loopback('10.1.2.3', 0), loopback('192.0.2.1', 0)]).toEqual([true, true, false]);
  expect(() => compileTrustProxy('not-an-address')).toThrow();
  // A value that is not an IP address is never a trusted hop, whatever the setting.
  expect([twoHops('unknown', 1), twoHops('0x7f.1', 1), loopback('0x7f.1', 1)]).toEqual([false, false, false]);
});

test('a hop count is counted from the socket: the client is the address that many hops in, whatever was prepended', () => {
  const oneHop = compileTrustProxy('1');
  const twoHops = compileTrustProxy('2');
  // The client forged "6.6.6.6"; the proxy next to the API appended the address it saw.
  expect(clientAddress(request('10.0.0.1', '6.6.6.6, 203.0.113.5'), oneHop)).toBe('203.0.113.5');
  expect(clientAddress(request('10.0.0.1', '6.6.6.6, 203.0.113.5, 10.0.0.2'), twoHops)).toBe('203.0.113.5');
  expect(clientAddress(request('10.0.0.1'), twoHops)).toBe('10.0.0.1'); // fewer hops than trusted: the farthest known
  expect(clientAddress(request('10.0.0.1', '6.6.6.6'), compileTrustProxy(undefined))).toBe('10.0.0.1');
});

test('with addresses or CIDR ranges, the walk stops at the first hop not in the list', () => {
  const proxies = compileTrustProxy('10.0.0.0/8, 192.168.1.1');
  expect(clientAddress(request('10.0.0.1', '6.6.6.6, 203.0.113.5, 192.168.1.1'), proxies)).toBe('203.0.113.5');
  // The peer is not a listed proxy: its X-Forwarded-For is not read at all.
  expect(clientAddress(request('198.51.100.7', '6.6.6.6'), proxies)).toBe('198.51.100.7');
});

test('a value that is not an IP address is ignored: the client is the hop that reported it', () => {
  for (const trust of [compileTrustProxy('1'), compileTrustProxy('2'), compileTrustProxy('loopback')]) {
    expect(clientAddress(request('127.0.0.1', 'not-an-ip'), trust)).toBe('127.0.0.1');
    expect(clientAddress(request('127.0.0.1', '6.6.6.6, unknown'), trust)).toBe('127.0.0.1');
  }
  // Behind two proxies, the outer one reported a name: the outer proxy is the client, the forged part is never read.
  expect(clientAddress(request('127.0.0.1', '6.6.6.6, client.example, 198.51.100.20'), compileTrustProxy('3'))).toBe('198.51.100.20');
});

test("Express's req.ip agrees: the same client as the limiters, and a number means what Express means by it", async () => {
  const ipOf = async (app: express.Express, forwardedFor: string) => (await supertest(app).get('/').set('X-Forwarded-For', forwardedFor)).body.ip as string;
  const ours = (trustProxy: string) => {
    const app = express();
    useClientAddress(app, compileTrustProxy(trustProxy));
    return app.get('/', (req, res) => void res.json({ ip: req.ip }));
  };
  const expressOwn = express().set('trust proxy', 2);
  expressOwn.get('/', (req, res) => void res.json({ ip: req.ip }));

  expect(await ipOf(ours('2'), '6.6.6.6, 203.0.113.5, 10.0.0.2')).toBe('203.0.113.5');
  expect(await ipOf(expressOwn, '6.6.6.6, 203.0.113.5, 10.0.0.2')).toBe('203.0.113.5');
  expect(await ipOf(ours('loopback'), 'not-an-ip')).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  expect(await ipOf(expressOwn, 'not-an-ip')).toBe('not-an-ip'); // what Express alone would have let through
});

test('a counter that cannot be written fails closed: 503 SERVICE_UNAVAILABLE with Retry-After, never a pass', async () => {
  const down = { em: { getConnection: () => ({ execute: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) }) } };
  const limiter = new AuthFailureLimiter({ orm: down as unknown as Orm, perMinute: 60, trust: compileTrustProxy(undefined), logger: createLogger('silent') });
  const err = await limiter.count('addr:203.0.113.7').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(503);
  expect((err as ApiError).headers['Retry-After']).toBe('5');
});

import type { Orm } from '../../../src/db/orm.ts';
import { ApiError } from '../../../src/domain/errors.ts';
import { AuthFailureLimiter } from '../../../src/http/address-limit.ts';
import { addressKey, compileTrustProxy } from '../../../src/http/client-address.ts';
import { createLogger } from '../../../src/logger.ts';

test('addresses: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
  expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8:1:2::9')).toBe(addressKey('2001:db8:1:2:ffff::1'));
  expect(addressKey('::1')).toBe('::/64');
});

test('TRUST_PROXY: unset trusts nobody, a number trusts that many hops, names and ranges compile', () => {
  expect(compileTrustProxy(undefined)('127.0.0.1', 0)).toBe(false);
  const twoHops = compileTrustProxy('2');
  expect([twoHops('1.2.3.4', 0), twoHops('1.2.3.4', 1), twoHops('1.2.3.4', 2)]).toEqual([true, true, false]);
  const loopback = compileTrustProxy('loopback, 10.0.0.0/8');
  expect([loopback('127.0.0.1', 0), loopback('10.1.2.3', 0), loopback('192.0.2.1', 0)]).toEqual([true, true, false]);
  expect(() => compileTrustProxy('not-an-address')).toThrow();
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

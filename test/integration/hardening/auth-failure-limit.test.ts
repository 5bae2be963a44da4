// Limits before authentication (docs/decisions.md §14): failed credentials and public token calls per client address, counted
// before any credential is looked up, shared in PostgreSQL like the tenant limit.
import { ADMIN_KEY, createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { createTenant, type TenantFixture } from '../../helpers/fixtures.ts';

const LIMIT = 5;
let t: TestApp;
let tenant: TenantFixture;
let keyLookups = 0;

/** The windows are whole minutes of the database clock: start a burst well inside one so it cannot straddle two. */
async function insideOneWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}

beforeAll(async () => {
  // Loopback (and 10/8) are the trusted proxies, so each test speaks for a client address of its own via X-Forwarded-For.
  t = await createTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'loopback, 10.0.0.0/8' });
  tenant = await createTenant(t);
  const lookup = t.services.tenants.idByApiKey.bind(t.services.tenants);
  t.services.tenants.idByApiKey = (em, key) => {
    keyLookups++;
    return lookup(em, key);
  };
}, 60_000);

afterAll(() => t?.close());

const from = (address: string) => ({ 'X-Forwarded-For': address });

test('a burst of wrong keys: LIMIT × 401, then 429 RATE_LIMITED with Retry-After, before the key is looked up', async () => {
  await insideOneWindow();
  const attacker = from('203.0.113.7');
  for (let i = 0; i < LIMIT; i++) {
    const res = await t.request.get('/api/v1/rooms').set(attacker).set('X-API-Key', `cvn_wrong_${i}`);
    expect(res.status).toBe(401);
  }
  const lookupsBefore = keyLookups;
  const refused = await t.request.get('/api/v1/rooms').set(attacker).set('X-API-Key', 'cvn_wrong_again');
  expect(refused.status).toBe(429);
  expect(refused.body.error.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(keyLookups).toBe(lookupsBefore); // refused before the database lookup

  // Every other credential of that address too, until the window ends: admin key, token, the public token call.
  expect((await t.request.post('/api/v1/tenants').set(attacker).set('X-Admin-Key', 'wrong-admin-key-123').send({ name: 'x' })).status).toBe(429);
  expect((await t.request.get('/api/v1/rooms').set(attacker).set('Authorization', 'Bearer not.a.token')).status).toBe(429);
  expect((await t.request.post('/api/v1/auth/token').set(attacker).send({ api_key: tenant.api_key })).status).toBe(429);

  // Another address with the correct key is served; so is the admin from elsewhere.
  expect((await t.request.get('/api/v1/rooms').set(from('198.51.100.9')).set(tenant.auth)).status).toBe(200);
  expect((await t.request.post('/api/v1/tenants').set(from('198.51.100.10')).set('X-Admin-Key', ADMIN_KEY).send({ name: 'y' })).status).toBe(201);
});

test('an authenticated client is not counted: many good requests, then still LIMIT failures before 429', async () => {
  await insideOneWindow();
  const client = from('192.0.2.44');
  for (let i = 0; i < 4 * LIMIT; i++) expect((await t.request.get('/api/v1/rooms').set(client).set(tenant.auth)).status).toBe(200);
  for (let i = 0; i < LIMIT; i++) expect((await t.request.get('/api/v1/rooms').set(client).set('X-API-Key', 'cvn_wrong')).status).toBe(401);
  expect((await t.request.get('/api/v1/rooms').set(client).set('X-API-Key', 'cvn_wrong')).status).toBe(429);
});

test('the public token operations count every call', async () => {
  await insideOneWindow();
  const client = from('192.0.2.99');
  for (let i = 0; i < LIMIT; i++) expect((await t.request.post('/api/v1/auth/token').set(client).send({ api_key: tenant.api_key })).status).toBe(200);
  const refused = await t.request.post('/api/v1/auth/refresh').set(client).send({ refresh_token: 'x' });
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBeDefined();
});

test('with a list of proxies, what the client prepends to X-Forwarded-For does not give it a fresh address', async () => {
  await insideOneWindow();
  // The client forges a new first entry each time; the trusted proxies (10.20.30.40, then loopback) append what they saw.
  for (let i = 0; i < LIMIT; i++) {
    const res = await t.request.get('/api/v1/rooms').set(from(`198.18.0.${i}, 203.0.113.70, 10.20.30.40`)).set('X-API-Key', 'cvn_wrong');
    expect(res.status).toBe(401);
  }
  expect((await t.request.get('/api/v1/rooms').set(from('198.18.0.99, 203.0.113.70, 10.20.30.40')).set('X-API-Key', 'cvn_wrong')).status).toBe(429);
});

/** The address keys the per-address limit has counted under, as stored. */
async function addressKeys(app: TestApp): Promise<string[]> {
  const rows: Array<{ key: string }> = await app.services.orm.em.getConnection().execute(`select key from rate_limit_windows where key like 'addr:%'`);
  return rows.map((r) => r.key);
}

describe('TRUST_PROXY as a hop count', () => {
  let behindTwo: TestApp;
  beforeAll(async () => {
    // Two proxies in front of the API: the socket's peer (loopback here) and the one it reports.
    behindTwo = await createTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '2' });
  }, 60_000);
  afterAll(() => behindTwo?.close());

  test('counted from the socket: the client is two hops in, whatever it prepended', async () => {
    await insideOneWindow();
    for (let i = 0; i < 3; i++) {
      const res = await behindTwo.request.get('/api/v1/rooms').set(from(`198.18.1.${i}, 203.0.113.60, 10.0.0.5`)).set('X-API-Key', 'cvn_wrong');
      expect(res.status).toBe(401);
    }
    expect((await behindTwo.request.get('/api/v1/rooms').set(from('198.18.1.99, 203.0.113.60, 10.0.0.5')).set('X-API-Key', 'cvn_wrong')).status).toBe(429);
    // Another client behind the same proxies has its own count.
    expect((await behindTwo.request.get('/api/v1/rooms').set(from('203.0.113.61, 10.0.0.5')).set('X-API-Key', 'cvn_wrong')).status).toBe(401);
  });

  test('a value that is not an IP address is ignored: never a key, never a fresh budget', async () => {
    await insideOneWindow();
    // The outer proxy (198.51.100.20) reported a made-up client each time: the proxy itself is counted.
    for (let i = 0; i < 3; i++) {
      const res = await behindTwo.request.get('/api/v1/rooms').set(from(`not-an-ip-${i}, 198.51.100.20`)).set('X-API-Key', 'cvn_wrong');
      expect(res.status).toBe(401);
    }
    expect((await behindTwo.request.get('/api/v1/rooms').set(from('unknown, 198.51.100.20')).set('X-API-Key', 'cvn_wrong')).status).toBe(429);
    const keys = await addressKeys(behindTwo);
    expect(keys).toContain('addr:198.51.100.20');
    expect(keys.filter((k) => !/^addr:[0-9a-f.:]+(\/64)?$/.test(k))).toEqual([]);
  });
});

describe('without TRUST_PROXY', () => {
  let direct: TestApp;
  beforeAll(async () => {
    direct = await createTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '3' });
  }, 60_000);
  afterAll(() => direct?.close());

  test('loopback is not exempt, and a forged X-Forwarded-For does not give a fresh address', async () => {
    await insideOneWindow();
    for (let i = 0; i < 3; i++) {
      const res = await direct.request.get('/api/v1/rooms').set(from(`10.0.0.${i}`)).set('X-API-Key', 'cvn_wrong');
      expect(res.status).toBe(401);
    }
    expect((await direct.request.get('/api/v1/rooms').set(from('10.0.0.200')).set('X-API-Key', 'cvn_wrong')).status).toBe(429);
    // Operations that need no credential (probes, the contract) are not limited.
    expect((await direct.request.get('/healthz')).status).toBe(200);
  });
});

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
  // Loopback is the trusted proxy here, so each test speaks for a client address of its own via X-Forwarded-For.
  t = await createTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'loopback' });
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

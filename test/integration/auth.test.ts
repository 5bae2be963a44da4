import { SignJWT, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { keyRotationPolicy, loadSigningKeys } from '../../src/db/signing-keys.ts';
import { SecretBox } from '../../src/security/secret-box.ts';
import { TokenService } from '../../src/security/tokens.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let tenant: { id: string; api_key: string };
beforeAll(async () => {
  t = await createTestApp();
  tenant = (await t.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name: 'Auth Co' })).body.data;
});
afterAll(async () => {
  await t.close();
});

const getTenant = (token: string) => t.request.get(`/api/v1/tenants/${tenant.id}`).set('Authorization', `Bearer ${token}`);
const login = async () => (await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key }).expect(200)).body.data;

test('POST /auth/token returns a token set that verifies against the published JWKS', async () => {
  const res = await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key });
  expect(res.status).toBe(200);
  const set = res.body.data;
  expect(set).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
  const header = decodeProtectedHeader(set.access_token);
  expect(header.alg).toBe('EdDSA');
  expect(header.kid).toEqual(expect.any(String));

  const jwks = await t.request.get('/api/v1/.well-known/jwks.json');
  expect(jwks.status).toBe(200);
  expect(JSON.stringify(jwks.body)).not.toMatch(/"d"\s*:/); // never the private half
  const keySet = createLocalJWKSet(jwks.body);
  const { payload } = await jwtVerify(set.access_token, keySet, { issuer: 'convene', audience: 'convene-api', algorithms: ['EdDSA'] });
  expect(payload).toMatchObject({ typ: 'access', sub: tenant.id, tenant_id: tenant.id });
  expect(payload.exp! - payload.iat!).toBe(900);
  expect(payload.jti).toEqual(expect.any(String));
  const refresh = await jwtVerify(set.refresh_token, keySet, { algorithms: ['EdDSA'] });
  expect(refresh.payload.typ).toBe('refresh');
  expect(refresh.payload.exp! - refresh.payload.iat!).toBe(30 * 86400);
});

test('a bad API key is 401 UNAUTHORIZED', async () => {
  for (const api_key of ['cvn_' + 'A'.repeat(43), 'nonsense']) {
    const res = await t.request.post('/api/v1/auth/token').send({ api_key });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.any(String), request_id: res.headers['x-request-id'] });
  }
});

test('refresh rotates the refresh token, and reuse revokes the whole family', async () => {
  const first = await login();
  const second = (await t.request.post('/api/v1/auth/refresh').send({ refresh_token: first.refresh_token }).expect(200)).body.data;
  expect(second.refresh_token).not.toBe(first.refresh_token);
  expect((await getTenant(second.access_token)).status).toBe(200);

  const reuse = await t.request.post('/api/v1/auth/refresh').send({ refresh_token: first.refresh_token });
  expect(reuse.status).toBe(401);
  expect(reuse.body.error.code).toBe('INVALID_REFRESH_TOKEN');
  // The thief may hold `second`; the family is dead, so it is refused too.
  const descendant = await t.request.post('/api/v1/auth/refresh').send({ refresh_token: second.refresh_token });
  expect(descendant.status).toBe(401);
  expect(descendant.body.error.code).toBe('INVALID_REFRESH_TOKEN');
  // Another login is another family, unaffected.
  const other = await login();
  expect((await t.request.post('/api/v1/auth/refresh').send({ refresh_token: other.refresh_token })).status).toBe(200);
});

test('two concurrent refreshes with one token: exactly one wins', async () => {
  const set = await login();
  const results = await Promise.all([1, 2, 3].map(() => t.request.post('/api/v1/auth/refresh').send({ refresh_token: set.refresh_token })));
  expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
});

test('an access token is not a refresh token, and a refresh token is not an access token', async () => {
  const set = await login();
  const asRefresh = await t.request.post('/api/v1/auth/refresh').send({ refresh_token: set.access_token });
  expect(asRefresh.body.error.code).toBe('INVALID_REFRESH_TOKEN');
  expect((await getTenant(set.refresh_token)).status).toBe(401);
});

test('an expired access token is 401 TOKEN_EXPIRED; a forged one is 401 UNAUTHORIZED', async () => {
  const keys = await loadSigningKeys(t.services.orm.em.fork(), new SecretBox(t.config.secretsKey), keyRotationPolicy(t.config.tokens));
  const past = new TokenService({ keys, issuer: 'convene', audience: 'convene-api', now: () => Date.now() - 2 * 3600_000 });
  const tenantRow = await t.services.tenants.findByApiKey(t.services.orm.em.fork(), tenant.api_key);
  const expired = await past.sign({ sub: tenant.id, tenant_id: tenant.id, typ: 'access', key_id: tenantRow!.apiKeyId }, 900);
  const res = await getTenant(expired);
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('TOKEN_EXPIRED');

  const hs256 = await new SignJWT({ typ: 'access', tenant_id: tenant.id, sub: tenant.id })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('convene')
    .setAudience('convene-api')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('guessable-secret-guessable-secret'));
  const forged = await getTenant(hs256);
  expect(forged.status).toBe(401);
  expect(forged.body.error.code).toBe('UNAUTHORIZED');

  const other = new TokenService({ keys: [{ ...(await import('../../src/security/tokens.ts').then((m) => m.generateSigningKey())) }], issuer: 'convene', audience: 'convene-api' });
  const wrongKey = await other.sign({ sub: tenant.id, tenant_id: tenant.id, typ: 'access', key_id: tenantRow!.apiKeyId }, 900);
  expect((await getTenant(wrongKey)).status).toBe(401);
});

test('expired and garbage refresh tokens are INVALID_REFRESH_TOKEN', async () => {
  for (const refresh_token of ['garbage', 'a.b.c']) {
    const res = await t.request.post('/api/v1/auth/refresh').send({ refresh_token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_REFRESH_TOKEN');
  }
});

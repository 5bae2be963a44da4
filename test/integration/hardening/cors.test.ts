// CORS (docs/decisions.md §14) as a browser sees it: preflights and actual requests from allowed and unknown origins, with and
// without credentials, on a public, an API-key and a participant operation.
import { addParticipant, bearer, createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

const LISTED = 'https://app.acme.example';
const OTHER_TENANTS = 'https://other.example';
const UNKNOWN = 'https://evil.example';
const EXPOSED = 'X-Request-Id, Retry-After, Location, RateLimit, RateLimit-Policy';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let plain: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  other = await createTenant(t, { name: 'Other' });
  plain = await createTenant(t, { name: 'No origins' });
  await patchConfig(t, acme, { allowed_origins: [LISTED] });
  await patchConfig(t, other, { allowed_origins: [OTHER_TENANTS] });
}, 60_000);

afterAll(() => t?.close());

const preflight = (path: string, origin: string, method: string, headers?: string) => {
  const req = t.request.options(path).set('Origin', origin).set('Access-Control-Request-Method', method);
  return headers ? req.set('Access-Control-Request-Headers', headers) : req;
};

describe('preflight', () => {
  test('an origin some tenant lists: 204 with the path’s methods, the requested headers among the allowed, max age', async () => {
    const res = await preflight('/api/v1/rooms/some-room', LISTED, 'GET', 'authorization, content-type, x-custom');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(LISTED);
    expect(res.headers['access-control-allow-methods']).toBe('GET, PATCH, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toMatch(/Origin/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('an operator pattern (localhost) is allowed before any tenant is known', async () => {
    const res = await preflight('/api/v1/auth/token', 'http://localhost:5173', 'POST', 'Content-Type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
  });

  test('an unknown origin: 204 without any Access-Control-Allow-* header', async () => {
    const res = await preflight('/api/v1/rooms', UNKNOWN, 'POST', 'X-API-Key');
    expect(res.status).toBe(204);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });

  test('a plain OPTIONS (no Access-Control-Request-Method) is still RFC 9110’s 204 with Allow', async () => {
    const res = await t.request.options('/api/v1/rooms').set('Origin', LISTED);
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });
});

describe('actual requests', () => {
  test('a participant’s auth_token from its tenant’s origin reads Get Room, with the headers a page may read', async () => {
    const room = await createRoom(t, acme);
    const ada = await addParticipant(t, acme, room.id);
    const res = await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(ada.auth_token)).set('Origin', LISTED);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(LISTED);
    expect(res.headers['access-control-expose-headers']).toBe(EXPOSED);
    expect(res.headers.vary).toMatch(/Origin/);
    // The rate-limit headers named in Expose-Headers are the ones actually sent.
    expect(res.headers.ratelimit).toBeDefined();
    expect(res.headers['ratelimit-policy']).toBeDefined();
  });

  test('another tenant’s origin is withdrawn once the caller is known; so is localhost for a tenant that lists origins', async () => {
    const res = await t.request.get('/api/v1/rooms').set(acme.auth).set('Origin', OTHER_TENANTS);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const local = await t.request.get('/api/v1/rooms').set(acme.auth).set('Origin', 'http://localhost:3000');
    expect(local.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('a tenant without allowed_origins gets the operator patterns, not the other tenants’ lists', async () => {
    const local = await t.request.get('/api/v1/rooms').set(plain.auth).set('Origin', 'http://127.0.0.1:8080');
    expect(local.headers['access-control-allow-origin']).toBe('http://127.0.0.1:8080');
    const listed = await t.request.get('/api/v1/rooms').set(plain.auth).set('Origin', LISTED);
    expect(listed.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('errors carry the headers too: 401 without credentials, 404 unknown route, 405', async () => {
    for (const res of [
      await t.request.get('/api/v1/rooms').set('Origin', LISTED),
      await t.request.get('/api/v1/nope').set('Origin', LISTED),
      await t.request.put('/api/v1/rooms').set('Origin', LISTED),
    ]) {
      expect([401, 404, 405]).toContain(res.status);
      expect(res.headers['access-control-allow-origin']).toBe(LISTED);
      expect(res.headers['access-control-expose-headers']).toBe(EXPOSED);
      expect(res.headers.vary).toMatch(/Origin/);
    }
  });

  test('the public pages keep Vary: Origin beside their own Vary (the docs page varies by encoding too), also on a 304', async () => {
    const docs = await t.request.get('/docs').set('Origin', LISTED).set('Accept-Encoding', 'gzip');
    expect(docs.status).toBe(200);
    expect(docs.headers['access-control-allow-origin']).toBe(LISTED);
    expect(docs.headers.vary).toMatch(/Origin/);
    expect(docs.headers.vary).toMatch(/Accept-Encoding/);
    const cached = await t.request.get('/docs').set('Origin', LISTED).set('If-None-Match', docs.headers.etag);
    expect(cached.status).toBe(304);
    expect(cached.headers.vary).toMatch(/Origin/);
    for (const path of ['/', '/docs/asyncapi', '/healthz', '/readyz', '/api/v1/openapi.yaml', '/api/v1/asyncapi.yaml']) {
      const res = await t.request.get(path).set('Origin', LISTED);
      expect({ path, vary: res.headers.vary }).toEqual({ path, vary: expect.stringMatching(/Origin/) });
    }
  });

  test('an unknown origin gets no CORS headers, whatever the credentials', async () => {
    const res = await t.request.get('/api/v1/rooms').set(acme.auth).set('Origin', UNKNOWN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
  });

  test('a config change takes effect on the next request (the cached union is refreshed)', async () => {
    const later = 'https://later.example';
    expect((await preflight('/api/v1/rooms', later, 'GET')).headers['access-control-allow-origin']).toBeUndefined();
    await patchConfig(t, plain, { allowed_origins: [later] });
    expect((await preflight('/api/v1/rooms', later, 'GET')).headers['access-control-allow-origin']).toBe(later);
    await patchConfig(t, plain, { allowed_origins: [] });
    expect((await preflight('/api/v1/rooms', later, 'GET')).headers['access-control-allow-origin']).toBeUndefined();
  });
});

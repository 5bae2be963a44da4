// The documentation page as a browser gets it (docs/decisions.md §1): from the service alone, compressed, cacheable;
// `/` leads there.
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

test('GET / redirects to /docs', async () => {
  const res = await t.request.get('/');
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe('/docs');
});

test('/docs is gzip-compressed, has an ETag and a cache lifetime, and a matching If-None-Match gets 304', async () => {
  const res = await t.request.get('/docs').set('Accept-Encoding', 'gzip');
  expect(res.status).toBe(200);
  expect(res.headers['content-encoding']).toBe('gzip');
  expect(res.headers.vary).toMatch(/Accept-Encoding/);
  expect(res.text).toContain('Convene'); // supertest decompresses
  const sent = Number(res.headers['content-length']);
  expect(sent).toBeLessThan(Buffer.byteLength(res.text) / 3); // measured: 2.7 MB of HTML, about 0.7 MB on the wire
  expect(res.headers['cache-control']).toBe('public, max-age=300');
  const etag = res.headers.etag;
  expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

  const again = await t.request.get('/docs').set('If-None-Match', etag);
  expect(again.status).toBe(304);
  expect(again.text ?? '').toBe('');
  expect((await t.request.get('/docs').set('If-None-Match', '"stale"')).status).toBe(200);

  const plain = await t.request.get('/docs').set('Accept-Encoding', 'identity');
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.text).toBe(res.text);
});

test('/docs asks nothing of another host: no third-party asset in the page, and its CSP allows only the service', async () => {
  const res = await t.request.get('/docs');
  // Redocly's sidebar logo came from its CDN; fonts were never linked. Links a reader may click are fine (no request).
  expect(res.text).not.toMatch(/cdn\.redoc\.ly|cdn\.redocly\.com\/redoc|fonts\.googleapis|fonts\.gstatic/);
  expect(res.text).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/i);
  const csp = res.headers['content-security-policy'];
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("img-src 'self' data:");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toMatch(/https?:|\*/);
});

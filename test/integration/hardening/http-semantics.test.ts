import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../../src/http/server.ts';
import { createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

// RFC 9110 method semantics and docs/decisions.md §3 (405 + Allow, 426 on the WebSocket endpoint), derived from the spec.
let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
});
afterAll(async () => {
  await t.close();
});

test('a method the path does not have is 405 METHOD_NOT_ALLOWED with Allow listing the spec methods', async () => {
  const res = await t.request.put('/api/v1/rooms').set(tenant.auth).send({});
  expect(res.status).toBe(405);
  expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  expect(res.body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  const onItem = await t.request.post('/api/v1/rooms/some-room').set(tenant.auth).send({});
  expect(onItem.status).toBe(405);
  expect(onItem.headers.allow).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
  // A literal segment is its own path, not an {id}: /recordings/sync has only POST.
  const literal = await t.request.get('/api/v1/rooms/r1/recordings/sync').set(tenant.auth);
  expect([literal.status, literal.headers.allow]).toEqual([405, 'POST, OPTIONS']);
  // Decided before the credentials: the answer does not depend on who asks.
  expect((await t.request.delete('/api/v1/tenants')).status).toBe(405);
  // The provider's webhook path too (its signature guard runs after).
  const hook = await t.request.get('/api/v1/webhooks/upstream/recording-ready');
  expect([hook.status, hook.headers.allow]).toEqual([405, 'POST, OPTIONS']);
  // Paths match without regard to case, as Express routes them (GET /api/v1/Rooms lists the rooms): the 405 too.
  const cased = await t.request.put('/api/v1/Rooms').set(tenant.auth).send({});
  expect([cased.status, cased.headers.allow, cased.body.error?.code]).toEqual([405, 'GET, HEAD, POST, OPTIONS', 'METHOD_NOT_ALLOWED']);
  expect((await t.request.get('/api/v1/Rooms').set(tenant.auth)).status).toBe(200);
});

test('OPTIONS answers 204 with Allow, without credentials', async () => {
  const res = await t.request.options('/api/v1/rooms/abc/participants');
  expect(res.status).toBe(204);
  expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
});

test('HEAD runs GET: same status and headers, no body', async () => {
  const get = await t.request.get('/api/v1/rooms').set(tenant.auth);
  const head = await t.request.head('/api/v1/rooms').set(tenant.auth);
  expect(head.status).toBe(200);
  expect(head.headers['content-type']).toBe(get.headers['content-type']);
  expect(head.headers['content-length']).toBe(get.headers['content-length']);
  expect(head.text).toBeUndefined();
  expect((await t.request.head('/api/v1/rooms')).status).toBe(401); // still authenticated
  expect((await t.request.head('/api/v1/auth/token')).headers.allow).toBe('POST, OPTIONS');
});

test('a plain GET /api/v1/ws is 426 UPGRADE_REQUIRED with Upgrade: websocket', async () => {
  const res = await t.request.get('/api/v1/ws');
  expect(res.status).toBe(426);
  expect(res.headers.upgrade).toBe('websocket');
  expect(res.body.error).toMatchObject({ code: 'UPGRADE_REQUIRED' });
  expect((await t.request.get('/api/v1/ws?token=abc').set('Upgrade', 'websocket')).status).toBe(426);
});

test('unknown paths stay 404', async () => {
  const res = await t.request.put('/api/v1/nothing-here');
  expect(res.status).toBe(404);
  expect(res.headers.allow).toBeUndefined();
});

test('a request Node cannot parse (bad Content-Length, a header name with a space) gets the JSON envelope, not a bare 400', async () => {
  const server = createHttpServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(request));
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
  try {
    // Found by the contract fuzzer: headers Node's parser refuses before Express ever sees the request.
    for (const header of ['Content-Length: &', 'PoDsPmc;', 'Bad Name: x']) {
      const answer = await raw(`GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`);
      const [head, body] = answer.split('\r\n\r\n');
      expect({ header, status: head.split('\r\n')[0] }).toEqual({ header, status: 'HTTP/1.1 400 Bad Request' });
      expect(head).toMatch(/\r\nContent-Type: application\/json/i);
      expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}/i);
      expect(JSON.parse(body).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: '/headers' }] });
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

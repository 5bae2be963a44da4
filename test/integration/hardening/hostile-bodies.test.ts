import { randomUUID } from 'node:crypto';
import { signUpstream } from '../../../src/security/signatures.ts';
import { createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

// docs/decisions.md §16: every request is cheap to refuse. The worst bodies under the 1 MiB limit, without credentials
// and with a tenant's key, each answered with a small 4xx listing at most 20 violations (§3). bench/hostile.ts measures
// what they cost; this checks the shape of the answer only.
let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
});
afterAll(async () => {
  await t.close();
});

/** Just under the 1 MiB body limit. */
const TARGET_BYTES = 1_040_000;
/** The largest answer accepted: 20 details of short paths and messages are well under it. */
const SMALL_ANSWER_BYTES = 8 * 1024;

/** `head` + as many comma-joined items as fit + `tail`, just under TARGET_BYTES. */
function fill(head: string, item: (i: number) => string, tail: string, target = TARGET_BYTES): string {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; size + item(i).length + 1 <= target; i++) {
    parts.push(item(i));
    size += item(i).length + 1;
  }
  return `${head}${parts.join(',')}${tail}`;
}

const roomId = randomUUID();
const depth = (TARGET_BYTES - 30) / 2;
const hostile: Array<[string, string, () => string, string]> = [
  ['array of wrong items', 'POST', () => `/api/v1/rooms/${roomId}/participants/bulk`, fill('{"participants":[', () => '1', ']}')],
  ['array of objects, each wrong twice', 'POST', () => `/api/v1/rooms/${roomId}/participants/bulk`, fill('{"participants":[', () => '{"x":1}', ']}')],
  ['unknown properties', 'POST', () => '/api/v1/rooms', fill('{"name":"r",', (i) => `"k${i}":0`, '}')],
  ['unknown properties inside a oneOf', 'PATCH', () => `/api/v1/tenants/${tenant.id}/config`, fill('{"post_meeting_webhook":{', (i) => `"k${i}":0`, '}}')],
  ['deep nesting of arrays', 'POST', () => '/api/v1/rooms', `{"name":"r","config":${'['.repeat(depth)}${']'.repeat(depth)}}`],
  ['deep nesting of objects', 'POST', () => '/api/v1/rooms', `{"name":"r",${'"a":{'.repeat(40)}${'}'.repeat(40)}}`],
  ['a long string with a pattern and a format, inside a oneOf', 'PATCH', () => `/api/v1/tenants/${tenant.id}/config`, `{"post_meeting_webhook":{"url":"https://${'a'.repeat(TARGET_BYTES - 60)}"}}`],
  ['a long name', 'POST', () => '/api/v1/rooms', `{"name":"${'a'.repeat(TARGET_BYTES - 20)}"}`],
  ['wrong items within maxItems, many violations each', 'POST', () => `/api/v1/rooms/${roomId}/participants/bulk`, JSON.stringify({ participants: Array.from({ length: 100 }, () => ({ display_name: 5, role: 'x', y: 1 })) })],
  ['many unknown query parameters', 'GET', () => `/api/v1/rooms?${Array.from({ length: 500 }, (_, i) => `q${i}=1`).join('&')}`, ''],
];

describe.each([
  ['without credentials', () => ({})],
  ['with a tenant key', () => tenant.auth],
])('%s', (_name, headers) => {
  test.each(hostile)('%s: 400 VALIDATION_ERROR, at most 20 details, a small answer', async (_what, method, path, body) => {
    const req = method === 'GET' ? t.request.get(path()) : t.request[method === 'POST' ? 'post' : 'patch'](path()).set('Content-Type', 'application/json').send(body);
    const res = await req.set(headers());
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(res.body.error.details.length).toBeGreaterThan(0);
    expect(res.body.error.details.length).toBeLessThanOrEqual(20);
    for (const detail of res.body.error.details) expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
    expect(Buffer.byteLength(res.text)).toBeLessThan(SMALL_ANSWER_BYTES);
  });

  test('a body over 1 MiB is 413', async () => {
    const res = await t.request.post('/api/v1/rooms').set(headers()).set('Content-Type', 'application/json').send(fill('{"participants":[', () => '1', ']}', 1_100_000));
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('what the answers say', () => {
  test('a body of more values than any request of the contract holds is refused before it is parsed', async () => {
    const [, , path, body] = hostile[0]!;
    const res = await t.request.post(path()).set(tenant.auth).set('Content-Type', 'application/json').send(body);
    expect(res.body.error.details).toEqual([{ path: '/body', message: 'must not hold more than 2000 values in all' }]);
  });

  test('an array over maxItems is refused on that count (its items are not validated)', async () => {
    const res = await t.request
      .post(`/api/v1/rooms/${roomId}/participants/bulk`)
      .set(tenant.auth)
      .send({ participants: Array.from({ length: 1500 }, () => 1) });
    expect(res.body.error.details).toEqual([{ path: '/body/participants', message: 'must NOT have more than 100 items' }]);
  });

  test('a few unknown fields are each named, beside the other violations (the validator runs)', async () => {
    const res = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: '', a: 1, b: 2 });
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['/body/a', '/body/b', '/body/name']);
  });

  test('more than 20 violations: 19 are listed and the last entry says more were cut', async () => {
    const [, , path, body] = hostile.find(([what]) => what.startsWith('wrong items within maxItems'))!;
    const res = await t.request.post(path()).set(tenant.auth).set('Content-Type', 'application/json').send(body);
    expect(res.body.error.details).toHaveLength(20);
    expect(res.body.error.details[0].path).toMatch(/^\/body\/participants\/0\//);
    expect(res.body.error.details[19].message).toMatch(/more violations were found/);
  });

  test('deep nesting is named at the body', async () => {
    const [, , path, body] = hostile.find(([what]) => what === 'deep nesting of arrays')!;
    const res = await t.request.post(path()).set(tenant.auth).set('Content-Type', 'application/json').send(body);
    expect(res.body.error.details).toEqual([{ path: '/body', message: 'must not nest arrays and objects deeper than 32 levels' }]);
  });

  test('a body nesting 32 levels inside an unknown field is judged by the schema, not refused for depth', async () => {
    const res = await t.request
      .post('/api/v1/rooms')
      .set(tenant.auth)
      .set('Content-Type', 'application/json')
      .send(`{"name":"r","x":${'['.repeat(31)}${']'.repeat(31)}}`);
    expect(res.body.error.details).toEqual([{ path: '/body/x', message: 'must NOT have additional properties' }]);
  });

  test('a UTF-16 body is scanned for depth as well', async () => {
    const body = Buffer.from(`{"name":"r","a":"\\"","b":${'['.repeat(40)}${']'.repeat(40)}}`, 'utf16le');
    const res = await t.request.post('/api/v1/rooms').set(tenant.auth).set('Content-Type', 'application/json; charset=utf-16le').send(body);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: '/body' }] });
  });

  test("the provider's signed webhook is held to the same depth", async () => {
    const body = `{"event":${'['.repeat(40)}${']'.repeat(40)}}`;
    const res = await t.request
      .post('/api/v1/webhooks/upstream/recording-ready')
      .set('Content-Type', 'application/json')
      .set('X-Upstream-Signature', signUpstream(t.config.upstream.webhookSecret, body))
      .send(body);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: '/body' }] });
  });
});

test('no request above answered 5xx (the app logged no failed request)', () => {
  expect(t.logs()).not.toContain('request failed');
});

import { createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../../helpers/test-app.ts';

// docs/decisions.md §3: input no schema forbids (U+0000, numbers beyond range) is a 400 naming the field, never a 500.
let t: TestApp;
let tenant: TenantFixture;
let roomId: string;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
  roomId = (await createRoom(t, tenant)).id;
});
afterAll(async () => {
  await t.close();
});

const NUL = 'a\u0000b';

function expectRefused(res: { status: number; body: any }, ...paths: string[]) {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(paths);
}

describe('U+0000 anywhere is 400 VALIDATION_ERROR naming the field', () => {
  test('tenant name', async () => {
    expectRefused(await t.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name: NUL }), '/body/name');
  });
  test('room name', async () => {
    expectRefused(await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: NUL }), '/body/name');
  });
  test('display name and external user id', async () => {
    const path = `/api/v1/rooms/${roomId}/participants`;
    expectRefused(await t.request.post(path).set(tenant.auth).send({ display_name: NUL }), '/body/display_name');
    expectRefused(await t.request.post(path).set(tenant.auth).send({ display_name: 'Ada', external_user_id: NUL }), '/body/external_user_id');
  });
  test('bulk entries, each named by its index', async () => {
    const res = await t.request
      .post(`/api/v1/rooms/${roomId}/participants/bulk`)
      .set(tenant.auth)
      .send({ participants: [{ display_name: 'ok' }, { display_name: NUL }, { display_name: 'ok', external_user_id: NUL }] });
    expectRefused(res, '/body/participants/1/display_name', '/body/participants/2/external_user_id');
  });
  test('transcription keywords (an array inside the config)', async () => {
    const res = await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send({ transcription_keywords: ['fine', NUL] });
    expectRefused(res, '/body/transcription_keywords/1');
  });
  test('a room name in the path', async () => {
    expectRefused(await t.request.get('/api/v1/rooms/a%00b').set(tenant.auth), '/path/id');
    expectRefused(await t.request.post('/api/v1/rooms/a%00b/participants').set(tenant.auth).send({ display_name: 'Ada' }), '/path/id');
  });
  test('nothing was stored', async () => {
    const rows = await t.services.orm.em.fork().getConnection().execute('select count(*)::int as n from participants');
    expect(rows[0].n).toBe(0);
  });
});

describe('numbers beyond range are 400', () => {
  test('?limit= with 400 digits', async () => {
    expectRefused(await t.request.get(`/api/v1/rooms?limit=${'9'.repeat(400)}`).set(tenant.auth), '/query/limit');
    expectRefused(await t.request.get(`/api/v1/rooms?offset=${'9'.repeat(400)}`).set(tenant.auth), '/query/offset');
  });
  test('1e400 in a JSON body (JSON.parse makes it Infinity)', async () => {
    const res = await t.request.post('/api/v1/rooms').set(tenant.auth).set('Content-Type', 'application/json').send('{"name":"big","config":{"max_participants":1e400}}');
    expectRefused(res, '/body/config/max_participants');
  });
  test('a merely large number is the schema range error', async () => {
    const res = await t.request.get(`/api/v1/rooms?limit=${'9'.repeat(20)}`).set(tenant.auth);
    expectRefused(res, '/query/limit');
    expect(res.body.error.details[0].message).toBe('must be <= 100');
  });
});

describe('every violated field is named, also through oneOf / nullable schemas', () => {
  test('a post_meeting_webhook without url names /body/post_meeting_webhook/url', async () => {
    const res = await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send({ post_meeting_webhook: { enabled: true, secret: 'whsec_0123456789abcdef' } });
    expectRefused(res, '/body/post_meeting_webhook/url');
  });
  test('two wrong fields inside the oneOf branch: both named, without the branch noise', async () => {
    const res = await t.request
      .patch(`/api/v1/tenants/${tenant.id}/config`)
      .set(tenant.auth)
      .send({ post_meeting_webhook: { enabled: 'yes', url: 5, secret: 'whsec_0123456789abcdef' } });
    expectRefused(res, '/body/post_meeting_webhook/enabled', '/body/post_meeting_webhook/url');
  });
  test('a value that fits no branch at all still says so', async () => {
    const res = await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send({ post_meeting_webhook: 'https://example.com' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.length).toBeGreaterThan(0);
    expect(res.body.error.details.every((d: { path: string }) => d.path === '/body/post_meeting_webhook')).toBe(true);
  });
  test('several top-level violations at once', async () => {
    const res = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: '', config: { max_participants: 0 }, extra: 1 });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/body/name', '/body/config/max_participants', '/body/extra']));
  });
});

test('no request above answered 5xx (the app logged no failed request)', () => {
  expect(t.logs()).not.toContain('request failed');
});

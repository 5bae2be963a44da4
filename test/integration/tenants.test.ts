import { createHash } from 'node:crypto';
import { TenantSchema } from '../../src/modules/tenants/tenant.entity.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  // A self-hosted Whisper server: usable without a key, so languages can be checked against a provider.
  t = await createTestApp({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
});
afterAll(async () => {
  await t.close();
});

const admin = { 'X-Admin-Key': ADMIN_KEY };

async function createTenant(body: Record<string, unknown> = { name: 'Acme' }) {
  const res = await t.request.post('/api/v1/tenants').set(admin).send(body);
  expect(res.status).toBe(201);
  return res.body.data as { id: string; api_key: string; name: string };
}

async function tenantRow(id: string) {
  const rows = await t.services.orm.em.fork().getConnection().execute('select * from tenants where id = ?', [id]);
  return rows[0];
}

describe('create tenant', () => {
  test('needs the admin key', async () => {
    const none = await t.request.post('/api/v1/tenants').send({ name: 'x' });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    const wrong = await t.request.post('/api/v1/tenants').set('X-Admin-Key', 'wrong-admin-key-000000').send({ name: 'x' });
    expect(wrong.status).toBe(401);
  });

  test('a tenant API key cannot create tenants', async () => {
    const tenant = await createTenant();
    const res = await t.request.post('/api/v1/tenants').set('X-API-Key', tenant.api_key).send({ name: 'x' });
    expect(res.status).toBe(401);
  });

  test('returns the key once, with default limits, and stores only its hash', async () => {
    const res = await t.request.post('/api/v1/tenants').set(admin).send({ name: 'Acme Lectures' });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ name: 'Acme Lectures', max_concurrent_rooms: 100, max_participants_per_room: 10, max_recording_duration_minutes: 120 });
    expect(data.api_key).toMatch(/^cvn_[A-Za-z0-9_-]{43,}$/);
    expect(data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    const row = await tenantRow(data.id);
    expect(row.api_key_hash).toBe(createHash('sha256').update(data.api_key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(data.api_key);
  });

  test('accepts limits and refuses bad input with VALIDATION_ERROR details', async () => {
    const tenant = await createTenant({ name: 'Big', max_concurrent_rooms: 5, max_participants_per_room: 50, max_recording_duration_minutes: 30 });
    const got = await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key);
    expect(got.body.data).toMatchObject({ max_concurrent_rooms: 5, max_participants_per_room: 50, max_recording_duration_minutes: 30 });

    for (const body of [{}, { name: '' }, { name: 'x', max_concurrent_rooms: 0 }, { name: 'x', extra: true }, { name: 12 }]) {
      const res = await t.request.post('/api/v1/tenants').set(admin).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.length).toBeGreaterThan(0);
      expect(res.body.error.details[0].path).toEqual(expect.any(String));
    }
  });

  test('answers 403 when no ADMIN_API_KEY is configured', async () => {
    const bare = await createTestApp({ ADMIN_API_KEY: undefined });
    try {
      const res = await bare.request.post('/api/v1/tenants').set('X-Admin-Key', 'anything-at-all-123').send({ name: 'x' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    } finally {
      await bare.close();
    }
  });
});

describe('get, update, delete', () => {
  test('a tenant reads its own data, with config defaults, by key or by bearer token', async () => {
    const tenant = await createTenant();
    const byKey = await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key);
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.config).toEqual({
      force_recording: false,
      auto_start_recording: false,
      allow_early_join: true,
      empty_room_timeout_minutes: 30,
      recording_retention_days: 30,
      duplicate_participant_policy: 'reject',
      transcription_enabled: true,
      transcription_language: 'en-US',
      transcription_profanity_filter: false,
      transcription_keywords: [],
      allowed_origins: [],
      post_meeting_webhook: null,
    });
    expect(byKey.body.data.api_key).toBeUndefined();
    const token = await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key });
    const byToken = await t.request.get(`/api/v1/tenants/${tenant.id}`).set('Authorization', `Bearer ${token.body.data.access_token}`);
    expect(byToken.status).toBe(200);
    expect(byToken.body.data.id).toBe(tenant.id);
  });

  test('a tenant changes its name; limits need the admin key', async () => {
    const tenant = await createTenant();
    const renamed = await t.request.patch(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key).send({ name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: tenant.id, name: 'Renamed', max_concurrent_rooms: 100 });
    expect(Date.parse(renamed.body.data.updated_at)).not.toBeNaN();

    const selfRaise = await t.request.patch(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key).send({ max_concurrent_rooms: 1000 });
    expect(selfRaise.status).toBe(403);
    expect((await tenantRow(tenant.id)).max_concurrent_rooms).toBe(100);

    const byAdmin = await t.request.patch(`/api/v1/tenants/${tenant.id}`).set(admin).send({ max_concurrent_rooms: 1000 });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data.max_concurrent_rooms).toBe(1000);
    expect(byAdmin.body.data.name).toBe('Renamed');
  });

  test('one key sent in both headers (as generated clients do) is taken for what it is (docs/decisions.md §12)', async () => {
    const tenant = await createTenant();
    const both = (key: string) => ({ 'X-API-Key': key, 'X-Admin-Key': key });
    const renamed = await t.request.patch(`/api/v1/tenants/${tenant.id}`).set(both(tenant.api_key)).send({ name: 'Echo' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('Echo');
    const selfRaise = await t.request.patch(`/api/v1/tenants/${tenant.id}`).set(both(tenant.api_key)).send({ max_concurrent_rooms: 1000 });
    expect(selfRaise.status).toBe(403);

    const byAdmin = await t.request.patch(`/api/v1/tenants/${tenant.id}`).set(both(ADMIN_KEY)).send({ max_concurrent_rooms: 7 });
    expect(byAdmin.status).toBe(200);
    expect((await tenantRow(tenant.id)).max_concurrent_rooms).toBe(7);

    // Two different keys stay strict: a wrong admin key beside a valid tenant key is refused.
    const wrongAdmin = await t.request
      .patch(`/api/v1/tenants/${tenant.id}`)
      .set({ 'X-API-Key': tenant.api_key, 'X-Admin-Key': 'wrong-admin-key-000000' })
      .send({ name: 'Nope' });
    expect(wrongAdmin.status).toBe(401);
  });

  test('delete removes the tenant and everything it owns', async () => {
    const tenant = await createTenant();
    await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key }).expect(200);
    const res = await t.request.delete(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: tenant.id, deleted: true });
    expect(await tenantRow(tenant.id)).toBeUndefined();
    const tokens = await t.services.orm.em.fork().getConnection().execute('select count(*)::int as n from refresh_tokens where tenant_id = ?', [tenant.id]);
    expect(tokens[0].n).toBe(0);
    const after = await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key);
    expect(after.status).toBe(401);
  });
});

describe('tenant isolation', () => {
  test("every tenant route refuses another tenant's key with 403 and changes nothing", async () => {
    const a = await createTenant({ name: 'A' });
    const b = await createTenant({ name: 'B' });
    const asA = { 'X-API-Key': a.api_key };
    const before = await tenantRow(b.id);
    const calls = [
      t.request.get(`/api/v1/tenants/${b.id}`).set(asA),
      t.request.patch(`/api/v1/tenants/${b.id}`).set(asA).send({ name: 'pwned' }),
      t.request.delete(`/api/v1/tenants/${b.id}`).set(asA),
      t.request.post(`/api/v1/tenants/${b.id}/rotate-key`).set(asA),
      t.request.patch(`/api/v1/tenants/${b.id}/config`).set(asA).send({ force_recording: true }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(JSON.stringify(res.body)).not.toContain('"B"');
    }
    expect(await tenantRow(b.id)).toEqual(before);
  });
});

describe('rotate key', () => {
  test('the old key and every token issued from it stop working', async () => {
    const tenant = await createTenant();
    const tokens = (await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key })).body.data;
    const rotated = await t.request.post(`/api/v1/tenants/${tenant.id}/rotate-key`).set('X-API-Key', tenant.api_key);
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.data.api_key;
    expect(newKey).toMatch(/^cvn_/);
    expect(newKey).not.toBe(tenant.api_key);

    expect((await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key)).status).toBe(401);
    expect((await t.request.get(`/api/v1/tenants/${tenant.id}`).set('Authorization', `Bearer ${tokens.access_token}`)).status).toBe(401);
    const refresh = await t.request.post('/api/v1/auth/refresh').send({ refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(401);
    expect(refresh.body.error.code).toBe('INVALID_REFRESH_TOKEN');
    expect((await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key })).status).toBe(401);
    expect((await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', newKey)).status).toBe(200);
  });
});

describe('config merge-patch', () => {
  let tenant: { id: string; api_key: string };
  beforeAll(async () => {
    tenant = await createTenant();
  });
  const patch = (body: unknown) => t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set('X-API-Key', tenant.api_key).send(body as object);

  test('changes only the provided fields', async () => {
    const first = await patch({ force_recording: true, transcription_keywords: ['Convene'] });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id: tenant.id, config: { force_recording: true, transcription_keywords: ['Convene'] } });
    const second = await patch({ empty_room_timeout_minutes: 5 });
    expect(second.body.data.config).toMatchObject({ force_recording: true, transcription_keywords: ['Convene'], empty_room_timeout_minutes: 5, allow_early_join: true });
    expect(Date.parse(second.body.data.updated_at)).not.toBeNaN();
  });

  test.each([
    ['too many origins', { allowed_origins: Array.from({ length: 21 }, (_, i) => `https://o${i}.example.com`) }],
    ['an origin that is not http(s)', { allowed_origins: ['ftp://example.com'] }],
    ['a wildcard origin', { allowed_origins: ['https://*.example.com'] }],
    ['a wildcard on a non-local host', { allowed_origins: ['http://example.com:*'] }],
    ['an origin with a path', { allowed_origins: ['https://example.com/app'] }],
    ['a policy outside the enum', { duplicate_participant_policy: 'kick' }],
    ['a timeout of 0', { empty_room_timeout_minutes: 0 }],
    ['a timeout over a day', { empty_room_timeout_minutes: 1441 }],
    ['a retention of 3651 days', { recording_retention_days: 3651 }],
    ['an unknown field', { colour: 'blue' }],
    ['a malformed language tag', { transcription_language: 'english!' }],
    ['a language no provider supports', { transcription_language: 'tlh' }],
    ['a wrong type', { force_recording: 'yes' }],
    ['a webhook without a secret', { post_meeting_webhook: { enabled: true, url: 'https://hooks.example.com/x' } }],
    ['a webhook url that is not a URL', { post_meeting_webhook: { enabled: true, url: 'not a url', secret: 'whsec_0123456789abcdef' } }],
    ['an ai model without a vendor', { post_meeting_webhook: { enabled: true, url: 'https://h.example.com', secret: 'whsec_0123456789abcdef', ai: { model: 'gpt' } } }],
  ])('refuses %s with 400 VALIDATION_ERROR and keeps the config', async (_name, body) => {
    const before = (await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key)).body.data.config;
    const res = await patch(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details[0].path).toEqual(expect.any(String));
    const after = (await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key)).body.data.config;
    expect(after).toEqual(before);
  });

  test('accepts the localhost wildcards and canonicalises the language', async () => {
    const res = await patch({ allowed_origins: ['http://localhost:*', 'http://127.0.0.1:*', 'https://app.example.com'], transcription_language: 'fr-ca' });
    expect(res.status).toBe(200);
    expect(res.body.data.config.allowed_origins).toHaveLength(3);
    expect(res.body.data.config.transcription_language).toBe('fr-CA');
  });

  test('webhook secrets are encrypted at rest, masked in responses, and kept when a patch leaves them out', async () => {
    const secret = 'whsec_live_5a1b2c3d4e5f6a7b';
    const providerKey = 'sk-tenant-own-provider-key-9876';
    const res = await patch({
      post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', secret, include_summary: true, ai: { provider: 'openai-compatible', api_key: providerKey, model: 'openai/gpt-4o-mini' } },
    });
    expect(res.status).toBe(200);
    const shown = res.body.data.config.post_meeting_webhook;
    expect(shown.secret).toBe('****6a7b');
    expect(shown.ai.api_key).toBe('****9876');
    expect(JSON.stringify(res.body)).not.toContain(secret);

    const row = await tenantRow(tenant.id);
    expect(JSON.stringify(row.config)).not.toContain(secret);
    expect(JSON.stringify(row.config)).not.toContain(providerKey);

    expect(shown).toMatchObject({ include_recording: false, include_transcript: false, include_summary: true, include_action_items: false });
    // A later patch that does not mention the secrets keeps them.
    const roundTrip = await patch({ post_meeting_webhook: { include_transcript: true } });
    expect(roundTrip.status).toBe(200);
    const entity = await t.services.orm.em.fork().findOneOrFail(TenantSchema, { id: tenant.id });
    const effective = t.services.tenants.effectiveConfig(entity);
    expect(effective.post_meeting_webhook).toMatchObject({ secret, include_transcript: true, ai: { api_key: providerKey } });

    const cleared = await patch({ post_meeting_webhook: null });
    expect(cleared.body.data.config.post_meeting_webhook).toBeNull();
  });

  test('in production a webhook must be https to a public address', async () => {
    const prod = await createTestApp({ NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), UPSTREAM_WEBHOOK_SECRET: 'x'.repeat(20), VALIDATE_RESPONSES: 'true' });
    try {
      const created = (await prod.request.post('/api/v1/tenants').set(admin).send({ name: 'P' })).body.data;
      const send = (url: string) =>
        prod.request.patch(`/api/v1/tenants/${created.id}/config`).set('X-API-Key', created.api_key).send({ post_meeting_webhook: { enabled: true, url, secret: 'whsec_0123456789abcdef' } });
      for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://10.0.0.8/x', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://localhost/x']) {
        const res = await send(url);
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
        expect(res.body.error.details[0].path).toBe('/body/post_meeting_webhook/url');
      }
    } finally {
      await prod.close();
    }
  });
});

test('no secret reaches the logs', async () => {
  const tenant = await createTenant();
  await t.request.get(`/api/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.api_key);
  const tokens = (await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key })).body.data;
  await t.request.get(`/api/v1/tenants/${tenant.id}`).set('Authorization', `Bearer ${tokens.access_token}`);
  await t.request.post('/api/v1/tenants').set(admin).send({ name: 'logged' });
  const logs = t.logs();
  expect(logs).toContain('"path":"/api/v1/tenants');
  for (const secret of [tenant.api_key, tokens.access_token, tokens.refresh_token, ADMIN_KEY]) expect(logs).not.toContain(secret);
});

// No secret in logs or error bodies (docs/security.md, "Secrets"; extends tenants.test.ts "no secret reaches the logs"
// to every secret we hold or receive): tenant API keys, the admin key, tenant and participant tokens (access, auth,
// refresh), webhook secrets and provider api_keys, the upstream webhook secret and S3 keys. Secrets are also sent where
// they do not belong (wrong keys, broken tokens, invalid config) to check that refusals never echo them.
import { addParticipant, createRoom, createTenant } from '../../helpers/fixtures.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

test('no secret we hold or receive appears in any log line or any response body but the one that issues it', async () => {
  const bodies: string[] = [];
  const keep = <R extends { text: string }>(res: R) => (bodies.push(res.text ?? ''), res);

  const tenant = await createTenant(t);
  const tokens = (await t.request.post('/api/v1/auth/token').send({ api_key: tenant.api_key })).body.data;
  const room = await createRoom(t, tenant);
  const participant = await addParticipant(t, tenant, room.id, { role: 'host' });

  const webhookSecret = 'whsec_hardening_6f1e2d3c4b5a6978';
  const aiKey = 'sk-hardening-ai-key-0a9b8c7d6e5f';
  const transcriptionKey = 'tr-hardening-transcription-key-1234abcd';
  const config = {
    post_meeting_webhook: {
      enabled: true,
      url: 'http://127.0.0.1:9/hook', // no DNS in tests; production would require https to a public address
      secret: webhookSecret,
      transcription: { provider: 'deepgram', api_key: transcriptionKey },
      ai: { provider: 'openai-compatible', api_key: aiKey, model: 'openai/gpt-4o-mini' },
    },
  };
  const patched = keep(await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send(config));
  expect([patched.status, patched.body.error]).toEqual([200, undefined]);
  keep(await t.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth));

  // Refusals that carry secrets in the request: wrong places, broken values, invalid bodies.
  const wrongKey = 'cvn_hardening_wrong_key_000000000000000000000000';
  keep(await t.request.get('/api/v1/rooms').set('X-API-Key', wrongKey));
  keep(await t.request.get('/api/v1/rooms').set('X-Admin-Key', `${ADMIN_KEY}x`));
  keep(await t.request.get('/api/v1/rooms').set('Authorization', `Bearer ${tokens.access_token}broken`));
  keep(await t.request.get('/api/v1/rooms').set('Authorization', `Bearer ${participant.access_token}`)); // access token: WebSocket only
  keep(await t.request.post('/api/v1/auth/refresh').send({ refresh_token: `${tokens.refresh_token}x` }));
  keep(await t.request.post('/api/v1/auth/token').send({ api_key: wrongKey }));
  keep(await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send({ post_meeting_webhook: { ...config.post_meeting_webhook, url: 'not a url' } }));
  keep(await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send({ post_meeting_webhook: { ...config.post_meeting_webhook, secret: 5 } }));
  keep(await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send({ post_meeting_webhook: { ...config.post_meeting_webhook, ai: { api_key: aiKey, model: 'gpt' } } }));
  keep(await t.request.get(`/api/v1/ws?token=${participant.access_token}`)); // a plain GET: 426, the query is not logged
  keep(await t.request.post('/api/v1/webhooks/upstream/recording-ready').set('X-Upstream-Signature', `sha256=${webhookSecret}`).send({}));
  // Refreshing rotates: the old refresh token, presented again, is refused (and revokes the family).
  keep(await t.request.post('/api/v1/auth/refresh').send({ refresh_token: participant.refresh_token }));
  keep(await t.request.post('/api/v1/auth/refresh').send({ refresh_token: participant.refresh_token }));

  const secrets = {
    tenantApiKey: tenant.api_key,
    wrongKey,
    adminKey: ADMIN_KEY,
    tenantAccess: tokens.access_token,
    tenantRefresh: tokens.refresh_token,
    participantAccess: participant.access_token,
    participantAuth: participant.auth_token,
    participantRefresh: participant.refresh_token,
    webhookSecret,
    aiKey,
    transcriptionKey,
    upstreamWebhookSecret: t.config.upstream.webhookSecret,
    s3SecretKey: t.config.s3.secretAccessKey,
  };
  const logs = t.logs();
  expect(logs).toContain('"path":"/api/v1/auth/refresh"'); // the requests above were logged
  for (const [name, secret] of Object.entries(secrets)) {
    expect({ name, inLogs: logs.includes(secret) }).toEqual({ name, inLogs: false });
    bodies.forEach((body, i) => expect({ name, response: i, echoed: body.includes(secret) }).toEqual({ name, response: i, echoed: false }));
  }
});

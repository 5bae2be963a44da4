// docs/decisions.md §4: a config read (Get Tenant) and sent back whole (Update Tenant Config, the one operation that
// changes a config) changes no secret; a value that looks like a mask but is not the one shown is a 400 naming the field.
import { TenantSchema } from '../../../src/modules/tenants/tenant.entity.ts';
import { createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

// A self-hosted Whisper server (usable without a key); the tenant brings its own Deepgram and AI keys.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
});
afterAll(() => t?.close());

const SECRETS = {
  webhook: 'whsec_round_trip_secret_0001',
  transcription: 'dg-tenant-key-0001',
  // Shorter than 8 characters: shown as `********`.
  ai: 'sk-tiny',
};
const CONFIG = {
  recording_retention_days: 90,
  post_meeting_webhook: {
    enabled: true,
    url: 'http://127.0.0.1:9/hook',
    secret: SECRETS.webhook,
    include_recording: true,
    transcription: { provider: 'deepgram', api_key: SECRETS.transcription },
    ai: { provider: 'openai-compatible', api_key: SECRETS.ai, model: 'openai/gpt-4o-mini' },
  },
};

const readConfig = async (tenant: TenantFixture) => (await t.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth).expect(200)).body.data.config;
const sendConfig = (tenant: TenantFixture, body: object) => t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send(body);
/** The secrets as stored: the row's sealed values, opened. */
async function storedSecrets(tenant: TenantFixture) {
  const row = (await t.services.orm.em.fork().findOne(TenantSchema, { id: tenant.id }))!;
  const hook = t.services.tenants.effectiveConfig(row).post_meeting_webhook!;
  return { webhook: hook.secret, transcription: hook.transcription?.api_key, ai: hook.ai?.api_key };
}

describe('a config read and sent back whole', () => {
  test('keeps every secret, also with another field changed, and shows the same masks', async () => {
    const tenant = await createTenant(t);
    await patchConfig(t, tenant, CONFIG);
    const read = await readConfig(tenant);
    expect(read.post_meeting_webhook).toMatchObject({ secret: '****0001', transcription: { api_key: '****0001' }, ai: { api_key: '********' } });

    const sent = await sendConfig(tenant, read);
    expect(sent.status).toBe(200);
    expect(sent.body.data.config).toEqual(read);
    expect(await storedSecrets(tenant)).toEqual(SECRETS);

    const edited = await sendConfig(tenant, { ...read, recording_retention_days: 120, post_meeting_webhook: { ...read.post_meeting_webhook, include_summary: true } });
    expect(edited.status).toBe(200);
    expect(edited.body.data.config).toMatchObject({ recording_retention_days: 120, post_meeting_webhook: { include_summary: true } });
    expect(await storedSecrets(tenant)).toEqual(SECRETS);
  });

  test('a new secret beside the masks replaces only its own field', async () => {
    const tenant = await createTenant(t);
    await patchConfig(t, tenant, CONFIG);
    const read = await readConfig(tenant);
    const res = await sendConfig(tenant, { ...read, post_meeting_webhook: { ...read.post_meeting_webhook, secret: 'whsec_rotated_secret_0002' } });
    expect(res.status).toBe(200);
    expect(res.body.data.config.post_meeting_webhook.secret).toBe('****0002');
    expect(await storedSecrets(tenant)).toEqual({ ...SECRETS, webhook: 'whsec_rotated_secret_0002' });
  });
});

describe('a mask that is not the one shown', () => {
  let tenant: TenantFixture;
  beforeAll(async () => {
    tenant = await createTenant(t);
    await patchConfig(t, tenant, CONFIG);
  });

  test.each([
    ['the webhook secret', { secret: '****zzzz' }, '/body/post_meeting_webhook/secret'],
    ['the webhook secret, masked longer than a mask', { secret: `****${'z'.repeat(20)}` }, '/body/post_meeting_webhook/secret'],
    ['the transcription key', { transcription: { provider: 'deepgram', api_key: '****zzzz' } }, '/body/post_meeting_webhook/transcription/api_key'],
    ['the AI key (shown as ********)', { ai: { api_key: '****0001' } }, '/body/post_meeting_webhook/ai/api_key'],
  ])('is refused for %s: 400 VALIDATION_ERROR naming the field, nothing stored', async (_name, hook, path) => {
    const before = await readConfig(tenant);
    const res = await sendConfig(tenant, { post_meeting_webhook: hook });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path })] });
    expect(await readConfig(tenant)).toEqual(before);
    expect(await storedSecrets(tenant)).toEqual(SECRETS);
  });

  test('is refused where no secret is stored yet', async () => {
    const fresh = await createTenant(t);
    const res = await sendConfig(fresh, { post_meeting_webhook: { ...CONFIG.post_meeting_webhook, secret: '****0001', transcription: undefined, ai: undefined } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: '/body/post_meeting_webhook/secret' })] });
    expect((await readConfig(fresh)).post_meeting_webhook).toBeNull();
  });
});

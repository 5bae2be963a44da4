// docs/decisions.md §9 "The tenant's choice holds": a transcription or AI provider this deployment cannot serve is refused when
// the config is saved (400 naming the field); `transcription_language` is checked against the providers the tenant
// will use here, not every vendor; and when the chosen provider becomes unusable later (the operator removed its key),
// post-meeting records `transcription_failed` naming it instead of sending the audio to another provider.
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig } from '../../src/config.ts';
import { PostMeetingResultSchema } from '../../src/modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../../src/modules/recordings/recording.entity.ts';
import { TranscriptSchema } from '../../src/modules/transcripts/transcript.entity.ts';
import { createProviderRegistry } from '../../src/providers/registry.ts';
import { recordingObjectKey } from '../../src/storage/keys.ts';
import { testActivities } from '../helpers/activities.ts';
import { createRoom, createTenant, patchConfig, type TenantFixture } from '../helpers/fixtures.ts';
import { storeReadyRecording } from '../helpers/stored-recording.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// A self-hosted Whisper server (usable without a key) and, in `withDeepgram`, the operator's Deepgram key. The AI's
// base URL is OpenAI's own service with no operator key: openai-compatible needs the tenant's key there.
const SELF_HOSTED = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
let t: TestApp;
let withDeepgram: TestApp;
beforeAll(async () => {
  t = await createTestApp(SELF_HOSTED);
  withDeepgram = await createTestApp({ ...SELF_HOSTED, DEEPGRAM_API_KEY: 'dg-operator-key-0001' });
});
afterAll(async () => {
  await t?.close();
  await withDeepgram?.close();
});

const HOOK = { enabled: false, url: 'http://127.0.0.1:9/hook', secret: 'whsec_0123456789abcdef' };

async function patch(app: TestApp, tenant: TenantFixture, body: Record<string, unknown>) {
  return app.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send(body);
}

describe('saving the config', () => {
  let tenant: TenantFixture;
  beforeAll(async () => {
    tenant = await createTenant(t);
  });

  test.each([
    ['a transcription provider without a key here', { post_meeting_webhook: { ...HOOK, transcription: { provider: 'deepgram' } } }, '/body/post_meeting_webhook/transcription/provider', '"deepgram"'],
    ['an AI provider without a key here', { post_meeting_webhook: { ...HOOK, ai: { provider: 'openai-compatible' } } }, '/body/post_meeting_webhook/ai/provider', '"openai-compatible"'],
    ['a language only an unusable provider supports', { transcription_language: 'de-CH' }, '/body/transcription_language', 'openai'],
  ])('refuses %s with 400 naming the field, and keeps the config', async (_name, body, path, named) => {
    const before = (await t.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth)).body.data.config;
    const res = await patch(t, tenant, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path }] });
    expect(res.body.error.details[0].message ?? res.body.error.message).toContain(named);
    expect((await t.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth)).body.data.config).toEqual(before);
  });

  test("the tenant's own key makes its provider usable; the language is then checked against that provider", async () => {
    expect((await patch(t, tenant, { post_meeting_webhook: { ...HOOK, transcription: { provider: 'deepgram', api_key: 'dg-tenant-key-0001' } } })).status).toBe(200);
    // Deepgram speaks Swiss German; Welsh is only OpenAI's, which this tenant does not use.
    expect((await patch(t, tenant, { transcription_language: 'de-CH' })).status).toBe(200);
    const welsh = await patch(t, tenant, { transcription_language: 'cy' });
    expect(welsh.status).toBe(400);
    expect(welsh.body.error.details[0].path).toBe('/body/transcription_language');

    expect((await patch(t, tenant, { post_meeting_webhook: { ai: { provider: 'openai-compatible', api_key: 'sk-tenant-ai-key-0001' } } })).status).toBe(200);
    expect((await patch(t, tenant, { post_meeting_webhook: { ai: { provider: 'builtin' } } })).status).toBe(200);
  });

  test('a language is checked against the usable providers, not every vendor', async () => {
    const other = await createTenant(t);
    expect((await patch(t, other, { transcription_language: 'cy' })).status).toBe(200); // openai is usable here
    expect((await patch(withDeepgram, await createTenant(withDeepgram), { transcription_language: 'de-CH' })).status).toBe(200);
  });

  test('changes that do not touch the providers are not refused for them', async () => {
    const other = await createTenant(t);
    expect((await patch(t, other, { empty_room_timeout_minutes: 7 })).status).toBe(200);
  });
});

test('a chosen provider that becomes unusable later fails the step naming it; the audio goes to no other provider', async () => {
  const tenant = await createTenant(withDeepgram);
  await patchConfig(withDeepgram, tenant, {
    post_meeting_webhook: { ...HOOK, include_transcript: true, transcription: { provider: 'deepgram' } },
  });
  const room = await createRoom(withDeepgram, tenant);

  // The operator removes the Deepgram key (a worker started without it); openai stays usable and is the default.
  const withoutDeepgram = createProviderRegistry(loadConfig({ ...SELF_HOSTED }));
  expect(withoutDeepgram.transcription.defaultId).toBe('openai');
  const later = testActivities(withDeepgram, { providers: withoutDeepgram });
  const first = await readyRecording(withDeepgram, tenant, room.id);
  await later.planPostMeeting({ recordingId: first });
  expect(await later.createPostMeetingTranscript({ recordingId: first })).toBeNull();

  const em = withDeepgram.services.orm.em.fork();
  expect(await em.count(TranscriptSchema, { recording: first })).toBe(0);
  const row = await em.findOneOrFail(PostMeetingResultSchema, { recording: first });
  expect(row.errors).toEqual([{ field: 'transcript', code: 'transcription_failed', message: expect.stringContaining('"deepgram"') }]);

  // While the key is there, the same config transcribes with deepgram.
  const now = testActivities(withDeepgram);
  const second = await readyRecording(withDeepgram, tenant, room.id);
  await now.planPostMeeting({ recordingId: second });
  const created = await now.createPostMeetingTranscript({ recordingId: second });
  expect(created).not.toBeNull();
  expect((await em.fork().findOneOrFail(TranscriptSchema, { id: created!.transcriptId })).provider).toBe('deepgram');
});

/** A ready recording with its file in S3, as ingestion leaves it. */
async function readyRecording(app: TestApp, tenant: TenantFixture, roomId: string): Promise<string> {
  return storeReadyRecording(app, { tenantId: tenant.id, roomId, body: Buffer.from('RIFF....WAVE'), durationSeconds: 1 });
}

// The five transcription operations and post-meeting processing, end to end: the real app, the development media
// server (the `openai` provider: it transcribes the meetings it generated, with speakers), a real worker process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PostMeetingResultSchema } from '../../../src/modules/post-meeting/post-meeting-result.entity.ts';
import { TranscriptSchema } from '../../../src/modules/transcripts/transcript.entity.ts';
import { postMeetingWorkflowId, transcriptionWorkflowId } from '../../../workflows/shared.ts';
import { addParticipant, bearer, createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';
import { startedRun } from '../../helpers/handovers.ts';

let stack: RecordingStack;
let failingAi: Server;
let aiCalls = 0;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  // An OpenAI-compatible chat server that always answers 500: the `openai-compatible` analyser of one tenant.
  failingAi = createServer((req, res) => {
    aiCalls++;
    req.resume();
    req.on('end', () => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"model overloaded"}}'));
  });
  await new Promise<void>((resolve) => failingAi.listen(0, '127.0.0.1', resolve));
  const mediaPort = await freePort();
  stack = await createRecordingStack({
    media: { port: mediaPort, recordingSeconds: 20 },
    env: {
      OPENAI_BASE_URL: `http://127.0.0.1:${mediaPort}/v1`,
      AI_BASE_URL: `http://127.0.0.1:${(failingAi.address() as AddressInfo).port}/v1`,
      // The floor under NODE_ENV=test (10 s elsewhere): the failing analyser below is retried for 2 s of real time (its
      // second attempt, ANALYSIS_RETRY's 2 s later, is past the window), then its step is recorded as failed.
      POST_MEETING_RETRY_WINDOW: '2s',
    },
  });
  await stack.startWorker();
}, 120_000);

afterAll(async () => {
  await stack?.close();
  failingAi?.closeAllConnections();
  await new Promise<void>((resolve) => failingAi?.close(() => resolve()));
});

const WEBHOOK_OFF = {
  enabled: false,
  url: 'http://127.0.0.1:9/hook',
  secret: 'whsec_test_0123456789abcdef0123456789',
  include_transcript: true,
  include_summary: true,
  include_action_items: true,
};

/** Records a meeting in a fresh room and waits for the recording to be `ready` (ingested into S3). */
async function readyRecording(tenant: TenantFixture) {
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  const recordingId = started.body.data.id as string;
  await stack.media.settled(); // the provider has notified us: the ingestion workflow is started
  await stack.ingestionResult(recordingId);
  return { roomId: room.id as string, recordingId };
}

/** Every event of a run, payloads decoded to text. */
async function historyText(workflowId: string): Promise<string> {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  // Payload bytes come as Uint8Array or, once serialised, as base64 strings in `data` fields: both are decoded.
  return JSON.stringify(history, (key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    if (key === 'data' && typeof value === 'string') return Buffer.from(value, 'base64').toString('utf8');
    return value;
  });
}

const postMeetingResult = (recordingId: string) => stack.temporal.workflow.getHandle(postMeetingWorkflowId(recordingId)).result();
const resultRow = (recordingId: string) => stack.t.services.orm.em.fork().findOneOrFail(PostMeetingResultSchema, { recording: recordingId });

describe('a tenant with the default (builtin) analyser', () => {
  let tenant: TenantFixture;
  let other: TenantFixture;
  let roomId: string;
  let recordingId: string;

  beforeAll(async () => {
    tenant = await createTenant(stack.t);
    other = await createTenant(stack.t);
    await patchConfig(stack.t, tenant, { post_meeting_webhook: WEBHOOK_OFF });
    ({ roomId, recordingId } = await readyRecording(tenant));
  }, 120_000);

  test('a ready recording runs post-meeting: its transcript is listed for the room, the row holds summary and action items', async () => {
    const outcome = (await postMeetingResult(recordingId)) as { status: string; transcriptId: string; summarised: boolean; errors: number };
    expect(outcome).toMatchObject({ status: 'completed', summarised: true, errors: 0, deliveryId: null });

    const listed = await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200);
    expect(listed.body.data).toEqual([
      { id: outcome.transcriptId, recording_id: recordingId, status: 'completed', provider: 'openai', failure_reason: null, created_at: expect.any(String) },
    ]);
    const row = await resultRow(recordingId);
    expect(row.status).toBe('completed');
    expect(row.transcript?.id).toBe(outcome.transcriptId);
    expect(row.summary).toEqual(expect.stringMatching(/\w+/));
    expect(row.actionItems!.length).toBeGreaterThan(0);
    expect(row.errors).toEqual([]);
  }, 120_000);

  test('queue → 202 pending, then a completed transcript with segments and speakers from the provider', async () => {
    const queued = await stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(tenant.auth).send({ room_id: roomId }).expect(202);
    expect(queued.body).toEqual({ transcript_id: expect.any(String), status: 'pending' });
    const id = queued.body.transcript_id as string;
    await (await startedRun(stack.temporal, transcriptionWorkflowId(id))).result();

    const got = await stack.t.request.get(`/api/v1/transcription/${id}`).set(tenant.auth).expect(200);
    expect(got.body.data).toMatchObject({ id, recording_id: recordingId, room_id: roomId, status: 'completed', provider: 'openai' });
    const segments = got.body.data.content.segments as Array<{ start: number; end: number; text: string; speaker: string }>;
    expect(segments.length).toBeGreaterThan(1);
    expect(new Set(segments.map((s) => s.speaker)).size).toBeGreaterThan(1); // the meeting has several speakers
    for (const s of segments) expect(s.end).toBeGreaterThanOrEqual(s.start);
    expect(got.body.data.completed_at).toEqual(expect.any(String));

    const row = await stack.t.services.orm.em.fork().findOneOrFail(TranscriptSchema, { id });
    expect(row.origin).toBe('request');
    expect(row.wordCount).toBeGreaterThan(10);
    expect(row.language).toBeTruthy();

    // The recording's transcript: the newest completed one (this one), not the older post-meeting one.
    const latest = await stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(tenant.auth).expect(200);
    expect(latest.body.data.id).toBe(id);
    // A requested transcript is not a post-meeting one.
    const listed = await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).not.toContain(id);
  }, 120_000);

  test('the provider list names the usable providers and the default', async () => {
    const list = await stack.t.request.get('/api/v1/transcription/providers').set(tenant.auth).expect(200);
    expect(list.body.default_provider).toBe('openai');
    expect(list.body.providers.map((p: { id: string }) => p.id)).toEqual(['openai']); // deepgram has no key here
    expect(list.body.providers[0].supported_languages).toContain('en-US');
  });

  test('the contract failures: room mismatch, state, provider, unknown ids', async () => {
    const otherRoom = await createRoom(stack.t, tenant);
    const mismatch = await stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(tenant.auth).send({ room_id: otherRoom.id }).expect(400);
    expect(mismatch.body.error.code).toBe('VALIDATION_ERROR');

    const unknownProvider = await stack.t.request
      .post(`/api/v1/recordings/${recordingId}/transcribe`)
      .set(tenant.auth)
      .send({ room_id: roomId, provider: 'deepgram' })
      .expect(400);
    expect(unknownProvider.body.error.code).toBe('VALIDATION_ERROR');

    // A recording still in progress cannot be transcribed; nor has it a transcript yet.
    const live = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
    const started = await stack.t.request.post(`/api/v1/rooms/${live.id}/recordings/start`).set(tenant.auth).expect(201);
    const liveId = started.body.data.id as string;
    const state = await stack.t.request.post(`/api/v1/recordings/${liveId}/transcribe`).set(tenant.auth).send({ room_id: live.id }).expect(400);
    expect(state.body.error.code).toBe('INVALID_STATE');
    expect((await stack.t.request.get(`/api/v1/recordings/${liveId}/transcript`).set(tenant.auth).expect(404)).body.error.code).toBe('NOT_FOUND');
    await stack.t.request.post(`/api/v1/rooms/${live.id}/recordings/stop`).set(tenant.auth).expect(200);

    const nobody = '01931c70-1a2b-7c3d-8e4f-5a6b7c8d9e0f';
    await stack.t.request.post(`/api/v1/recordings/${nobody}/transcribe`).set(tenant.auth).send({ room_id: roomId }).expect(404);
    await stack.t.request.get(`/api/v1/recordings/${nobody}/transcript`).set(tenant.auth).expect(404);
    await stack.t.request.get(`/api/v1/transcription/${nobody}`).set(tenant.auth).expect(404);
    await stack.t.request.get(`/api/v1/rooms/${nobody}/post-meeting-transcripts`).set(tenant.auth).expect(404);
    // Nothing was left behind by the refused requests.
    expect(await stack.t.services.orm.em.fork().count(TranscriptSchema, { recording: liveId })).toBe(0);
  }, 60_000);

  test("another tenant's ids are 404 on every endpoint", async () => {
    const [transcript] = await stack.t.services.orm.em.fork().find(TranscriptSchema, { recording: recordingId });
    const notFound = async (call: Promise<{ status: number; body: { error: { code: string } } }>) => {
      const answer = await call;
      expect([answer.status, answer.body.error.code]).toEqual([404, 'NOT_FOUND']);
    };
    await notFound(stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(other.auth).send({ room_id: roomId }));
    await notFound(stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(other.auth));
    await notFound(stack.t.request.get(`/api/v1/transcription/${transcript.id}`).set(other.auth));
    await notFound(stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(other.auth));
    // The provider list has no tenant data: the other tenant sees the same deployment-wide list.
    const list = await stack.t.request.get('/api/v1/transcription/providers').set(other.auth).expect(200);
    expect(list.body.default_provider).toBe('openai');
    await stack.t.request.get('/api/v1/transcription/providers').expect(401);
  });

  test('a participant credential, even a host of the room, is refused: these operations are for the tenant', async () => {
    const host = await addParticipant(stack.t, tenant, roomId, { role: 'host' });
    const forbidden = await stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(bearer(host.auth_token)).expect(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    await stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(bearer(host.auth_token)).send({ room_id: roomId }).expect(403);
  });
});

test("a tenant's own key unlocks only the provider it belongs to: another one is refused up front, not failed later", async () => {
  // The key is for openai; the operator has no deepgram key in this stack, so deepgram is not usable for this tenant.
  const tenant = await createTenant(stack.t);
  await patchConfig(stack.t, tenant, {
    transcription_enabled: false,
    post_meeting_webhook: { ...WEBHOOK_OFF, include_transcript: false, include_summary: false, include_action_items: false, transcription: { provider: 'openai', api_key: 'sk-tenant-own-openai-key-123456' } },
  });
  const { roomId, recordingId } = await readyRecording(tenant);
  await postMeetingResult(recordingId);

  const refused = await stack.t.request
    .post(`/api/v1/recordings/${recordingId}/transcribe`)
    .set(tenant.auth)
    .send({ room_id: roomId, provider: 'deepgram' })
    .expect(400);
  expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('"deepgram"') });
  expect(await stack.t.services.orm.em.fork().count(TranscriptSchema, { recording: recordingId })).toBe(0);

  // The provider the key belongs to is accepted (and the key is the one sent: the dev server takes any).
  // room_id left out (optional: the recording's room is used).
  const queued = await stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(tenant.auth).send({}).expect(202);
  await (await startedRun(stack.temporal, transcriptionWorkflowId(queued.body.transcript_id))).result();
  const got = await stack.t.request.get(`/api/v1/transcription/${queued.body.transcript_id}`).set(tenant.auth).expect(200);
  expect(got.body.data).toMatchObject({ status: 'completed', provider: 'openai' });
}, 120_000);

test('an archived recording is transcribed from the archive bucket', async () => {
  const tenant = await createTenant(stack.t);
  await patchConfig(stack.t, tenant, { transcription_enabled: false }); // no post-meeting transcript: only ours
  const { roomId, recordingId } = await readyRecording(tenant);
  await postMeetingResult(recordingId);
  await stack.t.request.post(`/api/v1/recordings/${recordingId}/archive`).set(tenant.auth).expect(200);
  const { store } = stack.t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/`)).toEqual([]); // only the archive copy is left

  // No body at all: the recording knows its room, and the provider is the default.
  const queued = await stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(tenant.auth).expect(202);
  await (await startedRun(stack.temporal, transcriptionWorkflowId(queued.body.transcript_id))).result();
  const got = await stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(tenant.auth).expect(200);
  expect(got.body.data).toMatchObject({ id: queued.body.transcript_id, status: 'completed' });
  expect(got.body.data.content.segments.length).toBeGreaterThan(0);
  expect((await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200)).body.data).toEqual([]);
}, 120_000);

test('a failing AI provider: post-meeting still completes, the transcript is there, errors[] says ai_processing_failed', async () => {
  const tenant = await createTenant(stack.t);
  await patchConfig(stack.t, tenant, {
    post_meeting_webhook: { ...WEBHOOK_OFF, ai: { provider: 'openai-compatible', api_key: 'sk-tenant-own-key-1234567890', model: 'openai/gpt-4o-mini' } },
  });
  const { roomId, recordingId } = await readyRecording(tenant);
  const outcome = (await postMeetingResult(recordingId)) as { status: string; transcriptId: string; summarised: boolean; errors: number };
  expect(outcome).toMatchObject({ status: 'completed', summarised: false, errors: 2 });
  expect(aiCalls).toBeGreaterThan(1); // retried until the retry window ended

  const row = await resultRow(recordingId);
  expect(row.status).toBe('completed');
  expect(row.summary).toBeNull();
  expect(row.errors).toEqual([
    { field: 'summary', code: 'ai_processing_failed', message: expect.stringMatching(/retry window of 2 s ended.*500/) },
    { field: 'action_items', code: 'ai_processing_failed', message: expect.stringMatching(/retry window of 2 s ended.*500/) },
  ]);
  expect(JSON.stringify(row.errors)).not.toContain('sk-tenant-own-key');

  // docs/decisions.md §13: no key or secret in any event of the runs (inputs, results, heartbeats, failures).
  const runs: Array<[string, string]> = [
    [postMeetingWorkflowId(recordingId), 'AI provider unavailable'], // a failure message: only in decoded payloads
    [postMeetingWorkflowId(recordingId), 'wordCount'], // the transcription step's result payload (transcribed in this run)
  ];
  for (const [workflowId, marker] of runs) {
    const text = await historyText(workflowId);
    expect(text).toContain(marker); // the scan really reads the decoded payloads
    for (const secret of ['sk-tenant-own-key', WEBHOOK_OFF.secret, 'X-Amz-Signature', 'X-Amz-Credential']) expect(text).not.toContain(secret);
  }
  const listed = await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200);
  expect(listed.body.data).toEqual([expect.objectContaining({ id: outcome.transcriptId, status: 'completed' })]);
}, 180_000);

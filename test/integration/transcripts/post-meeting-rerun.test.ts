// Re-running post-meeting processing through the API (docs/decisions.md §9 "Outages and re-runs"): a partial result (the
// transcription provider refused) is turned into a complete one once the provider is back, with a second delivery;
// `failure_reason` says why a transcript failed. The real app, the development media server behind a switch (the
// `openai` provider), a real worker process, a real webhook receiver.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { TranscriptSchema } from '../../../src/modules/transcripts/transcript.entity.ts';
import { postMeetingWorkflowId } from '../../../workflows/shared.ts';
import { createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { freePort } from '../../helpers/free-port.ts';
import { startedRun } from '../../helpers/handovers.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const SECRET = 'whsec_rerun_0123456789abcdef0123456789';
/** A refusal that carries what a careless provider might echo: the signed link it was given and a key. */
const REFUSAL = '{"error":{"message":"Incorrect API key provided: sk-proj-abcdef123456; fetched https://media.example/x.wav?expires=1&sig=deadbeef"}}';

let stack: RecordingStack;
let front: Server;
let receiver: WebhookReceiver;
let tenant: TenantFixture;
let other: TenantFixture;
/** While true, the transcription provider refuses (401): a key that is wrong until the operator fixes it. */
let refusing = false;

beforeAll(async () => {
  const mediaPort = await freePort();
  front = createServer((req, res) => {
    if (refusing && req.url?.includes('/audio/transcriptions')) {
      req.resume();
      req.on('end', () => res.writeHead(401, { 'content-type': 'application/json' }).end(REFUSAL));
      return;
    }
    const upstream = httpRequest(`http://127.0.0.1:${mediaPort}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  receiver = await startWebhookReceiver(SECRET);
  stack = await createRecordingStack({
    media: { port: mediaPort, recordingSeconds: 20 },
    env: { OPENAI_BASE_URL: `http://127.0.0.1:${(front.address() as AddressInfo).port}/v1` },
  });
  await stack.startWorker();
  tenant = await createTenant(stack.t);
  other = await createTenant(stack.t);
  await patchConfig(stack.t, tenant, {
    post_meeting_webhook: { enabled: true, url: receiver.url, secret: SECRET, include_recording: true, include_transcript: true, include_summary: true, include_action_items: true },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  front?.closeAllConnections();
  await new Promise<void>((resolve) => front?.close(() => resolve()));
});

/** Records a meeting in a fresh room and waits for its first post-meeting run and that run's webhook. */
async function processedRecording() {
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  const recordingId = started.body.data.id as string;
  await stack.media.settled();
  await stack.ingestionResult(recordingId);
  await stack.temporal.workflow.getHandle(postMeetingWorkflowId(recordingId)).result();
  return { roomId: room.id as string, recordingId };
}

/** The webhooks received for a recording, oldest first. */
const webhooksOf = (recordingId: string) => receiver.received.filter((r) => r.json?.recording?.id === recordingId);

async function waitForWebhooks(recordingId: string, count: number) {
  const deadline = Date.now() + 60_000;
  while (webhooksOf(recordingId).length < count) {
    if (Date.now() > deadline) throw new Error(`${webhooksOf(recordingId).length} of ${count} webhooks for ${recordingId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return webhooksOf(recordingId);
}

test('a partial result (the provider refused) is re-run once the provider is back: a second delivery with the complete result', async () => {
  refusing = true;
  const { recordingId } = await processedRecording();
  const [first] = await waitForWebhooks(recordingId, 1);
  expect(first.signatureValid).toBe(true);
  expect(first.json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'transcript', code: 'transcription_failed' })]));
  expect(first.json.transcript ?? null).toBeNull();

  // The failed transcript says why, without the key or the signed link the provider echoed.
  const failed = await stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(tenant.auth).expect(200);
  expect(failed.body.data).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/HTTP 401/) });
  for (const leak of ['sk-proj-abcdef123456', 'sig=deadbeef', 'expires=1']) expect(failed.body.data.failure_reason).not.toContain(leak);

  refusing = false;
  const rerun = await stack.t.request.post(`/api/v1/recordings/${recordingId}/post-meeting`).set(tenant.auth).send({}).expect(202);
  expect(rerun.body).toEqual({ recording_id: recordingId, run: 2, workflow_id: postMeetingWorkflowId(recordingId, 2), status: 'started' });
  expect(rerun.body.workflow_id).toBe(`post-meeting-${recordingId}-2`);
  // Started by the hand-over relay once the request's transaction committed (docs/decisions.md §15): a moment after the 202.
  await (await startedRun(stack.temporal, rerun.body.workflow_id)).result();

  const [, second] = await waitForWebhooks(recordingId, 2);
  expect(second.signatureValid).toBe(true);
  expect(second.schemaErrors).toBeNull();
  expect(second.headers['x-convene-delivery']).not.toBe(first.headers['x-convene-delivery']); // a new delivery
  expect(second.json.errors).toBeUndefined();
  expect(second.json.transcript.segments.length).toBeGreaterThan(0);
  expect(second.json.summary).toEqual(expect.stringMatching(/\w+/));

  const completed = await stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(tenant.auth).expect(200);
  expect(completed.body.data).toMatchObject({ status: 'completed', failure_reason: null });
  const deliveries = await stack.t.request.get('/api/v1/webhook-deliveries').set(tenant.auth).expect(200);
  expect(deliveries.body.data.filter((d: { recording_id: string }) => d.recording_id === recordingId)).toHaveLength(2);

  // A completed result is no dead end either: run 3 keeps the completed transcript (no provider call)...
  const transcriptRequests = stack.media.transcriptionRequests.length;
  const third = await stack.t.request.post(`/api/v1/recordings/${recordingId}/post-meeting`).set(tenant.auth).expect(202);
  expect(third.body.run).toBe(3);
  await (await startedRun(stack.temporal, third.body.workflow_id)).result();
  await waitForWebhooks(recordingId, 3);
  expect(stack.media.transcriptionRequests.length).toBe(transcriptRequests);
  // ...and `retranscribe` asks the provider again, for a new transcript.
  const fourth = await stack.t.request.post(`/api/v1/recordings/${recordingId}/post-meeting`).set(tenant.auth).send({ retranscribe: true }).expect(202);
  await (await startedRun(stack.temporal, fourth.body.workflow_id)).result();
  const [, , , last] = await waitForWebhooks(recordingId, 4);
  expect(stack.media.transcriptionRequests.length).toBeGreaterThan(transcriptRequests);
  expect(last.json.transcript.id).not.toBe(second.json.transcript.id);
  expect(await stack.t.services.orm.em.fork().count(TranscriptSchema, { recording: recordingId, status: 'completed' })).toBe(2);
}, 240_000);

test('INVALID_STATE unless the recording is ready or archived and its last run has finished; 404 for another tenant', async () => {
  const room = await createRoom(stack.t, tenant);
  const em = stack.t.services.orm.em.fork();
  const failed = em.create(RecordingSchema, { id: uuidv7(), tenant: tenant.id, room: room.id, status: 'failed', failureReason: 'gone' });
  // Ready, but post-meeting processing has not finished (no result yet).
  const unprocessed = em.create(RecordingSchema, {
    id: uuidv7(),
    tenant: tenant.id,
    room: room.id,
    status: 'ready',
    storageTier: 'primary',
    storageBucket: stack.t.services.store.bucket,
    objectKey: `recordings/${tenant.id}/x/recording.wav`,
  });
  await em.flush();
  for (const id of [failed.id, unprocessed.id]) {
    const refused = await stack.t.request.post(`/api/v1/recordings/${id}/post-meeting`).set(tenant.auth).send({}).expect(400);
    expect(refused.body.error.code).toBe('INVALID_STATE');
  }

  const { recordingId } = await processedRecording();
  const notFound = await stack.t.request.post(`/api/v1/recordings/${recordingId}/post-meeting`).set(other.auth).send({}).expect(404);
  expect(notFound.body.error.code).toBe('NOT_FOUND');
  await stack.t.request.post(`/api/v1/recordings/${recordingId}/post-meeting`).expect(401);
  const unknownField = await stack.t.request.post(`/api/v1/recordings/${recordingId}/post-meeting`).set(tenant.auth).send({ force: true }).expect(400);
  expect(unknownField.body.error.code).toBe('VALIDATION_ERROR');
  // Nothing was started by the refused requests.
  const runs = await stack.temporal.workflow.list({ query: `WorkflowId = "${postMeetingWorkflowId(recordingId, 2)}"` });
  for await (const run of runs) throw new Error(`unexpected run ${run.workflowId}`);
}, 120_000);

test('failure_reason: null unless failed; a reason stored unredacted (an older row) is shown without link query or key', async () => {
  const { roomId, recordingId } = await processedRecording();
  const em = stack.t.services.orm.em.fork();
  const transcript = em.create(TranscriptSchema, {
    id: uuidv7(),
    tenant: tenant.id,
    room: roomId,
    recording: recordingId,
    origin: 'request',
    status: 'failed',
    provider: 'openai',
    failureReason: 'download of https://s3.example/b/k.wav?X-Amz-Signature=abc123&X-Amz-Credential=AKIA failed; key sk-live-0123456789',
    completedAt: new Date(),
  });
  await em.flush();
  const got = await stack.t.request.get(`/api/v1/transcription/${transcript.id}`).set(tenant.auth).expect(200);
  expect(got.body.data.failure_reason).toBe('download of https://s3.example/b/k.wav failed; key [redacted key]');
  const listed = await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200);
  expect(listed.body.data.map((t: { failure_reason: unknown }) => t.failure_reason)).toEqual(listed.body.data.map(() => null)); // completed ones
}, 120_000);

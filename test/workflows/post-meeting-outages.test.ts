// Post-meeting processing rides out provider outages (docs/decisions.md §9 "Outages and re-runs"): transient transcription and
// AI failures are retried with backoff capped at 5 min for POST_MEETING_RETRY_WINDOW (30 min by default) before the
// step is recorded as failed and the webhook goes out with what is available. Real activities (PostgreSQL, SeaweedFS,
// the `openai` transcription adapter and the `openai-compatible` analyser against the development media server behind
// a switchable outage), a real webhook receiver, on Temporal's time-skipping test server, so 30 minutes pass in seconds.
// One test server per test, as in ingest-outages.test.ts (a server that skipped a long time may stop skipping).
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { Handovers } from '../../src/handover/handover.ts';
import { HandoverRelay } from '../../src/handover/relay.ts';
import { createLogger } from '../../src/logger.ts';
import { PostMeetingResultSchema } from '../../src/modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../../src/modules/recordings/recording.entity.ts';
import { TranscriptSchema } from '../../src/modules/transcripts/transcript.entity.ts';
import { createProviderRegistry } from '../../src/providers/registry.ts';
import { recordingObjectKey } from '../../src/storage/keys.ts';
import { startDevMediaServer, type DevMediaServer } from '../../dev/media-server/server.ts';
import { testWorkflows } from '../helpers/workflow-bundle.ts';
import { startedRun } from '../helpers/handovers.ts';
import { createPipelineWorker, type PipelineWorker } from '../helpers/pipeline-worker.ts';
import type { PostMeetingOutcome } from '../../workflows/post-meeting.ts';
import { postMeetingWorkflowId, searchAttributesFor, webhookDeliveryWorkflowId } from '../../workflows/shared.ts';
import { testActivities } from '../helpers/activities.ts';
import { createRoom, createTenant, patchConfig, type TenantFixture } from '../helpers/fixtures.ts';
import { storeReadyRecording } from '../helpers/stored-recording.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTimeSkippingEnv, quietSdkLogs } from '../helpers/time-skipping.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const MINUTE = 60_000;
const SECRET = 'whsec_outages_0123456789abcdef0123';

let env: TestWorkflowEnvironment;
let t: TestApp;
let media: DevMediaServer;
let front: Server;
let receiver: WebhookReceiver;
let worker: PipelineWorker;
let relay: HandoverRelay | undefined;
let running: Promise<void>;
let tenant: TenantFixture;
let roomId: string;
const taskQueue = `post-meeting-outages-${randomUUID()}`;

/** How many more requests to each provider path the front answers 503 to (an outage), then passes through. */
const outage = { transcription: 0, chat: 0 };
const answered503 = { transcription: 0, chat: 0 };

/** The development media server's provider endpoints behind a switch (counted, not timed: see ingest-outages.test.ts). */
async function startFront(): Promise<Server> {
  const server = createServer((req, res) => {
    const kind = req.url?.includes('/audio/transcriptions') ? 'transcription' : req.url?.includes('/chat/completions') ? 'chat' : null;
    if (kind && outage[kind] > 0) {
      outage[kind] -= 1;
      answered503[kind] += 1;
      req.resume();
      req.on('end', () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"provider is down"}}'));
      return;
    }
    const upstream = httpRequest(`${media.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  quietSdkLogs();
  media = await startDevMediaServer({ webhookSecret: 'post-meeting-outages', autoNotify: false, processingDelayMs: 0 });
  front = await startFront();
  receiver = await startWebhookReceiver(SECRET);
  // The operator's AI key, as the worker's registry below has it: the API then accepts the tenant's choice of
  // openai-compatible (a provider this deployment cannot serve is refused when the config is saved, docs/decisions.md §9).
  // HANDOVER_POLL_MS at its maximum: the app's own relay (whose Temporal is the dev server, not this test's
  // time-skipping one) leaves the outbox to the relay below, which each commit of the worker's activities wakes.
  t = await createTestApp({ UPSTREAM_API_URL: media.url, AI_API_KEY: 'dev-ai-key', HANDOVER_POLL_MS: '60000' });
  tenant = await createTenant(t);
  roomId = (await createRoom(t, tenant, { config: { recording_enabled: true } })).id;
  await patchConfig(t, tenant, {
    post_meeting_webhook: {
      enabled: true,
      url: receiver.url,
      secret: SECRET,
      include_transcript: true,
      include_summary: true,
      include_action_items: true,
      ai: { provider: 'openai-compatible' },
    },
  });
}, 60_000);

beforeEach(async () => {
  Object.assign(outage, { transcription: 0, chat: 0 });
  Object.assign(answered503, { transcription: 0, chat: 0 });
  env = await createTimeSkippingEnv();
  const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}/v1`;
  const providers = createProviderRegistry({
    providers: {
      ...t.config.providers,
      openai: { ...t.config.providers.openai, baseUrl: base },
      ai: { ...t.config.providers.ai, baseUrl: base, apiKey: 'dev-ai-key' },
    },
  });
  // Post-meeting hands its delivery over (docs/decisions.md §15): a relay into this test's time-skipping server, on its queue.
  const handovers = new Handovers({ taskQueue });
  relay = new HandoverRelay({ orm: t.services.orm, client: env.client, handovers, logger: createLogger('silent'), pollMs: 200 });
  relay.start();
  worker = await createPipelineWorker({ connection: env.nativeConnection, taskQueue, ...testWorkflows(), activities: testActivities(t, { providers, handovers }) });
  running = worker.run();
});

afterEach(async () => {
  await relay?.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
});

afterAll(async () => {
  front?.closeAllConnections();
  front?.close();
  await receiver?.close();
  await media?.stop();
  await t?.close();
});

/** A meeting the media server generated, stored in S3 as ingestion would, and a `ready` row for it. */
async function storedRecording(): Promise<string> {
  const seeded = media.seedRecording({ meetingId: roomId, durationSeconds: 20 });
  const answer = await fetch(media.mediaUrl(seeded.id));
  const body = Buffer.from(await answer.arrayBuffer());
  return storeReadyRecording(t, { tenantId: tenant.id, roomId, body, durationSeconds: 20, upstreamRecordingId: seeded.id });
}

/** Post-meeting as ingestion starts it; resolves with its outcome and the webhook its delivery sent. */
async function postMeeting(recordingId: string) {
  const handle = await env.client.workflow.start('postMeetingWorkflow', {
    taskQueue,
    workflowId: postMeetingWorkflowId(recordingId),
    args: [{ recordingId }],
    typedSearchAttributes: searchAttributesFor({ tenantId: tenant.id, roomId, recordingId }),
  });
  const outcome = (await handle.result()) as PostMeetingOutcome;
  const spent = await workflowTimeSpent(handle);
  expect(outcome.deliveryId).toEqual(expect.any(String));
  // The delivery is handed over through the outbox: its run starts when the relay gets to it, a moment after.
  await (await startedRun(env.client, webhookDeliveryWorkflowId(outcome.deliveryId!))).result();
  const webhook = receiver.received.find((r) => r.headers['x-convene-delivery'] === outcome.deliveryId);
  expect(webhook).toBeDefined();
  expect(webhook!.signatureValid).toBe(true);
  expect(webhook!.schemaErrors).toBeNull();
  return { outcome, spent, payload: webhook!.json };
}

/** Workflow time from the run's first event to its last, read from its history (see ingest-outages.test.ts). */
async function workflowTimeSpent(handle: { fetchHistory(): Promise<{ events?: Array<{ eventTime?: { seconds?: unknown; nanos?: number | null } | null }> | null }> }) {
  const events = (await handle.fetchHistory()).events ?? [];
  const ms = (e: (typeof events)[number]) => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
  return ms(events[events.length - 1]) - ms(events[0]);
}

const resultRow = (recordingId: string) =>
  t.services.orm.em.fork().findOneOrFail(PostMeetingResultSchema, { recording: recordingId }, { populate: ['transcript'] });

test('a transcription provider down for 20 minutes, then up: the webhook carries the complete result, no errors[]', async () => {
  const recordingId = await storedRecording();
  // Backoff 10, 20, 40, 80, 160 s, then 5 min: 8 failed attempts span 1210 s; the 9th succeeds.
  outage.transcription = 8;
  const { outcome, spent, payload } = await postMeeting(recordingId);

  expect(answered503.transcription).toBe(8);
  expect(spent).toBeGreaterThanOrEqual(20 * MINUTE);
  expect(outcome).toMatchObject({ status: 'completed', summarised: true, errors: 0 });
  expect(payload.errors).toBeUndefined();
  expect(payload.transcript.segments.length).toBeGreaterThan(0);
  expect(payload.summary).toEqual(expect.stringMatching(/\w+/));
  const row = await resultRow(recordingId);
  expect(row.errors).toEqual([]);
  expect(row.transcript!.status).toBe('completed');
}, 120_000);

test('a transcription provider down past the 30 min window: the webhook goes out with errors[] saying why', async () => {
  const recordingId = await storedRecording();
  outage.transcription = Number.POSITIVE_INFINITY;
  const { outcome, spent, payload } = await postMeeting(recordingId);

  expect(spent).toBeGreaterThanOrEqual(30 * MINUTE);
  expect(spent).toBeLessThan(45 * MINUTE); // given up when the window ended, not later
  expect(outcome).toMatchObject({ status: 'completed', summarised: false, errors: 3 });
  expect(payload.transcript ?? null).toBeNull();
  expect(payload.errors).toEqual([
    { field: 'transcript', code: 'transcription_failed', message: expect.stringMatching(/retry window of 30 min ended; last failure: .*503/) },
    { field: 'summary', code: 'transcription_failed', message: 'no completed transcript to summarise' },
    { field: 'action_items', code: 'transcription_failed', message: 'no completed transcript to summarise' },
  ]);
  const transcript = await t.services.orm.em.fork().findOneOrFail(TranscriptSchema, { recording: recordingId });
  expect(transcript.status).toBe('failed');
  expect(transcript.failureReason).toMatch(/retry window of 30 min ended/);
}, 120_000);

test('an AI provider down for 20 minutes, then up: summary and action items arrive, no errors[]', async () => {
  const recordingId = await storedRecording();
  // Backoff 2, 4, 8, … 256 s, then 5 min: 11 failed attempts span 1410 s; the 12th succeeds.
  outage.chat = 11;
  const { outcome, spent, payload } = await postMeeting(recordingId);

  expect(answered503.chat).toBe(11);
  expect(spent).toBeGreaterThanOrEqual(20 * MINUTE);
  expect(outcome).toMatchObject({ status: 'completed', summarised: true, errors: 0 });
  expect(payload.errors).toBeUndefined();
  expect(payload.summary).toEqual(expect.stringMatching(/\w+/));
  expect(payload.action_items.length).toBeGreaterThan(0);
}, 120_000);

test('an AI provider down past the window: the transcript is delivered, errors[] says ai_processing_failed', async () => {
  const recordingId = await storedRecording();
  outage.chat = Number.POSITIVE_INFINITY;
  const { outcome, spent, payload } = await postMeeting(recordingId);

  expect(spent).toBeGreaterThanOrEqual(30 * MINUTE);
  expect(spent).toBeLessThan(45 * MINUTE);
  expect(outcome).toMatchObject({ status: 'completed', summarised: false, errors: 2 });
  expect(payload.transcript.segments.length).toBeGreaterThan(0);
  expect(payload.errors).toEqual([
    { field: 'summary', code: 'ai_processing_failed', message: expect.stringMatching(/retry window of 30 min ended; last failure: .*503/) },
    { field: 'action_items', code: 'ai_processing_failed', message: expect.stringMatching(/retry window of 30 min ended; last failure: .*503/) },
  ]);
}, 120_000);

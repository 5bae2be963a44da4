// Ingestion rides out provider outages (docs/decisions.md §7): transient failures are retried with capped backoff for the
// retry window while the recording stays `processing`; a permanent one, or the end of the window, fails it with the
// reason. Real activities (PostgreSQL, SeaweedFS, the development media server behind a switchable outage) on Temporal's
// time-skipping test server, so 3 hours of outage pass in a second.
// One test server per test: after a run that retried through hours of skipped time, this server stops skipping time
// for the next runs (seen with temporal-test-server 1.x), so each test gets a fresh one.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import { SHORT_OUTSIDE_STEP_TIMINGS } from '../../src/config.ts';
import { RecordingSchema, type Recording } from '../../src/modules/recordings/recording.entity.ts';
import { createHttpUpstreamAdapter } from '../../src/upstream/http-upstream-adapter.ts';
import { startDevMediaServer, type DevMediaServer } from '../../dev/media-server/server.ts';
import { testWorkflows } from '../helpers/workflow-bundle.ts';
import { recordingIngestWorkflowId, searchAttributesFor, type IngestRecordingInput, type OutsideStepTimings } from '../../workflows/shared.ts';
import { createRoom, createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { testActivities } from '../helpers/activities.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTimeSkippingEnv, quietSdkLogs } from '../helpers/time-skipping.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let env: TestWorkflowEnvironment;
let t: TestApp;
let media: DevMediaServer;
let provider: Server;
/** Accepts connections and never answers them: a stalled link. */
let silent: Server;
let silentLink: string;
let worker: Worker;
let running: Promise<void>;
let tenant: TenantFixture;
let roomId: string;
const taskQueue = `ingest-outages-${randomUUID()}`;

/** The provider's API answers 500 to this many requests before it recovers (an outage). */
let failingAnswers = 0;
let outageAnswers = 0;
/** Rewrites the provider's JSON answers (a provider that describes its file differently). */
let rewrite: (body: Record<string, unknown>) => Record<string, unknown> = (body) => body;
/** Called on each failing answer (before it is sent): lets a test look at the recording mid-outage. */
let duringOutage: () => Promise<void> = async () => {};

/**
 * The development media server's API behind a switch: while `failingAnswers` lasts it answers 500, as a provider in an
 * outage would; otherwise it passes the request through. (Counted, not timed: the test server's clock cannot be read
 * from here without stalling time skipping.)
 */
async function startProviderWithOutages(target: string): Promise<Server> {
  const server = createServer(async (req, res) => {
    if (failingAnswers > 0) {
      failingAnswers -= 1;
      outageAnswers += 1;
      await duringOutage();
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'internal', message: 'provider is down' } }));
      return;
    }
    const answer = await fetch(new URL(req.url!, target), { method: req.method, headers: { accept: 'application/json' } });
    const body = answer.ok ? JSON.stringify(rewrite((await answer.json()) as Record<string, unknown>)) : Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  quietSdkLogs();
  media = await startDevMediaServer({ webhookSecret: 'outage-test-secret', autoNotify: false, processingDelayMs: 0 });
  provider = await startProviderWithOutages(media.url);
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentLink = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  t = await createTestApp({ UPSTREAM_API_URL: media.url });
  tenant = await createTenant(t);
  roomId = (await createRoom(t, tenant, { config: { recording_enabled: true } })).id;
});

beforeEach(async () => {
  failingAnswers = 0;
  outageAnswers = 0;
  duringOutage = async () => {};
  rewrite = (body) => body;
  env = await createTimeSkippingEnv();
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...testWorkflows(),
    activities: testActivities(t, { provider: createHttpUpstreamAdapter({ baseUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}` }) }),
  });
  running = worker.run();
});

afterEach(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

afterAll(async () => {
  provider?.close();
  silent?.closeAllConnections();
  silent?.close();
  await media?.stop();
  await t?.close();
});

async function insertRecording(upstreamRecordingId: string): Promise<Recording> {
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, { id: uuidv7(), tenant: tenant.id, room: roomId, status: 'processing', upstreamRecordingId });
  await em.flush();
  return recording;
}
const reload = (id: string) => t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });

/**
 * Starts ingestion as the API does (ids only, search attributes), for a recording the provider holds; with
 * `outsideStepTimings` (workflows/shared.ts) in the input when given.
 */
function startIngestion(recording: Recording, retryWindowSeconds = DAY / 1000, outsideStepTimings?: OutsideStepTimings) {
  const input: IngestRecordingInput = {
    recordingId: recording.id,
    tenantId: tenant.id,
    roomId,
    upstreamRecordingId: recording.upstreamRecordingId!,
    retryWindowSeconds,
    ...(outsideStepTimings ? { outsideStepTimings } : {}),
  };
  return env.client.workflow.start('recordingIngestWorkflow', {
    taskQueue,
    workflowId: recordingIngestWorkflowId(recording.id),
    args: [input],
    typedSearchAttributes: searchAttributesFor({ tenantId: tenant.id, roomId, recordingId: recording.id }),
  });
}

/**
 * Workflow time from the run's first event to its last, read from its history: once a run has ended, the test server's
 * clock races on, so `env.currentTimeMs()` after the result says nothing about the run.
 */
async function workflowTimeSpent(handle: Awaited<ReturnType<typeof startIngestion>>): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const ms = (e: (typeof events)[number]) => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
  return ms(events[events.length - 1]) - ms(events[0]);
}

test('a provider outage of 3 hours is ridden out: the recording stays processing, then becomes ready', async () => {
  const upstream = media.seedRecording({ meetingId: roomId, durationSeconds: 2 });
  const recording = await insertRecording(upstream.id);
  // The transfer's backoff (5 s doubling, capped at 10 min) spends 3 hours on 24 failed attempts.
  failingAnswers = 24;
  outageAnswers = 0;
  const statusesDuringOutage = new Set<string>();
  duringOutage = async () => {
    statusesDuringOutage.add((await reload(recording.id)).status);
  };
  const handle = await startIngestion(recording);

  expect(await handle.result()).toMatchObject({ status: 'ready' });
  expect(await workflowTimeSpent(handle)).toBeGreaterThanOrEqual(3 * HOUR);
  expect(outageAnswers).toBe(24);
  expect([...statusesDuringOutage]).toEqual(['processing']); // all along the outage: still waiting, not failed
  const row = await reload(recording.id);
  expect(row.status).toBe('ready');
  expect(row.failureReason).toBeNull();
  expect(row.sizeBytes).toBeGreaterThan(0);
});

test('an outage longer than the retry window fails the recording when the window ends', async () => {
  const upstream = media.seedRecording({ meetingId: roomId, durationSeconds: 2 });
  const recording = await insertRecording(upstream.id);
  failingAnswers = Number.POSITIVE_INFINITY;
  const handle = await startIngestion(recording, HOUR / 1000);
  await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'IngestionFailed' } });
  const elapsed = await workflowTimeSpent(handle);
  expect(elapsed).toBeGreaterThanOrEqual(HOUR);
  expect(elapsed).toBeLessThan(2 * HOUR);
  const row = await reload(recording.id);
  expect(row.status).toBe('failed');
  expect(row.failureReason).toContain('retry window of 1 h');
  expect(row.failureReason).toContain('provider is down');
});

test('a link that never answers fails the recording when the window ends, instead of retrying for ever', async () => {
  const upstream = media.seedRecording({ meetingId: roomId, durationSeconds: 2 });
  const recording = await insertRecording(upstream.id);
  rewrite = (body) => ({ ...body, url: `${silentLink}/media/${upstream.id}.wav?expires=1&sig=abc` });
  // Each attempt waits for the link half the transfer's heartbeat timeout, in real time (the test server does not skip
  // time while an activity runs): with the tests' short timings (SHORT_OUTSIDE_STEP_TIMINGS, src/config.ts) 2.5 s, half
  // of 5 s, instead of 7.5 s. So a short window: the first attempt falls inside it, the second (0.5 s after the first
  // ended) after it.
  const handle = await startIngestion(recording, 2, SHORT_OUTSIDE_STEP_TIMINGS);
  await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'IngestionFailed' } });
  expect(await workflowTimeSpent(handle)).toBeGreaterThanOrEqual(2_000);
  const row = await reload(recording.id);
  expect(row.status).toBe('failed');
  expect(row.failureReason).toBe("still failing when the retry window of 2 s ended; last failure: the recording's link did not answer within 2500 ms");
}, 40_000);

test('a recording the provider does not know (404) fails at once, with the reason on the recording', async () => {
  const recording = await insertRecording(`up-unknown-${randomUUID()}`);
  const handle = await startIngestion(recording);
  await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'IngestionFailed' } });
  expect(await workflowTimeSpent(handle)).toBeLessThan(MINUTE); // no retry schedule for a permanent failure
  const row = await reload(recording.id);
  expect(row.status).toBe('failed');
  expect(row.failureReason).toContain('HTTP 404');
  const api = await t.request.get(`/api/v1/recordings/${recording.id}/download`).set(tenant.auth);
  expect(api.status).toBe(400);
  expect(api.body.error.code).toBe('INVALID_STATE');
});

test('a file that is not audio or video fails at once, with the reason on the recording', async () => {
  const upstream = media.seedRecording({ meetingId: roomId, durationSeconds: 2 });
  const recording = await insertRecording(upstream.id);
  rewrite = (body) => ({ ...body, content_type: 'text/html' });
  const handle = await startIngestion(recording);
  await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'IngestionFailed' } });
  expect(await workflowTimeSpent(handle)).toBeLessThan(MINUTE);
  const row = await reload(recording.id);
  expect(row.status).toBe('failed');
  expect(row.failureReason).toContain('not a media file (content type text/html)');
});

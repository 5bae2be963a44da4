// The recording workflows with real activities (PostgreSQL, SeaweedFS, the development media server) on Temporal's
// time-skipping test server: a 2-hour auto-stop and a 7-day retention run in seconds. Ingestion's retry window:
// test/workflows/ingest-outages.test.ts.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { LocalEventBus, type DomainEvent } from '../../src/events/domain-events.ts';
import { RecordingSchema, type Recording } from '../../src/modules/recordings/recording.entity.ts';
import { createHttpUpstreamAdapter } from '../../src/upstream/http-upstream-adapter.ts';
import { startDevMediaServer, type DevMediaServer } from '../../dev/media-server/server.ts';
import { testWorkflows } from '../helpers/workflow-bundle.ts';
import {
  recordingAutoStopWorkflowId,
  recordingRetentionWorkflowId,
  recordingStoppedSignal,
} from '../../workflows/shared.ts';
import { createRoom, createTenant, patchConfig, type TenantFixture } from '../helpers/fixtures.ts';
import { testActivities } from '../helpers/activities.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTimeSkippingEnv, quietSdkLogs } from '../helpers/time-skipping.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let env: TestWorkflowEnvironment;
let t: TestApp;
let media: DevMediaServer;
let worker: Worker;
let running: Promise<void>;
let tenant: TenantFixture;

let roomId: string;
const taskQueue = `recordings-wf-${randomUUID()}`;
const published: DomainEvent[] = [];

beforeAll(async () => {
  quietSdkLogs();
  env = await createTimeSkippingEnv();
  media = await startDevMediaServer({ webhookSecret: 'wf-test-secret', autoNotify: false, processingDelayMs: 0 });
  t = await createTestApp({ UPSTREAM_API_URL: media.url });
  tenant = await createTenant(t);
  roomId = (await createRoom(t, tenant, { config: { recording_enabled: true } })).id;
  const events = new LocalEventBus();
  events.subscribe((event) => published.push(event));
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...testWorkflows(),
    activities: testActivities(t, { provider: createHttpUpstreamAdapter({ baseUrl: media.url }), events }),
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await media?.stop();
  await t?.close();
});

async function insertRecording(fields: Partial<Pick<Recording, 'status' | 'upstreamRecordingId' | 'startedAt'>>) {
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, { id: uuidv7(), tenant: tenant.id, room: roomId, status: 'recording', ...fields });
  await em.flush();
  return recording;
}
const reload = (id: string) => t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });

test('a recording nobody stops is stopped at max_recording_duration_minutes, two hours later in seconds', async () => {
  const upstream = await createHttpUpstreamAdapter({ baseUrl: media.url }).startRecording({ roomId });
  const recording = await insertRecording({ upstreamRecordingId: upstream.upstreamRecordingId, startedAt: new Date(upstream.startedAt) });
  const before = await env.currentTimeMs();
  const wallStart = Date.now();

  const handle = await env.client.workflow.start('recordingAutoStopWorkflow', {
    taskQueue,
    workflowId: recordingAutoStopWorkflowId(recording.id),
    args: [{ recordingId: recording.id, maxDurationMinutes: 120 }],
  });
  await env.sleep(119 * MINUTE);
  expect((await reload(recording.id)).status).toBe('recording'); // a minute before the limit: still recording

  expect(await handle.result()).toEqual({ autoStopped: true });
  expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(120 * MINUTE);
  expect(Date.now() - wallStart).toBeLessThan(30_000);
  const row = await reload(recording.id);
  expect(row.status).toBe('processing');
  expect(row.stoppedAt).toBeInstanceOf(Date);
  expect(media.getRecording(upstream.upstreamRecordingId)!.status).not.toBe('recording');
  expect(published).toContainEqual({ type: 'recording.stopped', tenantId: tenant.id, roomId, recordingId: recording.id });
});

test('a recording stopped in time is left alone: the stop signal ends the timer', async () => {
  const recording = await insertRecording({ upstreamRecordingId: null, startedAt: new Date() });
  const handle = await env.client.workflow.start('recordingAutoStopWorkflow', {
    taskQueue,
    workflowId: recordingAutoStopWorkflowId(recording.id),
    args: [{ recordingId: recording.id, maxDurationMinutes: 120 }],
  });
  await handle.signal(recordingStoppedSignal);
  expect(await handle.result()).toEqual({ autoStopped: false });
  expect((await reload(recording.id)).status).toBe('recording');
});

test('retention purges the stored file and marks the recording deleted after recording_retention_days', async () => {
  await patchConfig(t, tenant, { recording_retention_days: 7 });
  const recording = await insertRecording({ status: 'ready' });
  const key = `recordings/${tenant.id}/${recording.id}.wav`;
  const { store } = t.services;
  const stored = await store.upload({ key, body: Readable.from([Buffer.from('RIFF....WAVE')]), contentType: 'audio/wav' });
  // Created "now" on the test server's clock (which earlier tests have moved ahead): retention counts from here.
  const createdAt = new Date(await env.currentTimeMs());
  await t.services.orm.em.fork().nativeUpdate(
    RecordingSchema,
    { id: recording.id },
    { createdAt, storageTier: 'primary', storageBucket: stored.bucket, objectKey: key, sizeBytes: stored.sizeBytes },
  );

  const handle = await env.client.workflow.start('recordingRetentionWorkflow', {
    taskQueue,
    workflowId: recordingRetentionWorkflowId(recording.id),
    args: [{ recordingId: recording.id }],
  });
  await env.sleep(6 * DAY);
  expect(await store.head({ bucket: stored.bucket, key })).not.toBeNull(); // a day before the deadline: kept
  expect((await reload(recording.id)).purgedAt).toBeNull();

  expect(await handle.result()).toEqual({ purged: true });
  expect((await env.currentTimeMs()) - createdAt.getTime()).toBeGreaterThanOrEqual(7 * DAY);
  expect(await store.head({ bucket: stored.bucket, key })).toBeNull();
  const row = await reload(recording.id);
  expect(row.deleted).toBe(true);
  expect(row.deletedAt).toBeInstanceOf(Date);
  expect(row.purgedAt).toBeInstanceOf(Date);
  const api = await t.request.get(`/api/v1/recordings/${recording.id}`).set(tenant.auth);
  expect(api.status).toBe(404);
});

test('a recording whose room was deleted (its row went with it) still has its files purged when retention ends', async () => {
  const room = await createRoom(t, tenant, { config: { recording_enabled: true } });
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, { id: uuidv7(), tenant: tenant.id, room: room.id, status: 'ready', createdAt: new Date(await env.currentTimeMs()) });
  await em.flush();
  const { store } = t.services;
  const key = `recordings/${tenant.id}/${recording.id}.wav`;
  await store.upload({ key, body: Readable.from([Buffer.from('RIFF....WAVE')]), contentType: 'audio/wav' });
  await store.archive(key); // the archive bucket is purged too

  const handle = await env.client.workflow.start('recordingRetentionWorkflow', {
    taskQueue,
    workflowId: recordingRetentionWorkflowId(recording.id),
    args: [{ recordingId: recording.id, tenantId: tenant.id }],
  });
  await env.sleep(DAY);
  await t.request.delete(`/api/v1/rooms/${room.id}`).set(tenant.auth).expect(204);
  expect(await t.services.orm.em.fork().findOne(RecordingSchema, { id: recording.id })).toBeNull();
  expect(await store.head({ bucket: store.archiveBucket, key })).not.toBeNull();

  expect(await handle.result()).toEqual({ purged: true });
  expect(await store.head({ bucket: store.archiveBucket, key })).toBeNull();
});

// Fault test (issue 19, DECISIONS §15): PostgreSQL stopped for longer than the old retry budget (10 attempts of a
// database step) twice while a real recording is between download and webhook: right after its file is stored in S3
// (ingestion's markRecordingReady must wait), and again after post-meeting has planned (the completion that commits
// the result, its delivery row and the delivery's hand-over must wait). The database steps wait it out; the tenant's
// receiver gets exactly one webhook, the bucket holds exactly one object, one delivery row says `succeeded`. Then (c)
// a re-send, with the database gone as its delivery's first attempt begins: the re-sent webhook arrives once.
// Real PostgreSQL (a private cluster, stopped and started on the same port), real S3, the development media server,
// the real workflows and activities on Temporal's time-skipping server: the outage's minutes are skipped, not waited.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { startPostgres, type PostgresServer } from '../../../scripts/stack/postgres.ts';
import { WebhookDeliverySchema } from '../../../src/modules/deliveries/delivery.entity.ts';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { createHttpUpstreamAdapter } from '../../../src/upstream/http-upstream-adapter.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../src/upstream/dev-media-server.ts';
import { WORKFLOWS_PATH } from '../../../src/worker.ts';
import { postMeetingWorkflowId, recordingIngestWorkflowId, webhookDeliveryWorkflowId } from '../../../workflows/shared.ts';
import { testActivities } from '../../helpers/activities.ts';
import { configureWebhook } from '../../helpers/delivery-fixtures.ts';
import { createRoom, createTenant, patchConfig } from '../../helpers/fixtures.ts';
import { startedRun } from '../../helpers/handovers.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { createTimeSkippingEnv } from '../../helpers/time-skipping.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const MINUTE = 60_000;
/** The old policy of database steps: 10 attempts. The outage lasts until a step has failed more often than that. */
const OLD_BUDGET_ATTEMPTS = 10;
const WEBHOOK_SECRET = 'whsec_postgres_outage_0123456789abcdef';

let dir: string;
let password: string;
let postgres: PostgresServer;
let env: TestWorkflowEnvironment;
let media: DevMediaServer;
let t: TestApp;
let receiver: WebhookReceiver;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `pg-outage-${randomUUID()}`;

/** Where the next outage begins: right after this activity has succeeded once. */
let stopAfter: 'storeRecordingFile' | 'planPostMeeting' | null = null;
/** Or right before this activity runs. */
let stopBefore: 'attemptWebhookDelivery' | null = null;
let stoppedNow: () => void = () => {};

async function stopDatabase(): Promise<void> {
  await postgres.stop();
  stoppedNow();
}

async function startDatabase(port: number): Promise<void> {
  postgres = await startPostgres({ dataDir: join(dir, 'pg'), port, password, durable: true });
}

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') }); // the outage's failures are on purpose
  } catch {
    // installed by another test file of this jest worker
  }
  dir = await mkdtemp(join(tmpdir(), 'convene-pg-outage-'));
  await chmod(dir, 0o755);
  password = randomBytes(12).toString('hex');
  postgres = await startPostgres({ dataDir: join(dir, 'pg'), password, durable: true });
  await postgres.createDatabase('convene');
  env = await createTimeSkippingEnv();
  media = await startDevMediaServer({ webhookSecret: 'pg-outage-upstream', autoNotify: false, processingDelayMs: 0 });
  t = await createTestApp(
    { UPSTREAM_API_URL: media.url, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue, HANDOVER_POLL_MS: '200' },
    { databaseUrl: postgres.url('convene') },
  );
  receiver = await startWebhookReceiver(WEBHOOK_SECRET);
  const base = testActivities(t, { provider: createHttpUpstreamAdapter({ baseUrl: media.url }) });
  const outageAfter = <A extends unknown[], R>(name: 'storeRecordingFile' | 'planPostMeeting', fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await fn(...args);
      if (stopAfter === name) {
        stopAfter = null;
        await stopDatabase();
      }
      return result;
    };
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: {
      ...base,
      storeRecordingFile: outageAfter('storeRecordingFile', base.storeRecordingFile),
      planPostMeeting: outageAfter('planPostMeeting', base.planPostMeeting),
      attemptWebhookDelivery: async (...args: Parameters<typeof base.attemptWebhookDelivery>) => {
        if (stopBefore === 'attemptWebhookDelivery') {
          stopBefore = null;
          await stopDatabase();
        }
        return base.attemptWebhookDelivery(...args);
      },
    },
  });
  running = worker.run();
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await env?.teardown();
  await media?.stop();
  await receiver?.close();
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Skips workflow time until the run's pending activity has failed more often than the old budget allowed. */
async function outlastOldBudget(workflowId: string, activity: string): Promise<number> {
  const begun = Date.now();
  for (let i = 0; i < 60; i++) {
    await env.sleep(MINUTE);
    const pending = (await env.client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? [];
    const attempt = pending.find((p) => p.activityType?.name === activity)?.attempt ?? 0;
    if (attempt > OLD_BUDGET_ATTEMPTS + 2) {
      console.log(`[pg-outage] ${activity} at attempt ${attempt} after ${i + 1} skipped minutes (${Date.now() - begun} ms)`);
      return attempt;
    }
  }
  throw new Error(`${activity} of ${workflowId} never passed ${OLD_BUDGET_ATTEMPTS} attempts`);
}

test('PostgreSQL stopped past the old budget after the upload, before delivery and during a re-send: each webhook once', async () => {
  const tenant = await createTenant(t);
  const room = await createRoom(t, tenant);
  await patchConfig(t, tenant, { transcription_enabled: false });
  await configureWebhook(t, tenant, { url: receiver.url, secret: WEBHOOK_SECRET, include_transcript: false, include_summary: false, include_action_items: false });
  const upstream = createHttpUpstreamAdapter({ baseUrl: media.url });
  const started = await upstream.startRecording({ roomId: room.id });
  await upstream.stopRecording(started.upstreamRecordingId);
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, {
    id: uuidv7(),
    tenant: tenant.id,
    room: room.id,
    status: 'processing',
    upstreamRecordingId: started.upstreamRecordingId,
  });
  await em.flush();
  const port = postgres.port;
  const recordingId = recording.id;

  // (a) The database goes away right after the file is in S3: markRecordingReady must wait.
  stopAfter = 'storeRecordingFile';
  const firstOutage = new Promise<void>((resolve) => (stoppedNow = resolve));
  const ingestion = await env.client.workflow.start('recordingIngestWorkflow', {
    taskQueue,
    workflowId: recordingIngestWorkflowId(recordingId),
    args: [{ recordingId, tenantId: tenant.id, roomId: room.id, upstreamRecordingId: started.upstreamRecordingId, retryWindowSeconds: 86_400 }],
  });
  const ingested = ingestion.result();
  await firstOutage;
  expect(await outlastOldBudget(ingestion.workflowId, 'markRecordingReady')).toBeGreaterThan(OLD_BUDGET_ATTEMPTS);

  // (b) Back for ingestion, away again once post-meeting has planned: its completion (result, delivery, hand-over) waits.
  stopAfter = 'planPostMeeting';
  const secondOutage = new Promise<void>((resolve) => (stoppedNow = resolve));
  await startDatabase(port);
  expect(await ingested).toMatchObject({ status: 'ready' });
  await secondOutage;
  const postMeeting = postMeetingWorkflowId(recordingId);
  expect(await outlastOldBudget(postMeeting, 'completePostMeeting')).toBeGreaterThan(OLD_BUDGET_ATTEMPTS);
  await startDatabase(port);
  const outcome = await env.client.workflow.getHandle(postMeeting).result();
  expect(outcome).toMatchObject({ status: 'completed', deliveryId: expect.any(String) });

  // The hand-over relay (the app's) starts the delivery; the receiver gets it once.
  const delivery = await startedRun(env.client, webhookDeliveryWorkflowId(outcome.deliveryId));
  expect(await delivery.result()).toEqual({ status: 'succeeded', attempts: 1 });
  await receiver.waitFor(1);
  expect(receiver.received).toHaveLength(1);
  expect(receiver.received[0]).toMatchObject({ signatureValid: true });
  expect(receiver.received[0].headers['x-convene-delivery']).toBe(outcome.deliveryId);

  const after = t.services.orm.em.fork();
  expect((await after.findOneOrFail(RecordingSchema, { id: recordingId })).status).toBe('ready');
  const deliveries = await after.find(WebhookDeliverySchema, { recordingId });
  expect(deliveries.map((d) => [d.id, d.status])).toEqual([[outcome.deliveryId, 'succeeded']]);
  const { store } = t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/`)).toEqual([`recordings/${tenant.id}/${recordingId}.wav`]);

  // (c) A re-send: committed with its hand-over, then the database goes away as the delivery's first attempt begins.
  stopBefore = 'attemptWebhookDelivery';
  const thirdOutage = new Promise<void>((resolve) => (stoppedNow = resolve));
  const resent = await t.request.post(`/api/v1/webhook-deliveries/${outcome.deliveryId}/resend`).set(tenant.auth);
  expect(resent.status).toBe(202);
  const copyId = resent.body.data.id as string;
  const copy = await startedRun(env.client, webhookDeliveryWorkflowId(copyId));
  const copied = copy.result();
  await thirdOutage;
  expect(await outlastOldBudget(copy.workflowId, 'attemptWebhookDelivery')).toBeGreaterThan(OLD_BUDGET_ATTEMPTS);
  await startDatabase(port);
  expect(await copied).toEqual({ status: 'succeeded', attempts: 1 });
  await receiver.waitFor(2);
  expect(receiver.received.map((r) => r.headers['x-convene-delivery'])).toEqual([outcome.deliveryId, copyId]);
  const all = await t.services.orm.em.fork().find(WebhookDeliverySchema, { recordingId }, { orderBy: { createdAt: 'asc' } });
  expect(all.map((d) => [d.id, d.status, d.attemptCount])).toEqual([
    [outcome.deliveryId, 'succeeded', 1],
    [copyId, 'succeeded', 1],
  ]);
}, 600_000);

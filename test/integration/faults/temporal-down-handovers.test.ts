// Fault test (docs/decisions.md §15): Temporal is unreachable while a room is created, the provider's recording.ready
// arrives, a recording is synced, a delivery re-sent and a post-meeting result re-run (docs/decisions.md §9). Each
// request commits its change with the hand-over of its workflow and answers as usual; when a relay can reach Temporal
// (another process's: here one started by the test, with a worker on the same queue), every recorded run starts,
// exactly once, and does its work: the notified and the synced recordings become `ready` with one object each and their
// webhooks, like the re-sent one, reach the receiver once; the room's empty-room timer runs.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createDelivery } from '../../../src/modules/deliveries/delivery.service.ts';
import { WebhookDeliverySchema } from '../../../src/modules/deliveries/delivery.entity.ts';
import { PostMeetingResultSchema } from '../../../src/modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';
import { createHttpUpstreamAdapter } from '../../../src/upstream/http-upstream-adapter.ts';
import { testWorkflows } from '../../helpers/workflow-bundle.ts';
import { emptyRoomWorkflowId, postMeetingWorkflowId, recordingIngestWorkflowId, webhookDeliveryWorkflowId } from '../../../workflows/shared.ts';
import type { HandoverRelay } from '../../../src/handover/relay.ts';
import { testActivities } from '../../helpers/activities.ts';
import { configureWebhook, processedRecording } from '../../helpers/delivery-fixtures.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { handoverRows, startRelay, startedRun } from '../../helpers/handovers.ts';
import { listRunsUntil } from '../../helpers/history-scan.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const SECRET = 'whsec_temporal_down_0123456789abcdef';
const UPSTREAM_SECRET = 'temporal-down-upstream';
const taskQueue = `temporal-down-${randomUUID()}`;
let offline: TestApp;
let media: DevMediaServer;
let receiver: WebhookReceiver;
let connection: Connection;
let temporal: Client;
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let relay: HandoverRelay | undefined;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed by another test file of this jest worker
  }
  media = await startDevMediaServer({ webhookSecret: UPSTREAM_SECRET, autoNotify: false, processingDelayMs: 0 });
  // Temporal unreachable for this app: its requests and its own relay fail to reach it.
  offline = await createTestApp({
    TEMPORAL_ADDRESS: '127.0.0.1:9',
    TEMPORAL_TASK_QUEUE: taskQueue,
    UPSTREAM_API_URL: media.url,
    UPSTREAM_WEBHOOK_SECRET: UPSTREAM_SECRET,
  });
  receiver = await startWebhookReceiver(SECRET);
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });
}, 60_000);

afterAll(async () => {
  await relay?.close();
  worker?.shutdown();
  await running;
  await offline?.close();
  await connection?.close();
  await media?.stop();
  await receiver?.close();
});

test('room creation, Sync and re-send with Temporal down: answered, recorded, then started exactly once and done', async () => {
  const t = offline;
  const tenant = await createTenant(t);
  await configureWebhook(t, tenant, { url: receiver.url, secret: SECRET });

  // Room creation: 201, its empty-room timer recorded (a room that never ends would count against max_concurrent_rooms).
  const room = await createRoom(t, tenant);

  // The provider's recording.ready: 202 once the imported recording and its ingestion's start are committed.
  const notified = media.seedRecording({ meetingId: room.id, durationSeconds: 2 });
  const { body, signature } = media.notificationFor(notified.id);
  const accepted = await t.request
    .post('/api/v1/webhooks/upstream/recording-ready')
    .set('Content-Type', 'application/json')
    .set('X-Upstream-Signature', signature)
    .send(body);
  expect(accepted.status).toBe(202);
  expect(accepted.body).toEqual({ received: true });
  const notifiedId = (await t.services.orm.em.fork().findOneOrFail(RecordingSchema, { upstreamRecordingId: notified.id })).id;

  // Sync: the provider's recording is imported `processing`, its ingestion recorded.
  const upstream = createHttpUpstreamAdapter({ baseUrl: media.url });
  const remote = await upstream.startRecording({ roomId: room.id });
  await upstream.stopRecording(remote.upstreamRecordingId);
  const synced = await t.request.post(`/api/v1/rooms/${room.id}/recordings/sync`).set(tenant.auth);
  expect(synced.status).toBe(200);
  expect(synced.body.data.synced_count).toBe(1);
  const syncedId = synced.body.data.recordings[0].id as string;

  // Re-send: a finished delivery's copy, recorded with its workflow's start.
  const { recordingId } = await processedRecording(t, tenant, room.id);
  const original = (await createDelivery(t.services.orm.em.fork(), t.services.tenants, { tenantId: tenant.id, roomId: room.id, recordingId }))!;
  await t.services.orm.em.fork().nativeUpdate(WebhookDeliverySchema, { id: original.id }, { status: 'failed' });
  const resent = await t.request.post(`/api/v1/webhook-deliveries/${original.id}/resend`).set(tenant.auth);
  expect(resent.status).toBe(202);
  const copyId = resent.body.data.id as string;

  // Post-meeting re-run: 202 once the result row is started over as run 2 and the run's start is committed with it.
  const { recordingId: rerunId } = await processedRecording(t, tenant, room.id);
  const rerun = await t.request.post(`/api/v1/recordings/${rerunId}/post-meeting`).set(tenant.auth).send({});
  expect(rerun.status).toBe(202);
  expect(rerun.body).toEqual({ recording_id: rerunId, run: 2, workflow_id: postMeetingWorkflowId(rerunId, 2), status: 'started' });
  expect(await t.services.orm.em.fork().findOneOrFail(PostMeetingResultSchema, { recording: rerunId })).toMatchObject({ run: 2, status: 'running', summary: null });
  // A request that finds run 2 under way is refused (racing requests for the same n get the same run instead).
  const again = await t.request.post(`/api/v1/recordings/${rerunId}/post-meeting`).set(tenant.auth).send({});
  expect(again.status).toBe(400);
  expect(again.body.error.code).toBe('INVALID_STATE');

  const ids = [
    emptyRoomWorkflowId(room.id),
    recordingIngestWorkflowId(notifiedId),
    recordingIngestWorkflowId(syncedId),
    webhookDeliveryWorkflowId(copyId),
    postMeetingWorkflowId(rerunId, 2),
  ];
  for (const id of ids) expect(await handoverRows(t.services.orm, id)).toEqual([expect.objectContaining({ workflow_id: id, started: false })]);

  // Temporal reachable again (for a relay of another process, and a worker on the queue): everything recorded starts.
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
    taskQueue,
    ...testWorkflows(),
    activities: testActivities(t, { provider: upstream }),
  });
  running = worker.run();
  relay = startRelay(t.services.orm, temporal, taskQueue);

  for (const id of [notifiedId, syncedId]) {
    expect(await (await startedRun(temporal, recordingIngestWorkflowId(id))).result()).toMatchObject({ status: 'ready' });
  }
  const delivery = await startedRun(temporal, webhookDeliveryWorkflowId(copyId));
  expect(await delivery.result()).toEqual({ status: 'succeeded', attempts: 1 });
  await startedRun(temporal, emptyRoomWorkflowId(room.id));

  const deliveryIds = [copyId];
  for (const id of [notifiedId, syncedId]) {
    const stored = await t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
    expect(stored.status).toBe('ready');
    expect(await t.services.store.list(t.services.store.bucket, `recordings/${tenant.id}/${id}`)).toEqual([stored.objectKey]);
    // Each ingested recording goes on to post-meeting and its own delivery (the tenant's webhook is on).
    const { deliveryId } = (await (await startedRun(temporal, postMeetingWorkflowId(id))).result()) as { deliveryId: string };
    expect(await (await startedRun(temporal, webhookDeliveryWorkflowId(deliveryId))).result()).toEqual({ status: 'succeeded', attempts: 1 });
    deliveryIds.push(deliveryId);
  }
  // The re-run: its own delivery (run 2), handed over by its completion.
  const rerunOutcome = (await (await startedRun(temporal, postMeetingWorkflowId(rerunId, 2))).result()) as { status: string; deliveryId: string };
  expect(rerunOutcome).toMatchObject({ status: 'completed', deliveryId: expect.any(String) });
  expect(await (await startedRun(temporal, webhookDeliveryWorkflowId(rerunOutcome.deliveryId))).result()).toEqual({ status: 'succeeded', attempts: 1 });
  expect(await t.services.orm.em.fork().findOneOrFail(WebhookDeliverySchema, { id: rerunOutcome.deliveryId })).toMatchObject({ postMeetingRun: 2 });
  deliveryIds.push(rerunOutcome.deliveryId);
  await receiver.waitFor(4);
  // Each arrived once: the re-send, the two ingested recordings' webhooks and the re-run's (the processed recordings'
  // originals were never started: they were made by hand, above).
  expect(receiver.received.map((r) => r.headers['x-convene-delivery']).sort()).toEqual(deliveryIds.sort());
  for (const id of ids) {
    expect(await handoverRows(t.services.orm, id)).toEqual([expect.objectContaining({ started: true })]);
    expect(await listRunsUntil(temporal, `WorkflowId = "${id}"`, (found) => found.length > 0)).toHaveLength(1);
  }

  // The re-run's hand-over relayed a second time (a relay that died after starting, before marking it) finds the
  // closed run and starts nothing: still one run, no second webhook.
  const rerunWorkflowId = postMeetingWorkflowId(rerunId, 2);
  await t.services.orm.em.fork().execute('update workflow_handovers set started_at = null, next_attempt_at = now() where workflow_id = ?', [rerunWorkflowId]);
  const begun = Date.now();
  while (!(await handoverRows(t.services.orm, rerunWorkflowId))[0]?.started) {
    if (Date.now() - begun > 60_000) throw new Error(`${rerunWorkflowId} was not relayed again within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await listRunsUntil(temporal, `WorkflowId = "${rerunWorkflowId}"`, (found) => found.length > 0)).toHaveLength(1);
  expect(await t.services.orm.em.fork().count(WebhookDeliverySchema, { recordingId: rerunId })).toBe(1);
  expect(receiver.received).toHaveLength(4);
  await temporal.workflow.getHandle(emptyRoomWorkflowId(room.id)).terminate('test over');
}, 240_000);

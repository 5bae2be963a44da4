// Fault test (docs/security.md, "Failures the service survives"): the Temporal server restarts while a recording is
// being ingested. A private, persistent Temporal dev server (the harness's is shared by every test file) serves the app
// and a real worker process; the worker's download is held mid-ingestion, Temporal is stopped and started again on the
// same port and database, and the ingestion still finishes `ready` with exactly one object, without restarting the API
// or the worker. Then the same for an outgoing webhook waiting for its retry: Temporal goes away while the retry timer
// runs, and the delivery still ends `succeeded` with exactly the two attempts it made, both recorded.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTemporal, type TemporalServer } from '../../../scripts/stack/temporal.ts';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { createDelivery, deliveryStart } from '../../../src/modules/deliveries/delivery.service.ts';
import { startHandover } from '../../../src/handover/relay.ts';
import { webhookDeliveryWorkflowId } from '../../../workflows/shared.ts';
import { configureWebhook, processedRecording } from '../../helpers/delivery-fixtures.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { createRecordingStack, type RecordingStack, type WorkerProcess } from '../../helpers/recording-stack.ts';

let dir: string;
let temporal: TemporalServer;
let stack: RecordingStack;
let worker: WorkerProcess;
let proxy: Server;
let receiver: WebhookReceiver;
const WEBHOOK_SECRET = 'whsec_temporal_restart_0123456789abcdef';
let target = '';
let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
let downloadSeen: () => void = () => {};
const downloading = new Promise<void>((resolve) => (downloadSeen = resolve));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'convene-temporal-fault-'));
  temporal = await startTemporal({ dataDir: dir, persistent: true, uiPort: null, stopTimeoutMs: 5000 });
  // Between the worker and the media server: the first download waits until the test releases it.
  proxy = createServer(async (req, res) => {
    downloadSeen();
    await released;
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  stack = await createRecordingStack({
    env: { TEMPORAL_ADDRESS: temporal.address },
    media: { publicUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
  });
  target = stack.media.url;
  worker = await stack.startWorker();
  receiver = await startWebhookReceiver(WEBHOOK_SECRET);
}, 120_000);

afterAll(async () => {
  release();
  await receiver?.close();
  await worker?.stop();
  await stack?.close();
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
  await temporal?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Stops the Temporal server and starts it again on the same port and database. */
async function restartTemporal(): Promise<void> {
  const address = temporal.address;
  await temporal.stop();
  await new Promise((r) => setTimeout(r, 1000));
  temporal = await startTemporal({ dataDir: dir, persistent: true, uiPort: null, stopTimeoutMs: 5000, port: Number(address.split(':').pop()) });
  expect(temporal.address).toBe(address);
}

test('Temporal restarted mid-ingestion: the ingestion finishes ready, nothing restarted but Temporal', async () => {
  const tenant = await createTenant(stack.t);
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  const id = started.body.data.id as string;

  await downloading; // the ingestion workflow is running and its transfer activity is under way
  expect((await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id })).status).toBe('processing');
  await restartTemporal();
  release();

  await stack.ingestionResult(id);
  const recording = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  expect(recording.status).toBe('ready');
  const { store } = stack.t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/`)).toEqual([`recordings/${tenant.id}/${id}.wav`]);
  expect(worker.child.exitCode).toBeNull(); // the same worker process carried on
}, 120_000);

/**
 * Resolves once the run's history holds a started timer: its sleep before the next attempt is under way. Restarting
 * Temporal any earlier may stop it before the workflow task that starts the timer has completed: the timer then starts
 * only once Temporal is back, and the test waits out the restart and the whole delay one after the other.
 */
async function timerStarted(workflowId: string): Promise<void> {
  const handle = stack.temporal.workflow.getHandle(workflowId);
  for (const begun = Date.now(); Date.now() - begun < 30_000; await new Promise((r) => setTimeout(r, 100))) {
    const { events } = await handle.fetchHistory();
    if (events?.some((e) => e.timerStartedEventAttributes)) return;
  }
  throw new Error(`${workflowId}: no timer started within 30 s`);
}

test('Temporal restarted while a delivery waits for its retry: one delivery, two recorded attempts, succeeded', async () => {
  const { t } = stack;
  const tenant = await createTenant(t);
  const room = await createRoom(t, tenant);
  await configureWebhook(t, tenant, { url: receiver.url, secret: WEBHOOK_SECRET });
  const { recordingId } = await processedRecording(t, tenant, room.id);
  const delivery = (await createDelivery(t.services.orm.em.fork(), t.services.tenants, { tenantId: tenant.id, roomId: room.id, recordingId }))!;
  receiver.script([{ status: 503 }], { status: 200 });
  // The retry comes 8 s after the first attempt: Temporal is down for part of that wait, once its timer runs.
  await startHandover(stack.temporal, stack.taskQueue, deliveryStart(delivery, [0, 8, 4, 4, 4, 4]));
  await receiver.waitFor(1);
  const firstAt = receiver.received[0].receivedAt;
  await timerStarted(webhookDeliveryWorkflowId(delivery.id));

  await restartTemporal();
  // No wall-clock bound: on a busy machine Temporal may come back after the retry was due; the outcome holds either way.
  console.log(`[temporal-restart] Temporal back ${Date.now() - firstAt} ms after attempt 1 (the retry is due at 8000 ms)`);

  const result = await stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id)).result();
  expect(result).toEqual({ status: 'succeeded', attempts: 2 });
  expect(receiver.received).toHaveLength(2);
  expect(receiver.received.every((r) => r.signatureValid && r.headers['x-convene-delivery'] === delivery.id)).toBe(true);
  const res = await t.request.get(`/api/v1/webhook-deliveries/${delivery.id}`).set(tenant.auth).expect(200);
  expect(res.body.data).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  expect(res.body.data.attempts.map((a: { attempt: number; response_status_code: number }) => [a.attempt, a.response_status_code])).toEqual([
    [1, 503],
    [2, 200],
  ]);
  expect(worker.child.exitCode).toBeNull();
}, 120_000);

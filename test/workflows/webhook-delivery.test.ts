// The delivery workflow with real activities (PostgreSQL, SeaweedFS, a real local receiver) on Temporal's
// time-skipping server: the whole default retry schedule (0, 1 m, 5 m, 15 m, 1 h, 4 h) runs in seconds.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { WebhookDeliveryAttemptSchema, WebhookDeliverySchema } from '../../src/modules/deliveries/delivery.entity.ts';
import { createDelivery, deliveryStart } from '../../src/modules/deliveries/delivery.service.ts';
import { startHandover } from '../../src/handover/relay.ts';
import { createHttpUpstreamAdapter } from '../../src/upstream/http-upstream-adapter.ts';
import { testWorkflows } from '../helpers/workflow-bundle.ts';
import { webhookDeliveryWorkflowId } from '../../workflows/shared.ts';
import { configureWebhook, processedRecording } from '../helpers/delivery-fixtures.ts';
import { createRoom, createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { testActivities } from '../helpers/activities.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createTimeSkippingEnv, quietSdkLogs } from '../helpers/time-skipping.ts';

const DEFAULT_SCHEDULE = [0, 60, 300, 900, 3600, 14400];
/** No media provider is needed here (port 9 refuses); the default retry schedule, with a short POST timeout. */
const activities = () =>
  testActivities(t, {
    provider: createHttpUpstreamAdapter({ baseUrl: 'http://127.0.0.1:9' }),
    webhooks: { retryDelaysSeconds: DEFAULT_SCHEDULE, timeoutMs: 2000, production: false },
  });
const SECRET = 'whsec_time_skipping_secret_0123456789';

let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: Worker;
let running: Promise<void>;
let tenant: TenantFixture;
let roomId: string;
let receiver: WebhookReceiver;
const taskQueue = `webhook-wf-${randomUUID()}`;

beforeAll(async () => {
  quietSdkLogs();
  env = await createTimeSkippingEnv();
  t = await createTestApp();
  receiver = await startWebhookReceiver(SECRET);
  tenant = await createTenant(t);
  roomId = (await createRoom(t, tenant)).id;
  await configureWebhook(t, tenant, { url: receiver.url, secret: SECRET });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...testWorkflows(),
    activities: activities(),
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await receiver?.close();
  await t?.close();
});

async function newDelivery() {
  const { recordingId } = await processedRecording(t, tenant, roomId);
  const delivery = await createDelivery(t.services.orm.em.fork(), t.services.tenants, { tenantId: tenant.id, roomId, recordingId });
  return delivery!;
}

const attemptsOf = (deliveryId: string) =>
  t.services.orm.em.fork().find(WebhookDeliveryAttemptSchema, { delivery: deliveryId }, { orderBy: { attempt: 'asc' } });

test('a receiver that always answers 500: six attempts at 0, 1 m, 5 m, 15 m, 1 h and 4 h, then failed', async () => {
  receiver.script([], { status: 500, body: 'x'.repeat(5000) });
  const before = receiver.received.length;
  const delivery = await newDelivery();
  const wallStart = Date.now();
  const startedAt = await env.currentTimeMs();

  // Started directly with the input every hand-over gives it (deliveryStart, src/modules/deliveries/delivery.service.ts).
  const handle = await env.client.workflow.start('webhookDeliveryWorkflow', {
    taskQueue,
    workflowId: webhookDeliveryWorkflowId(delivery.id),
    args: deliveryStart(delivery, DEFAULT_SCHEDULE).args,
    staticSummary: `deliver meeting.recording_ready ${delivery.id}`,
  });
  expect(await handle.result()).toEqual({ status: 'failed', attempts: 6 });
  expect(Date.now() - wallStart).toBeLessThan(60_000);
  expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(5 * 3600_000 + 21 * 60_000);

  const attempts = await attemptsOf(delivery.id);
  expect(attempts.map((a) => [a.attempt, a.status, a.responseStatusCode])).toEqual(
    [1, 2, 3, 4, 5, 6].map((n) => [n, 'failed', 500]),
  );
  // Offsets on the test server's clock: each attempt follows the previous one by the schedule's delay.
  const offsets = attempts.map((a) => (a.attemptedAt.getTime() - attempts[0].attemptedAt.getTime()) / 1000);
  const expected = [0, 60, 360, 1260, 4860, 19260];
  offsets.forEach((offset, i) => expect(Math.abs(offset - expected[i])).toBeLessThan(15));
  expect(attempts[0].attemptedAt.getTime()).toBeGreaterThanOrEqual(startedAt - 1000);
  // Stored response bodies are truncated to 1 KiB.
  expect(attempts.every((a) => a.responseBody?.length === 1024)).toBe(true);
  expect(attempts[5].nextAttemptAt).toBeNull();
  expect(attempts[0].nextAttemptAt!.getTime() - attempts[0].attemptedAt.getTime()).toBeGreaterThanOrEqual(60_000);

  const row = await t.services.orm.em.fork().findOneOrFail(WebhookDeliverySchema, { id: delivery.id });
  expect(row).toMatchObject({ status: 'failed', attemptCount: 6, lastResponseStatusCode: 500, nextAttemptAt: null });
  expect(row.completedAt).toBeInstanceOf(Date);
  expect(receiver.received.length - before).toBe(6);
  expect(receiver.received.slice(before).every((r) => r.signatureValid && r.headers['x-convene-delivery'] === delivery.id)).toBe(true);

  const res = await t.request.get(`/api/v1/webhook-deliveries/${delivery.id}`).set(tenant.auth);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ status: 'failed', attempt_count: 6, next_attempt_at: null });
  expect(res.body.data.attempts).toHaveLength(6);
  expect(res.body.data.attempts[0]).toMatchObject({ attempt: 1, status: 'failed', response_status_code: 500, error: 'Receiver answered 500' });

  // docs/decisions.md §13: no URL, secret or payload in the history, only ids and numbers.
  const history = JSON.stringify(await handle.fetchHistory());
  expect(history).not.toContain(SECRET);
  expect(history).not.toContain(receiver.url);
  expect(history).not.toContain('X-Amz-Signature');
  expect(history).not.toContain('Welcome everyone');
}, 120_000);

test('429 with a Retry-After longer than the scheduled delay waits for the Retry-After', async () => {
  receiver.script([{ status: 429, headers: { 'Retry-After': '600' } }, { status: 200 }]);
  const delivery = await newDelivery();
  // Started as the relay starts a recorded re-send (schedule in the input, search attributes, summary).
  await startHandover(env.client, taskQueue, deliveryStart(delivery, DEFAULT_SCHEDULE));
  const handle = env.client.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id));
  expect(await handle.result()).toEqual({ status: 'succeeded', attempts: 2 });
  const [first, second] = await attemptsOf(delivery.id);
  expect(first).toMatchObject({ status: 'failed', responseStatusCode: 429 });
  expect(second).toMatchObject({ status: 'succeeded', responseStatusCode: 200, error: null });
  const gap = (second.attemptedAt.getTime() - first.attemptedAt.getTime()) / 1000;
  expect(gap).toBeGreaterThanOrEqual(600);
  expect(gap).toBeLessThan(615);
}, 60_000);

test('a 429 whose Retry-After is shorter than the schedule keeps the schedule', async () => {
  receiver.script([{ status: 429, headers: { 'Retry-After': '5' } }, { status: 204 }]);
  const delivery = await newDelivery();
  // Started as the relay starts a recorded re-send (schedule in the input, search attributes, summary).
  await startHandover(env.client, taskQueue, deliveryStart(delivery, DEFAULT_SCHEDULE));
  const handle = env.client.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id));
  expect(await handle.result()).toEqual({ status: 'succeeded', attempts: 2 });
  const [first, second] = await attemptsOf(delivery.id);
  const gap = (second.attemptedAt.getTime() - first.attemptedAt.getTime()) / 1000;
  expect(gap).toBeGreaterThanOrEqual(60);
  expect(gap).toBeLessThan(75);
}, 60_000);

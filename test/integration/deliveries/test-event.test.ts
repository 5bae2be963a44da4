// The webhook test event (docs/decisions.md §10): POST /api/v1/webhooks/test sends one signed `webhook.test` to the
// tenant's configured receiver through the delivery workflow on a real worker, and the attempt is in the delivery log.
import { webhookDeliveryWorkflowId } from '../../../workflows/shared.ts';
import { configureWebhook } from '../../helpers/delivery-fixtures.ts';
import { addParticipant, bearer, createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { startedRun } from '../../helpers/handovers.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const SECRET = 'whsec_test_event_secret_0123456789abcdef';

let stack: RecordingStack;
let receiver: WebhookReceiver;
let tenant: TenantFixture;

beforeAll(async () => {
  stack = await createRecordingStack({ env: { WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1', WEBHOOK_TIMEOUT_MS: '1500' } });
  await stack.startWorker();
  receiver = await startWebhookReceiver(SECRET);
  tenant = await createTenant(stack.t);
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const sendTest = (auth: Record<string, string> = tenant.auth) => stack.t.request.post('/api/v1/webhooks/test').set(auth);
const result = async (deliveryId: string) => (await startedRun(stack.temporal, webhookDeliveryWorkflowId(deliveryId))).result();

test('without a configured webhook the test event is 400 INVALID_STATE and nothing is logged', async () => {
  const res = await sendTest();
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('INVALID_STATE');
  const log = await stack.t.request.get('/api/v1/webhook-deliveries').set(tenant.auth);
  expect(log.body.meta.total).toBe(0);
});

test('a configured (not yet enabled) webhook receives one signed webhook.test, logged as a succeeded delivery', async () => {
  await configureWebhook(stack.t, tenant, { url: receiver.url, secret: SECRET, enabled: false });
  receiver.script([{ status: 204 }]);
  const before = receiver.received.length;

  const res = await sendTest();
  expect(res.status).toBe(202);
  expect(res.body.data).toMatchObject({ event: 'webhook.test', status: 'pending', room_id: null, recording_id: null, url: receiver.url });
  const deliveryId: string = res.body.data.id;
  expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 1 });

  const [hook] = await receiver.waitFor(before + 1).then((all) => all.slice(before));
  expect(hook.signatureValid).toBe(true);
  expect(hook.schemaErrors).toBeNull();
  expect(hook.headers['x-convene-event']).toBe('webhook.test');
  expect(hook.headers['x-convene-delivery']).toBe(deliveryId);
  expect(hook.headers['user-agent']).toBe('Convene-Webhook/1.0');
  expect(hook.json).toEqual({ event: 'webhook.test', timestamp: expect.any(String), tenant: { id: tenant.id } });

  const logged = await stack.t.request.get(`/api/v1/webhook-deliveries/${deliveryId}`).set(tenant.auth);
  expect(logged.status).toBe(200);
  expect(logged.body.data).toMatchObject({ event: 'webhook.test', status: 'succeeded', attempt_count: 1, last_response_status_code: 204 });
  expect(logged.body.data.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded', response_status_code: 204 })]);
});

test('a receiver that refuses it shows why, after one attempt and no retry schedule', async () => {
  receiver.script([{ status: 500, body: 'signature check failed' }]);
  const res = await sendTest();
  expect(res.status).toBe(202);
  expect(await result(res.body.data.id)).toEqual({ status: 'failed', attempts: 1 });
  const logged = await stack.t.request.get(`/api/v1/webhook-deliveries/${res.body.data.id}`).set(tenant.auth);
  expect(logged.body.data).toMatchObject({ status: 'failed', attempt_count: 1, last_response_status_code: 500, next_attempt_at: null });
  expect(logged.body.data.attempts).toEqual([expect.objectContaining({ status: 'failed', response_status_code: 500, next_attempt_at: null })]);
});

test('another tenant cannot see the test delivery nor send to this webhook; a participant may not send one', async () => {
  const other = await createTenant(stack.t);
  const mine = await sendTest();
  expect(mine.status).toBe(202);
  expect((await stack.t.request.get(`/api/v1/webhook-deliveries/${mine.body.data.id}`).set(other.auth)).status).toBe(404);
  await patchConfig(stack.t, other, { post_meeting_webhook: null });
  expect((await sendTest(other.auth)).status).toBe(400);

  const room = await createRoom(stack.t, tenant);
  const host = await addParticipant(stack.t, tenant, room.id, { role: 'host' });
  const refused = await sendTest(bearer(host.auth_token));
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('FORBIDDEN');
});

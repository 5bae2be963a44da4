// Outgoing webhooks end to end: the real app, a real worker process (`node src/main.ts worker`), the harness's
// Temporal, PostgreSQL and SeaweedFS, and a real local receiver verifying signatures with verifyWebhook.
// The schedule is shortened (WEBHOOK_RETRY_DELAYS=0,1,1,1,1,1; WEBHOOK_TIMEOUT_MS=1500); the default schedule runs
// on the time-skipping server in test/workflows/webhook-delivery.test.ts.
import { SHORT_OUTSIDE_STEP_TIMINGS } from '../../../src/config.ts';
import { createDelivery, deliveryStart } from '../../../src/modules/deliveries/delivery.service.ts';
import { startHandover } from '../../../src/handover/relay.ts';
import { withOutsideStepTimings } from '../../../src/handover/handover.ts';
import { WebhookDeliveryAttemptSchema } from '../../../src/modules/deliveries/delivery.entity.ts';
import { webhookDeliveryWorkflowId, type OutsideStepTimings } from '../../../workflows/shared.ts';
import { configureWebhook, processedRecording, RECORDING_BYTES, SEGMENTS } from '../../helpers/delivery-fixtures.ts';
import { addParticipant, bearer, createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { freePort } from '../../helpers/free-port.ts';
import { createRecordingStack, type RecordingStack, type WorkerProcess } from '../../helpers/recording-stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { sample } from '../../helpers/prometheus.ts';
import { startedRun } from '../../helpers/handovers.ts';

const SECRET = 'whsec_integration_secret_0123456789abcdef';
const SCHEDULE = [0, 1, 1, 1, 1, 1];

let stack: RecordingStack;
let worker: WorkerProcess;
let receiver: WebhookReceiver;
let tenant: TenantFixture;
let other: TenantFixture;
let room: { id: string; name: string };
let workerMetricsPort: number;

/** The worker's convene_webhook_attempts_total by outcome. */
async function attemptCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
  const outcomes = ['succeeded', 'http_error', 'timeout', 'network_error'];
  return Object.fromEntries(outcomes.map((outcome) => [outcome, sample(text, 'convene_webhook_attempts_total', { outcome })]));
}

beforeAll(async () => {
  // The worker serves its own /metrics (docs/decisions.md §12), where each attempt is counted by outcome.
  workerMetricsPort = await freePort();
  stack = await createRecordingStack({
    env: {
      WEBHOOK_RETRY_DELAYS: SCHEDULE.join(','),
      WEBHOOK_TIMEOUT_MS: '1500',
      WORKER_METRICS_PORT: String(workerMetricsPort),
      // The SIGKILL test: the run's workflow task queued for the dead worker goes to the new one after 1 s, not 10 s.
      WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '1',
    },
  });
  worker = await stack.startWorker();
  receiver = await startWebhookReceiver(SECRET);
  tenant = await createTenant(stack.t);
  other = await createTenant(stack.t);
  room = await createRoom(stack.t, tenant);
  await addParticipant(stack.t, tenant, room.id);
  await addParticipant(stack.t, tenant, room.id, { display_name: 'Grace' });
  await configureWebhook(stack.t, tenant, { url: receiver.url, secret: SECRET });
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

/**
 * What post-meeting processing does: a result row, the delivery row (createDelivery), then the workflow start, with
 * `outsideStepTimings` (workflows/shared.ts) in its input when given.
 */
async function deliver(options: Parameters<typeof processedRecording>[3] = {}, outsideStepTimings?: OutsideStepTimings) {
  const recording = await processedRecording(stack.t, tenant, room.id, options);
  const delivery = await createDelivery(stack.t.services.orm.em.fork(), stack.t.services.tenants, {
    tenantId: tenant.id,
    roomId: room.id,
    recordingId: recording.recordingId,
  });
  await startHandover(stack.temporal, stack.taskQueue, withOutsideStepTimings(deliveryStart(delivery!, SCHEDULE), outsideStepTimings));
  return { ...recording, deliveryId: delivery!.id };
}

const result = async (deliveryId: string) => (await startedRun(stack.temporal, webhookDeliveryWorkflowId(deliveryId))).result();
const getDelivery = (id: string, auth = tenant.auth) => stack.t.request.get(`/api/v1/webhook-deliveries/${id}`).set(auth);
const since = (n: number) => receiver.received.slice(n);

test('a delivery arrives signed, with every header and the full payload, and is logged as succeeded', async () => {
  receiver.script([{ status: 200, body: 'thanks' }]);
  const before = receiver.received.length;
  const { deliveryId, recordingId, transcriptId, wordCount } = await deliver();
  expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 1 });

  const [hook] = since(before);
  expect(hook.signatureValid).toBe(true);
  expect(hook.schemaErrors).toBeNull();
  expect(hook.headers).toMatchObject({
    'content-type': 'application/json',
    'user-agent': 'Convene-Webhook/1.0',
    'x-convene-event': 'meeting.recording_ready',
    'x-convene-delivery': deliveryId,
  });
  expect(hook.headers['x-convene-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(Math.abs(Number(hook.headers['x-convene-timestamp']) - Date.now() / 1000)).toBeLessThan(30);

  const body = hook.json;
  expect(body).toMatchObject({
    event: 'meeting.recording_ready',
    meeting: { id: room.id, name: room.name, ended_at: null, participant_count: 2, duration_seconds: 6 },
    recording: { id: recordingId, duration_seconds: 6, size_bytes: RECORDING_BYTES.length, download_api: `/api/v1/recordings/${recordingId}/download` },
    transcript: {
      id: transcriptId,
      word_count: wordCount,
      language: 'en-US',
      provider: 'openai',
      segments: SEGMENTS.map(({ start, end, text }) => ({ start, end, text })),
    },
    summary: 'The team agreed on the report.',
    action_items: ['Alice will send the report by Friday.'],
  });
  expect(body.errors).toBeUndefined();
  const expiresIn = Date.parse(body.recording.expires_at) - Date.parse(body.timestamp);
  expect(Math.abs(expiresIn - 24 * 3600_000)).toBeLessThan(5000);
  // The presigned URL serves the stored file, without credentials.
  const file = await fetch(body.recording.download_url);
  expect(file.status).toBe(200);
  expect(Buffer.from(await file.arrayBuffer())).toEqual(RECORDING_BYTES);

  const res = await getDelivery(deliveryId);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({
    id: deliveryId,
    status: 'succeeded',
    url: receiver.url,
    room_id: room.id,
    recording_id: recordingId,
    attempt_count: 1,
    last_response_status_code: 200,
    next_attempt_at: null,
    resent_from: null,
  });
  expect(res.body.data.completed_at).not.toBeNull();
  expect(res.body.data.attempts).toEqual([
    expect.objectContaining({ attempt: 1, status: 'succeeded', response_status_code: 200, error: null, next_attempt_at: null }),
  ]);
  const [row] = await stack.t.services.orm.em.fork().find(WebhookDeliveryAttemptSchema, { delivery: deliveryId });
  expect(row.responseBody).toBe('thanks');
  // No secret in the delivery log, the API's logs or the worker's (docs/security.md, "Secrets"): not the webhook
  // secret, not the tenant's key, not the presigned link the receiver got (its signature is a credential for the
  // recording).
  const signature = new URL(body.recording.download_url).searchParams.get('X-Amz-Signature')!;
  expect(signature).toMatch(/^[0-9a-f]{64}$/);
  const list = await stack.t.request.get('/api/v1/webhook-deliveries').set(tenant.auth).expect(200);
  for (const [place, text] of [['delivery', res.text], ['delivery list', list.text], ['API logs', stack.t.logs()], ['worker logs', worker.output()]]) {
    for (const [name, secret] of [['webhook secret', SECRET], ['tenant key', tenant.api_key], ['presigned signature', signature]]) {
      expect({ place, name, found: text.includes(secret) }).toEqual({ place, name, found: false });
    }
  }
}, 60_000);

test('include flags off: only event, timestamp and meeting; a failed step still goes out with errors[]', async () => {
  await configureWebhook(stack.t, tenant, {
    url: receiver.url,
    secret: SECRET,
    include_recording: false,
    include_transcript: false,
    include_action_items: false,
  });
  try {
    receiver.script([{ status: 200 }]);
    const before = receiver.received.length;
    const failure = { field: 'summary' as const, code: 'ai_processing_failed' as const, message: 'The AI provider answered 503' };
    const { deliveryId } = await deliver({ summary: null, errors: [failure] });
    expect(await result(deliveryId)).toMatchObject({ status: 'succeeded' });
    const [hook] = since(before);
    expect(hook.schemaErrors).toBeNull();
    expect(Object.keys(hook.json).sort()).toEqual(['errors', 'event', 'meeting', 'summary', 'timestamp']);
    expect(hook.json.summary).toBeNull();
    expect(hook.json.errors).toEqual([failure]);
  } finally {
    await configureWebhook(stack.t, tenant, { url: receiver.url, secret: SECRET });
  }
}, 60_000);

test('a transcript too large for the 5 MB bound loses its segments, with an errors[] entry saying so', async () => {
  receiver.script([{ status: 200 }]);
  const before = receiver.received.length;
  const line = 'word '.repeat(20).trim();
  const segments = Array.from({ length: 40_000 }, (_, i) => ({ start: i, end: i + 1, text: line, speaker: 'speaker_0' }));
  const { deliveryId, wordCount } = await deliver({ segments });
  expect(await result(deliveryId)).toMatchObject({ status: 'succeeded' });
  const [hook] = since(before);
  expect(hook.signatureValid).toBe(true);
  expect(hook.schemaErrors).toBeNull();
  expect(hook.rawBody.length).toBeLessThanOrEqual(5 * 1024 * 1024);
  expect(hook.json.transcript.segments).toEqual([]);
  expect(hook.json.transcript.word_count).toBe(wordCount);
  expect(hook.json.transcript.text.length).toBeGreaterThan(1_000_000);
  expect(hook.json.errors).toEqual([expect.objectContaining({ field: 'transcript', code: 'payload_too_large' })]);
}, 60_000);

test('a 4xx other than 408/429 fails for good at once', async () => {
  receiver.script([{ status: 410, body: 'gone' }]);
  const before = receiver.received.length;
  const { deliveryId } = await deliver();
  expect(await result(deliveryId)).toEqual({ status: 'failed', attempts: 1 });
  expect(since(before)).toHaveLength(1);
  const res = await getDelivery(deliveryId);
  expect(res.body.data).toMatchObject({ status: 'failed', attempt_count: 1, last_response_status_code: 410, next_attempt_at: null });
  expect(res.body.data.attempts[0]).toMatchObject({ status: 'failed', response_status_code: 410, error: 'Receiver answered 410' });
}, 60_000);

test('a 3xx is a failure: the redirect is never followed', async () => {
  const elsewhere = await startWebhookReceiver(SECRET);
  try {
    receiver.script([{ status: 302, headers: { Location: elsewhere.url } }]);
    const { deliveryId } = await deliver();
    expect(await result(deliveryId)).toEqual({ status: 'failed', attempts: 1 });
    expect(elsewhere.received).toHaveLength(0);
    const res = await getDelivery(deliveryId);
    expect(res.body.data.attempts[0]).toMatchObject({ response_status_code: 302, error: 'Receiver answered 302 (redirects are not followed)' });
  } finally {
    await elsewhere.close();
  }
}, 60_000);

test('500, then a timeout, then a connection reset, then 200: succeeded with 4 attempts recorded, each counted by outcome', async () => {
  receiver.script([{ status: 500 }, { hang: true }, { reset: true }, { status: 200 }]);
  const before = receiver.received.length;
  const countsBefore = await attemptCounts();
  const { deliveryId } = await deliver();
  expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 4 });
  const hooks = since(before);
  expect(hooks).toHaveLength(4);
  // The same delivery id on every attempt, each signed afresh (and valid).
  expect(new Set(hooks.map((h) => h.headers['x-convene-delivery']))).toEqual(new Set([deliveryId]));
  expect(hooks.every((h) => h.signatureValid && h.schemaErrors === null)).toBe(true);
  const res = await getDelivery(deliveryId);
  expect(res.body.data).toMatchObject({ status: 'succeeded', attempt_count: 4, last_response_status_code: 200 });
  expect(res.body.data.attempts.map((a: any) => [a.status, a.response_status_code, a.error])).toEqual([
    ['failed', 500, 'Receiver answered 500'],
    ['failed', null, 'No response within 1500 ms'],
    ['failed', null, 'Connection reset by the receiver'],
    ['succeeded', 200, null],
  ]);
  expect(res.body.data.attempts[1].duration_ms).toBeGreaterThanOrEqual(1400);
  expect(res.body.data.attempts[0].next_attempt_at).not.toBeNull();
  // The worker's /metrics moved once per outcome (the workflow's result means every attempt was recorded).
  const countsAfter = await attemptCounts();
  expect(Object.fromEntries(Object.entries(countsAfter).map(([outcome, n]) => [outcome, n - countsBefore[outcome]!]))).toEqual({
    succeeded: 1,
    http_error: 1,
    timeout: 1,
    network_error: 1,
  });
}, 60_000);

test('429 with Retry-After: the next attempt waits for it (longer than the 1 s schedule)', async () => {
  receiver.script([{ status: 429, headers: { 'Retry-After': '3' } }, { status: 200 }]);
  const before = receiver.received.length;
  const { deliveryId } = await deliver();
  expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 2 });
  const [first, second] = since(before);
  expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(2900);
  const res = await getDelivery(deliveryId);
  const [a1] = res.body.data.attempts;
  expect(a1).toMatchObject({ status: 'failed', response_status_code: 429 });
  expect(Date.parse(a1.next_attempt_at) - Date.parse(a1.attempted_at)).toBeGreaterThanOrEqual(3000);
}, 60_000);

test('the log: filtered by status, paged, newest first; another tenant sees nothing and gets 404', async () => {
  const all = await stack.t.request.get('/api/v1/webhook-deliveries?limit=100').set(tenant.auth);
  expect(all.status).toBe(200);
  expect(all.body.meta.total).toBeGreaterThanOrEqual(5);
  const created = all.body.data.map((d: any) => d.created_at);
  expect([...created].sort().reverse()).toEqual(created);

  const failed = await stack.t.request.get('/api/v1/webhook-deliveries?status=failed').set(tenant.auth);
  expect(failed.body.data.length).toBeGreaterThanOrEqual(2);
  expect(failed.body.data.every((d: any) => d.status === 'failed')).toBe(true);

  const page = await stack.t.request.get('/api/v1/webhook-deliveries?limit=2&offset=1').set(tenant.auth);
  expect(page.body.data.map((d: any) => d.id)).toEqual(all.body.data.slice(1, 3).map((d: any) => d.id));
  expect(page.body.meta).toEqual({ total: all.body.meta.total, limit: 2, offset: 1 });

  const bad = await stack.t.request.get('/api/v1/webhook-deliveries?status=lost').set(tenant.auth);
  expect(bad.status).toBe(400);

  // A participant's token (even a host's) does not reach the tenant's delivery log.
  const host = await addParticipant(stack.t, tenant, room.id, { role: 'host' });
  expect((await stack.t.request.get('/api/v1/webhook-deliveries').set(bearer(host.auth_token))).status).toBe(403);

  const theirs = await stack.t.request.get('/api/v1/webhook-deliveries').set(other.auth);
  expect(theirs.body).toEqual({ data: [], meta: { total: 0, limit: 20, offset: 0 } });
  const id = all.body.data[0].id;
  expect((await getDelivery(id, other.auth)).status).toBe(404);
  expect((await stack.t.request.post(`/api/v1/webhook-deliveries/${id}/resend`).set(other.auth)).status).toBe(404);
  expect((await getDelivery('0192f0a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e')).status).toBe(404);
}, 60_000);

test('re-send: a new delivery with resent_from, to the CURRENT url; refused while pending or when disabled', async () => {
  receiver.script([{ status: 200 }]);
  const { deliveryId } = await deliver();
  expect(await result(deliveryId)).toMatchObject({ status: 'succeeded' });

  // A delivery still pending (created, its first attempt not made) cannot be re-sent.
  const { recordingId } = await processedRecording(stack.t, tenant, room.id);
  const pending = await createDelivery(stack.t.services.orm.em.fork(), stack.t.services.tenants, { tenantId: tenant.id, roomId: room.id, recordingId });
  const refused = await stack.t.request.post(`/api/v1/webhook-deliveries/${pending!.id}/resend`).set(tenant.auth);
  expect(refused.status).toBe(400);
  expect(refused.body.error.code).toBe('INVALID_STATE');

  const moved = await startWebhookReceiver(SECRET, '/new-endpoint');
  try {
    await configureWebhook(stack.t, tenant, { url: moved.url, secret: SECRET });
    const res = await stack.t.request.post(`/api/v1/webhook-deliveries/${deliveryId}/resend`).set(tenant.auth);
    expect(res.status).toBe(202);
    const copy = res.body.data;
    expect(copy).toMatchObject({ status: 'pending', resent_from: deliveryId, url: moved.url, attempt_count: 0, recording_id: expect.any(String) });
    expect(copy.id).not.toBe(deliveryId);
    expect(await result(copy.id)).toEqual({ status: 'succeeded', attempts: 1 });
    const [hook] = await moved.waitFor(1);
    expect(hook.signatureValid).toBe(true);
    expect(hook.headers['x-convene-delivery']).toBe(copy.id);
    expect((await getDelivery(copy.id)).body.data).toMatchObject({ status: 'succeeded', resent_from: deliveryId });

    await patchConfig(stack.t, tenant, { post_meeting_webhook: { enabled: false } });
    const disabled = await stack.t.request.post(`/api/v1/webhook-deliveries/${deliveryId}/resend`).set(tenant.auth);
    expect(disabled.status).toBe(400);
    expect(disabled.body.error.code).toBe('INVALID_STATE');
  } finally {
    await moved.close();
    await configureWebhook(stack.t, tenant, { url: receiver.url, secret: SECRET });
  }
}, 60_000);

test('a worker SIGKILLed mid-attempt: the attempt runs again on a new worker, one delivery succeeded', async () => {
  receiver.script([{ status: 200, delayMs: 4000 }, { status: 200 }]);
  const before = receiver.received.length;
  // The killed attempt is noticed after a 5 s heartbeat timeout and run again 0.5 s later (SHORT_OUTSIDE_STEP_TIMINGS,
  // src/config.ts), instead of the workflow's 10 s and 1 s.
  const { deliveryId } = await deliver({}, SHORT_OUTSIDE_STEP_TIMINGS);
  await receiver.waitFor(before + 1);
  await worker.kill();
  worker = await stack.startWorker();
  expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 1 });
  const hooks = since(before);
  // The killed attempt's POST and the repeat carry the same X-Convene-Delivery: the receiver can deduplicate.
  expect(hooks.length).toBeGreaterThanOrEqual(2);
  expect(new Set(hooks.map((h) => h.headers['x-convene-delivery']))).toEqual(new Set([deliveryId]));
  const res = await getDelivery(deliveryId);
  expect(res.body.data).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  expect(res.body.data.attempts).toHaveLength(1);
}, 90_000);

// One trace per recording (docs/decisions.md §12), seen from outside as an operator's OTLP viewer sees it: a real API
// process and a real worker process export over OTLP/HTTP (http/json) to a receiver in this test. A recording made at
// the development media provider goes from the provider's notification through the hand-over, ingestion, post-meeting
// (transcription by the `openai` provider, the development media server) and the delivery to a real webhook
// receiver, and every step is a span of the notification's trace; the receiver's `traceparent` names it, the delivery
// workflow's start header holds it, and the processes' log lines carry it as `trace_id`.
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../harness/database.ts';
import { startApiProcess, type ApiProcess } from '../../helpers/api-process.ts';
import { freePort } from '../../helpers/free-port.ts';
import { scanHistories, listRunsUntil } from '../../helpers/history-scan.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.ts';
import { spawnWorker, WEBHOOK_SECRET, type WorkerProcess } from '../../helpers/recording-stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';

const ADMIN_KEY = 'test-admin-key-traces-0123456789';
const SECRET = 'whsec_traces_0123456789abcdef0123456789';
const PROVIDER_KEY = 'sk-operator-traces-0123456789abcdef';
const SERVER_KIND = 2;

let otlp: OtlpReceiver;
let receiver: WebhookReceiver;
let db: TestDatabase;
let api: ApiProcess;
let media: DevMediaServer;
let worker: WorkerProcess;
let connection: Connection;
let temporal: Client;
let tenant: { id: string; api_key: string };
let recordingId: string;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  receiver = await startWebhookReceiver(SECRET);
  db = await createTestDatabase();
  const mediaPort = await freePort();
  const env = {
    ADMIN_API_KEY: ADMIN_KEY,
    SSRF_ALLOW_LOOPBACK: 'true',
    UPSTREAM_API_URL: `http://127.0.0.1:${mediaPort}`,
    UPSTREAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TEMPORAL_TASK_QUEUE: `traces-test-${randomUUID()}`,
    OPENAI_BASE_URL: `http://127.0.0.1:${mediaPort}/v1`,
    OPENAI_API_KEY: PROVIDER_KEY,
    LOG_LEVEL: 'info',
    // What docs/operations.md tells an operator to set, with the receiver in place of Jaeger's port 4318.
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  api = await startApiProcess(db.url, env, 'traced API process');
  media = await startDevMediaServer({
    port: mediaPort,
    webhookSecret: WEBHOOK_SECRET,
    notifyUrl: `${api.baseUrl}/api/v1/webhooks/upstream/recording-ready`,
    processingDelayMs: 20,
    notifyRetryDelaysMs: [0, 200, 500],
    recordingSeconds: 30,
  });
  const inherited = ['PATH', 'HOME', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'TEMPORAL_ADDRESS'];
  worker = await spawnWorker({
    ...Object.fromEntries(inherited.filter((n) => process.env[n] !== undefined).map((n) => [n, process.env[n]!])),
    ...env,
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    PUBLIC_BASE_URL: api.baseUrl,
  });
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });

  tenant = (await expectStatus(api.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Traced' }), 201)).data;
  const auth = { 'X-API-Key': tenant.api_key };
  await expectStatus(
    api.call('PATCH', `/api/v1/tenants/${tenant.id}/config`, auth, {
      post_meeting_webhook: { enabled: true, url: receiver.url, secret: SECRET, include_transcript: true, include_summary: true, transcription: { provider: 'openai' } },
    }),
    200,
  );
  const room = await expectStatus(api.call('POST', '/api/v1/rooms', auth, { name: 'traced-weekly', config: { recording_enabled: true } }), 201);
  recordingId = (await expectStatus(api.call('POST', `/api/v1/rooms/${room.id}/recordings/start`, auth), 201)).data.id;
  await expectStatus(api.call('POST', `/api/v1/rooms/${room.id}/recordings/stop`, auth), 200);
  await media.settled();
  await receiver.waitFor(1, 150_000);
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  await media?.stop();
  await connection?.close();
  await receiver?.close();
  await otlp?.close();
  await db?.drop();
}, 60_000);

/** The notification's server span: the root of the recording's trace. */
const notification = (spans: ReceivedSpan[]) =>
  spans.find((s) => s.service === 'convene-api' && s.kind === SERVER_KIND && s.name === 'POST receiveUpstreamRecordingReady');

/** Every step of the recording's way, by the name its span has (Temporal's interceptors name theirs `<Kind>:<type>`). */
const STEPS = [
  'POST receiveUpstreamRecordingReady',
  'handover recordingIngestWorkflow',
  'StartWorkflow:recordingIngestWorkflow',
  'RunWorkflow:recordingIngestWorkflow',
  'RunActivity:storeRecordingFile',
  'GET recording link',
  'RunActivity:markRecordingReady',
  'StartChildWorkflow:postMeetingWorkflow',
  'RunWorkflow:postMeetingWorkflow',
  'RunActivity:planPostMeeting',
  'RunActivity:transcribePostMeetingRecording',
  'POST openai',
  'RunActivity:summarisePostMeeting',
  'RunActivity:completePostMeeting',
  'handover webhookDeliveryWorkflow',
  'StartWorkflow:webhookDeliveryWorkflow',
  'RunWorkflow:webhookDeliveryWorkflow',
  'RunActivity:attemptWebhookDelivery',
  'POST webhook',
];

test("the notification starts one trace that every step joins, to the webhook POST; the receiver's traceparent names it", async () => {
  const [hook] = receiver.received;
  const traceparent = String(hook.headers.traceparent ?? '');
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const [, traceId, postSpanId] = traceparent.split('-');

  // The workflow spans arrive when their runs complete: wait for all of them, under a generous deadline.
  const spans = await otlp.waitFor((all) => STEPS.every((name) => all.some((s) => s.traceId === traceId && s.name === name)), 120_000);
  const root = notification(spans)!;
  expect(root).toBeDefined();
  expect(root.traceId).toBe(traceId);
  expect(root.parentSpanId).toBeUndefined();
  // Each step is in that trace and in no other (one trace per recording).
  for (const name of STEPS) {
    expect([name, [...new Set(spans.filter((s) => s.name === name).map((s) => s.traceId))]]).toEqual([name, [traceId]]);
  }
  // The request and the hand-overs it recorded, in the API and worker processes; storage requests in the worker.
  expect(spans.find((s) => s.name === 'RunWorkflow:postMeetingWorkflow')?.service).toBe('convene-worker');
  expect(spans.some((s) => s.traceId === traceId && s.service === 'convene-worker' && /^S3\.(PutObject|UploadPart|CompleteMultipartUpload)$/.test(s.name))).toBe(true);

  // What docs/operations.md searches by: a run's id on its activities' spans, the delivery id on its POST.
  const deliveryId = String(hook.headers['x-convene-delivery']);
  expect(spans.find((s) => s.name === 'RunActivity:storeRecordingFile')?.attributes.temporalWorkflowId).toBe(`recording-ingest-${recordingId}`);
  expect(spans.find((s) => s.name === 'POST webhook')?.attributes['convene.delivery_id']).toBe(deliveryId);
  // The provider's link carries its credentials: its span names the host, never the link.
  const download = spans.find((s) => s.name === 'GET recording link')!;
  expect(download.attributes['server.address']).toBe('127.0.0.1');
  expect(JSON.stringify(download.attributes)).not.toMatch(/sig=|token=|X-Amz-Signature/i);

  // The receiver's parent is the POST span, and its ancestors lead back to the notification, step by step.
  const byId = new Map(spans.filter((s) => s.traceId === traceId).map((s) => [s.spanId, s]));
  const post = byId.get(postSpanId)!;
  expect(post.name).toBe('POST webhook');
  const chain: string[] = [];
  for (let span: ReceivedSpan | undefined = post; span; span = span.parentSpanId ? byId.get(span.parentSpanId) : undefined) {
    chain.unshift(span.name);
    if (!span.parentSpanId) expect(span).toBe(root);
  }
  expect(chain[0]).toBe('POST receiveUpstreamRecordingReady');
  expect(chain).toEqual(
    expect.arrayContaining([
      'handover recordingIngestWorkflow',
      'RunWorkflow:recordingIngestWorkflow',
      'RunWorkflow:postMeetingWorkflow',
      'RunActivity:completePostMeeting',
      'handover webhookDeliveryWorkflow',
      'RunWorkflow:webhookDeliveryWorkflow',
      'RunActivity:attemptWebhookDelivery',
    ]),
  );
}, 150_000);

test('the API and the worker write the trace id on their log lines of it', async () => {
  const traceId = String(receiver.received[0].headers.traceparent).split('-')[1];
  const lines = (output: string) => output.split('\n').filter((line) => line.includes(`"trace_id":"${traceId}"`));
  // The notification's request line (the API), and the worker's lines of its activities.
  expect(lines(api.output()).some((line) => line.includes('"msg":"request"'))).toBe(true);
  expect(lines(worker.output()).length).toBeGreaterThan(0);
});

test("from a delivery id to its trace: the delivery workflow's start header holds the trace; no history holds a secret", async () => {
  const deliveryId = String(receiver.received[0].headers['x-convene-delivery']);
  const traceId = String(receiver.received[0].headers.traceparent).split('-')[1];
  const [run] = await listRunsUntil(temporal, `ConveneDeliveryId = "${deliveryId}"`, (runs) => runs.length >= 1);
  const history = await temporal.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const header = history.events?.[0]?.workflowExecutionStartedEventAttributes?.header?.fields?.['_tracer-data'];
  const carried = defaultPayloadConverter.fromPayload<{ traceparent: string }>(header as never);
  expect(carried.traceparent.split('-')[1]).toBe(traceId);

  // The trace headers are ids only (docs/decisions.md §13): every event of every run of the tenant is scanned.
  const scan = await scanHistories(temporal, `ConveneTenantId = "${tenant.id}"`, [tenant.api_key, SECRET, PROVIDER_KEY]);
  expect(scan.findings).toEqual([]);
});

async function expectStatus(call: Promise<{ status: number; body: any }>, status: number): Promise<any> {
  const res = await call;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

// The whole product path in one run, as a tenant sees it: a recording made at the (development) media provider is
// ingested into S3, transcribed by the `openai` provider (the development media server), summarised by the builtin
// analyser, and delivered as a signed `meeting.recording_ready` webhook to a real receiver; the delivery log shows it.
import { postMeetingWorkflowId, transcriptionTaskQueue, transcriptionWorkflowId, webhookDeliveryWorkflowId } from '../../../workflows/shared.ts';
import { createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { freePort } from '../../helpers/free-port.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';
import { asOwnerTask } from '../../helpers/scripted-items.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { sample } from '../../helpers/prometheus.ts';
import { listRunsUntil, scanHistories, type RunRef } from '../../helpers/history-scan.ts';
import { metrics } from '../../../src/metrics/metrics.ts';
import { startedRun } from '../../helpers/handovers.ts';

const SECRET = 'whsec_pipeline_0123456789abcdef0123456789';
// Known secrets the histories must never hold (docs/decisions.md §13): the operator's and the tenant's provider keys.
const OPERATOR_PROVIDER_KEY = 'sk-operator-pipeline-0123456789abcdef';
const TENANT_PROVIDER_KEY = 'sk-tenant-pipeline-abcdef0123456789';
let stack: RecordingStack;
let receiver: WebhookReceiver;
let workerMetricsUrl: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET);
  const mediaPort = await freePort();
  // The worker serves its own /metrics (docs/decisions.md §12): the delivery, transcription and AI work is counted there.
  const workerMetricsPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${workerMetricsPort}/metrics`;
  stack = await createRecordingStack({
    media: { port: mediaPort, recordingSeconds: 30 },
    env: {
      OPENAI_BASE_URL: `http://127.0.0.1:${mediaPort}/v1`,
      OPENAI_API_KEY: OPERATOR_PROVIDER_KEY,
      WORKER_METRICS_PORT: String(workerMetricsPort),
    },
  });
  await stack.startWorker();
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

describe('recording → ingestion → transcript → summary → signed webhook', () => {
  let tenant: TenantFixture;
  let roomId: string;
  let recordingId: string;
  let queuedTranscriptId: string;

  beforeAll(async () => {
    tenant = await createTenant(stack.t);
    await patchConfig(stack.t, tenant, {
      post_meeting_webhook: {
        enabled: true,
        url: receiver.url,
        secret: SECRET,
        include_recording: true,
        include_transcript: true,
        include_summary: true,
        include_action_items: true,
        transcription: { provider: 'openai', api_key: TENANT_PROVIDER_KEY },
      },
    });
    roomId = (await createRoom(stack.t, tenant, { name: 'pipeline-weekly', config: { recording_enabled: true } })).id;
    const started = await stack.t.request.post(`/api/v1/rooms/${roomId}/recordings/start`).set(tenant.auth).expect(201);
    recordingId = started.body.data.id;
    await stack.t.request.post(`/api/v1/rooms/${roomId}/recordings/stop`).set(tenant.auth).expect(200);
    await stack.media.settled();
    await stack.ingestionResult(recordingId);
    await stack.temporal.workflow.getHandle(postMeetingWorkflowId(recordingId)).result();
  }, 180_000);

  test('the receiver gets one signed webhook carrying the recording, the transcript, the summary and the action items', async () => {
    const [hook] = await receiver.waitFor(1, 60_000);
    expect(hook.signatureValid).toBe(true);
    expect(hook.schemaErrors).toBeNull();
    expect(hook.headers['x-convene-event']).toBe('meeting.recording_ready');
    expect(hook.headers['user-agent']).toBe('Convene-Webhook/1.0');
    const body = hook.json;
    expect(body.meeting).toMatchObject({ id: roomId, name: 'pipeline-weekly' });
    expect(body.recording).toMatchObject({ id: recordingId, download_api: `/api/v1/recordings/${recordingId}/download` });

    // The transcript is the meeting the provider "heard": the development media server knows its script.
    const script = stack.media.transcriptFor(stack.media.listRecordings(roomId)[0].id);
    expect(body.transcript.text).toBe(script.text);
    expect(body.transcript.word_count).toBe(script.text.split(/\s+/).filter(Boolean).length);
    expect(body.transcript.segments).toHaveLength(script.segments.length);
    expect(typeof body.summary).toBe('string');
    expect(body.summary.length).toBeGreaterThan(20);
    // The builtin analyser finds exactly the action items the script assigns, written "Owner: task".
    expect([...body.action_items].sort()).toEqual(script.actionItems.map(asOwnerTask).sort());
    expect(body.errors ?? []).toEqual([]);

    // The presigned link serves the stored file.
    const file = await fetch(body.recording.download_url);
    expect(file.status).toBe(200);
    expect(Number(file.headers.get('content-length'))).toBe(body.recording.size_bytes);
    await file.body?.cancel();
  });

  test('the delivery log shows the delivery succeeded with its attempt, and the room lists its post-meeting transcript', async () => {
    const deliveryId = receiver.received[0].headers['x-convene-delivery'];
    const list = await stack.t.request.get('/api/v1/webhook-deliveries').set(tenant.auth).expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(deliveryId);
    const one = await stack.t.request.get(`/api/v1/webhook-deliveries/${deliveryId}`).set(tenant.auth).expect(200);
    expect(one.body.data).toMatchObject({ status: 'succeeded', recording_id: recordingId, room_id: roomId, attempt_count: 1 });
    expect(one.body.data.attempts).toHaveLength(1);
    expect(one.body.data.attempts[0]).toMatchObject({ attempt: 1, status: 'succeeded', response_status_code: 200 });

    const transcripts = await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200);
    expect(transcripts.body.data).toHaveLength(1);
    expect(transcripts.body.data[0]).toMatchObject({ recording_id: recordingId, status: 'completed' });
  });

  test("the worker's /metrics counts the delivery attempt, the transcription and the analysis where they ran; the API counts the workflows it starts", async () => {
    const scrapeWorker = async () => {
      const res = await fetch(workerMetricsUrl);
      expect(res.status).toBe(200);
      return res.text();
    };
    const attempts = (text: string) => sample(text, 'convene_webhook_attempts_total', { outcome: 'succeeded' });
    const transcriptions = (text: string) => sample(text, 'convene_transcription_duration_seconds_count', { provider: 'openai', result: 'ok' });

    // A fresh worker process did exactly this run's work: one attempt, one transcription, one builtin analysis.
    const afterPipeline = await scrapeWorker();
    expect(attempts(afterPipeline)).toBe(1);
    expect(sample(afterPipeline, 'convene_webhook_attempts_total', { outcome: 'http_error' })).toBe(0);
    expect(transcriptions(afterPipeline)).toBe(1);
    expect(sample(afterPipeline, 'convene_transcription_duration_seconds_sum', { provider: 'openai', result: 'ok' })).toBeGreaterThan(0);
    expect(sample(afterPipeline, 'convene_ai_duration_seconds_count', { provider: 'builtin', result: 'ok' })).toBe(1);
    // Starts are made by the hand-over relay of whichever process takes the row first (docs/decisions.md §15): the API's,
    // woken by its own commit, or the worker's poll. Counted across both.
    const startsIn = (text: string, kind: string) => sample(text, 'convene_workflow_starts_total', { kind });
    const startsEverywhere = async (kind: string) => startsIn(await metrics.registry.metrics(), kind) + startsIn(await scrapeWorker(), kind);
    const startsBefore = { transcription: await startsEverywhere('transcriptionWorkflow'), delivery: await startsEverywhere('webhookDeliveryWorkflow') };

    // A re-send and a queued transcription are recorded by the API process (this test's app) and run by the worker.
    const deliveryId = receiver.received[0].headers['x-convene-delivery'];
    const resent = await stack.t.request.post(`/api/v1/webhook-deliveries/${deliveryId}/resend`).set(tenant.auth).expect(202);
    const queued = await stack.t.request
      .post(`/api/v1/recordings/${recordingId}/transcribe`)
      .set(tenant.auth)
      .send({ room_id: roomId })
      .expect(202);
    await startedRun(stack.temporal, webhookDeliveryWorkflowId(resent.body.data.id));
    queuedTranscriptId = queued.body.transcript_id;
    await startedRun(stack.temporal, transcriptionWorkflowId(queued.body.transcript_id));
    // The counter moves just after the start returns: read until it has (a generous deadline), then exactly one each.
    for (let i = 0; i < 100; i++) {
      const moved = (await startsEverywhere('webhookDeliveryWorkflow')) > startsBefore.delivery && (await startsEverywhere('transcriptionWorkflow')) > startsBefore.transcription;
      if (moved) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await startsEverywhere('webhookDeliveryWorkflow')) - startsBefore.delivery).toBe(1);
    expect((await startsEverywhere('transcriptionWorkflow')) - startsBefore.transcription).toBe(1);


    await receiver.waitFor(2, 60_000);
    expect(receiver.received[1].headers['x-convene-delivery']).toBe(resent.body.data.id);
    await (await startedRun(stack.temporal, transcriptionWorkflowId(queued.body.transcript_id))).result();
    const deadline = Date.now() + 10_000;
    let afterMore = await scrapeWorker();
    // The activity records its attempt just after the receiver answers: wait for the count, never for a fixed time.
    while (attempts(afterMore) < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      afterMore = await scrapeWorker();
    }
    expect(attempts(afterMore)).toBe(2);
    expect(transcriptions(afterMore)).toBe(2);
  });

  test('the steps an operator sees: post-meeting transcribes in its own run; the retention timer sleeps from its first task', async () => {
    const steps = async (workflowId: string) => {
      const events = (await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      return {
        activities: events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [])),
        children: events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length,
        timers: events.filter((e) => e.timerStartedEventAttributes).length,
      };
    };
    expect(await steps(postMeetingWorkflowId(recordingId))).toEqual({
      activities: ['planPostMeeting', 'transcribePostMeetingRecording', 'summarisePostMeeting', 'completePostMeeting'],
      children: 0,
      timers: 0,
    });
    // The provider call ran on the provider's own task queue, which every worker serves within OPENAI_MAX_CONCURRENCY.
    const events = (await stack.temporal.workflow.getHandle(postMeetingWorkflowId(recordingId)).fetchHistory()).events ?? [];
    const call = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'transcribePostMeetingRecording');
    expect(call?.activityTaskScheduledEventAttributes?.taskQueue?.name).toBe(transcriptionTaskQueue(stack.taskQueue, 'openai'));
    // The ingestion read the retention deadline when it marked the recording ready: the timer needs no step first.
    expect(await steps(`recording-retention-${recordingId}`)).toEqual({ activities: [], children: 0, timers: 1 });
    expect(await steps(`recording-ingest-${recordingId}`)).toEqual({ activities: ['storeRecordingFile', 'markRecordingReady'], children: 2, timers: 0 });
  });

  test('an operator finds every run of the pipeline by recording, room, tenant and delivery, and no history holds a secret', async () => {
    const ids = (runs: RunRef[]) => runs.map((r) => r.workflowId).sort();
    const deliveryId = String(receiver.received[0].headers['x-convene-delivery']);
    const pipelineRuns = [
      `recording-ingest-${recordingId}`,
      `recording-autostop-${recordingId}`,
      `recording-retention-${recordingId}`,
      postMeetingWorkflowId(recordingId),
      `webhook-delivery-${deliveryId}`,
    ];
    const byRecording = await listRunsUntil(stack.temporal, `ConveneRecordingId = "${recordingId}"`, (runs) =>
      pipelineRuns.every((w) => ids(runs).includes(w)),
    );
    expect(ids(byRecording)).toEqual(expect.arrayContaining(pipelineRuns));
    // The transcription the test queued (Queue Transcription) is a run of its own, with the recording's attributes
    // too; post-meeting's own transcript is made inside the post-meeting run (no child run for it).
    const postMeetingTranscript = (await stack.t.request.get(`/api/v1/rooms/${roomId}/post-meeting-transcripts`).set(tenant.auth).expect(200)).body.data[0];
    expect(ids(byRecording).filter((id) => id.startsWith('transcription-'))).toEqual([transcriptionWorkflowId(queuedTranscriptId)]);
    expect(ids(byRecording)).not.toContain(transcriptionWorkflowId(postMeetingTranscript.id));
    // Every run found by the recording is about it: its own ids, its transcripts, its deliveries.
    for (const run of byRecording) expect(run.type).toMatch(/^(recording|postMeeting|transcription|webhookDelivery)/);

    const byDelivery = await listRunsUntil(stack.temporal, `ConveneDeliveryId = "${deliveryId}"`, (runs) => runs.length >= 1);
    expect(ids(byDelivery)).toEqual([`webhook-delivery-${deliveryId}`]);
    const byRoom = await listRunsUntil(stack.temporal, `ConveneRoomId = "${roomId}"`, (runs) => runs.length >= byRecording.length);
    expect(ids(byRoom)).toEqual(expect.arrayContaining(ids(byRecording)));
    const byTenant = await listRunsUntil(stack.temporal, `ConveneTenantId = "${tenant.id}"`, (runs) => runs.length >= byRoom.length);
    expect(ids(byTenant)).toEqual(ids(byRoom));

    // Every event of every run of this tenant: no key, token, secret or signed link (the patterns cover the shapes).
    const secrets = [tenant.api_key, SECRET, OPERATOR_PROVIDER_KEY, TENANT_PROVIDER_KEY];
    const scan = await scanHistories(stack.temporal, `ConveneTenantId = "${tenant.id}"`, secrets);
    expect(scan.runs.length).toBe(byTenant.length);
    expect(scan.events).toBeGreaterThan(50);
    expect(scan.findings).toEqual([]);
  });
});

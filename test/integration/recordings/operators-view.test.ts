// What an operator sees in Temporal after a recording's life (docs/decisions.md §13), on the real stack (the harness's Temporal
// dev server, which registers the Convene* search attributes; a real worker process): one query per tenant, room or
// recording finds exactly that resource's runs, each run says what it is, and no history holds a secret.
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { emptyRoomWorkflowId } from '../../../workflows/shared.ts';
import type { PostMeetingOutcome } from '../../../workflows/post-meeting.ts';
import {
  postMeetingWorkflowId,
  recordingAutoStopWorkflowId,
  recordingIngestWorkflowId,
  recordingRetentionWorkflowId,
  webhookDeliveryWorkflowId,
} from '../../../workflows/shared.ts';
import { createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { listRunsUntil, scanHistories, type RunRef } from '../../helpers/history-scan.ts';
import { createRecordingStack, WEBHOOK_SECRET, type RecordingStack } from '../../helpers/recording-stack.ts';

let stack: RecordingStack;
let tenant: TenantFixture;
const TENANT_WEBHOOK_SECRET = `whsec_${'4f'.repeat(16)}`;

beforeAll(async () => {
  stack = await createRecordingStack();
  await stack.startWorker();
  tenant = await createTenant(stack.t);
  await patchConfig(stack.t, tenant, {
    post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/convene-hook', secret: TENANT_WEBHOOK_SECRET },
  });
});
afterAll(async () => {
  await stack?.close();
});

const ids = (runs: RunRef[]) => runs.map((r) => r.workflowId).sort();

test('a recording run to ready: found by recording, room and tenant, summarised, and no secret in any history', async () => {
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const api = stack.t.request;
  const id = (await api.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201)).body.data.id as string;
  await api.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  await stack.media.settled();
  await stack.ingestionResult(id);
  const row = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  expect(row.status).toBe('ready');

  // The webhook is enabled, so post-meeting processing hands over to a delivery run; waiting for post-meeting's result
  // means every run of this recording has been started before the listings below (none can appear half-way).
  const postMeeting = (await stack.temporal.workflow.getHandle(postMeetingWorkflowId(id)).result()) as PostMeetingOutcome;
  expect(postMeeting.deliveryId).toEqual(expect.any(String));
  const deliveryRun = webhookDeliveryWorkflowId(postMeeting.deliveryId!);

  // The recording's own runs, the delivery of its webhook included; nothing else carries its id.
  const recordingRuns = [
    recordingAutoStopWorkflowId(id),
    recordingIngestWorkflowId(id),
    recordingRetentionWorkflowId(id),
    postMeetingWorkflowId(id),
    deliveryRun,
  ].sort();
  const byRecording = await listRunsUntil(stack.temporal, `ConveneRecordingId = "${id}"`, (runs) =>
    recordingRuns.every((w) => ids(runs).includes(w)),
  );
  expect(ids(byRecording)).toEqual(recordingRuns);
  // The delivery is named after the delivery, not the recording: it is found by its type.
  expect(byRecording.filter((run) => run.type === 'webhookDeliveryWorkflow').map((run) => run.workflowId)).toEqual([deliveryRun]);

  // The room's: its empty-room timer and its recording's runs.
  const roomRuns = [...recordingRuns, emptyRoomWorkflowId(room.id)].sort();
  const byRoom = await listRunsUntil(stack.temporal, `ConveneRoomId = "${room.id}"`, (runs) => roomRuns.every((w) => ids(runs).includes(w)));
  expect(ids(byRoom)).toEqual(roomRuns);

  // The tenant's: this tenant has this one room, so the same runs.
  const byTenant = await listRunsUntil(stack.temporal, `ConveneTenantId = "${tenant.id}"`, (runs) => roomRuns.every((w) => ids(runs).includes(w)));
  expect(ids(byTenant)).toEqual(roomRuns);

  // Each run says what it is (staticSummary), e.g. the ingestion names the recording and the room.
  const ingest = await stack.temporal.workflow.getHandle(recordingIngestWorkflowId(id)).fetchHistory();
  const started = ingest.events![0];
  const summary = started.userMetadata?.summary?.data;
  expect(JSON.parse(Buffer.from(summary!).toString('utf8'))).toBe(`ingest recording ${id} of room "${room.name}"`);
  // ...and its input is ids only: no link to the media, signed or not.
  const input = Buffer.from(started.workflowExecutionStartedEventAttributes!.input!.payloads![0].data!).toString('utf8');
  expect(JSON.parse(input)).toEqual({
    recordingId: id,
    tenantId: tenant.id,
    roomId: room.id,
    upstreamRecordingId: row.upstreamRecordingId,
    retryWindowSeconds: 86_400,
  });

  // No secret anywhere: the tenant's API key and webhook secret, the provider's notification secret, the S3 secret
  // key, the signed media link the notification carried; and no signed-URL, key, token or JWT shape at all.
  const notifiedLink = new URL(JSON.parse(stack.media.notificationFor(row.upstreamRecordingId!).body).url as string);
  const secrets = [tenant.api_key, TENANT_WEBHOOK_SECRET, WEBHOOK_SECRET, stack.t.config.s3.secretAccessKey, notifiedLink.searchParams.get('sig')!];
  const scan = await scanHistories(stack.temporal, `ConveneTenantId = "${tenant.id}"`, secrets);
  expect(scan.runs.length).toBe(byTenant.length);
  expect(scan.events).toBeGreaterThan(20);
  expect(scan.findings).toEqual([]);
});

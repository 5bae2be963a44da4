// The whole integrator flow driven through the typescript-fetch client generated from spec/openapi.yaml
// (`npm run sdk`, docs/decisions.md §12), with no hand edits to the client. Type-checked with the generated code under
// `strict` by test/sdk/typescript.test.ts (tsconfig.json leaves it out: .sdk/ exists only once generated).
import {
  AuthenticationApi,
  Configuration,
  ParticipantsApi,
  RecordingsApi,
  ResponseError,
  RoomsApi,
  TenantsApi,
  TranscriptionApi,
  WebhookDeliveriesApi,
} from '../../.sdk/typescript-fetch/src/index';
import type { FlowOptions, FlowResult } from './flow-types';

const POLL_MS = 100;
const POLL_LIMIT_MS = 60_000;

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ResponseError) return error.response.status;
    throw error;
  }
}

/** A read that is 404 until the thing exists (a transcript post-meeting processing has not made yet): undefined. */
async function unlessNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ResponseError && error.response.status === 404) return undefined;
    throw error;
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function runTypeScriptFlow({ baseUrl, adminKey, webhookUrl, webhookSecret, log }: FlowOptions): Promise<FlowResult> {
  // The operator: the admin key is the client's one apiKey (sent as X-Admin-Key and X-API-Key; docs/decisions.md §12).
  const operator = new Configuration({ basePath: baseUrl, apiKey: adminKey });
  const created = (await new TenantsApi(operator).createTenant({ createTenantRequest: { name: 'SDK TypeScript' } })).data;
  log(`tenant ${created.id} created`);

  const withKey = (apiKey: string) => new Configuration({ basePath: baseUrl, apiKey });
  const tenantByKey = withKey(created.apiKey);
  await new TenantsApi(tenantByKey).updateTenant({ id: created.id, updateTenantRequest: { name: 'SDK TypeScript renamed' } });
  await new TenantsApi(operator).updateTenant({ id: created.id, updateTenantRequest: { maxConcurrentRooms: 20 } });
  const updated = (await new TenantsApi(tenantByKey).getTenant({ id: created.id })).data;

  const auth = new AuthenticationApi(new Configuration({ basePath: baseUrl }));
  const issued = (await auth.issueToken({ issueTokenRequest: { apiKey: created.apiKey } })).data;
  const refreshed = (await auth.refreshToken({ refreshTokenRequest: { refreshToken: issued.refreshToken } })).data;
  log(`token issued and refreshed (expires in ${refreshed.expiresIn} s)`);
  // From here on the tenant speaks with its access token (BearerAuth), as a server would.
  const tenant = new Configuration({ basePath: baseUrl, accessToken: refreshed.accessToken });

  await new TenantsApi(tenant).updateTenantConfig({
    id: created.id,
    tenantConfigPatch: {
      transcriptionEnabled: true,
      postMeetingWebhook: { enabled: true, url: webhookUrl, secret: webhookSecret, includeRecording: true },
    },
  });
  // The receiver is checked before any meeting: one signed webhook.test, followed in the delivery log.
  const testDeliveries = new WebhookDeliveriesApi(tenant);
  const testQueued = (await testDeliveries.sendTestWebhook()).data;
  const testDone = await until('the test event to succeed', async () => {
    const { data } = await testDeliveries.getWebhookDelivery({ id: testQueued.id });
    if (data.status === 'failed') throw new Error(`test event ${data.id} failed`);
    return data.status === 'succeeded' ? data : undefined;
  });
  log(`test event ${testQueued.id}: ${testDone.status}`);

  const rooms = new RoomsApi(tenant);
  const room = await rooms.createRoom({ createRoomRequest: { name: `sdk-ts-${Date.now()}`, config: { recordingEnabled: true } } });
  const fetched = await rooms.getRoom({ id: room.id });
  log(`room ${fetched.id} (${fetched.name}) created`);

  const participants = new ParticipantsApi(tenant);
  const host = await participants.addParticipant({ id: room.id, addParticipantRequest: { displayName: 'Host', role: 'host' } });
  const bulk = await participants.bulkAddParticipants({
    id: room.id,
    bulkAddParticipantsRequest: { participants: [{ displayName: 'Ada' }, { displayName: 'Grace', role: 'participant' }] },
  });
  const listed = await participants.listParticipants({ id: room.id });
  log(`${listed.participants.length} participants`);

  // The host's own auth_token may start and stop the recording of its room.
  const recordings = new RecordingsApi(new Configuration({ basePath: baseUrl, accessToken: host.authToken }));
  const started = (await recordings.startRecording({ id: room.id })).data;
  const tenantRecordings = new RecordingsApi(tenant);
  const pendingDownload = await tenantRecordings.downloadRecording({ id: started.id });
  await recordings.stopRecording({ id: room.id });
  await until('the recording to be ready', async () => {
    const { data } = await tenantRecordings.getRecording({ id: started.id });
    if (data.status === 'failed') throw new Error('recording failed');
    return data.status === 'ready' ? data : undefined;
  });
  const download = await tenantRecordings.downloadRecording({ id: started.id });
  const file = await fetch(download.downloadUrl ?? '');
  const downloadedBytes = (await file.arrayBuffer()).byteLength;
  log(`recording ${started.id} ready, downloaded ${downloadedBytes} bytes`);

  // The post-meeting transcript: the worker transcribes the recording once it is stored (transcriptionEnabled).
  const transcription = new TranscriptionApi(tenant);
  const postMeeting = await until('the post-meeting transcript', async () => {
    const found = await unlessNotFound(transcription.getRecordingTranscript({ id: started.id }));
    if (found?.data.status === 'failed') throw new Error('post-meeting transcript failed');
    return found?.data.status === 'completed' ? found.data : undefined;
  });
  const listedPostMeeting = (await transcription.listPostMeetingTranscripts({ id: room.id })).data;
  log(`post-meeting transcript ${postMeeting.id}: ${postMeeting.content?.segments.length} segments`);

  const providerList = await transcription.listTranscriptionProviders();
  const queuedRaw = await transcription.queueTranscriptionRaw({ id: started.id, queueTranscriptionRequest: { roomId: room.id } });
  if (queuedRaw.raw.status !== 202) throw new Error(`Queue Transcription answered ${queuedRaw.raw.status}, not 202`);
  const queued = await queuedRaw.value();
  const queuedTranscript = await until('the queued transcript', async () => {
    const { data } = await transcription.getTranscript({ id: queued.transcriptId });
    if (data.status === 'failed') throw new Error('queued transcript failed');
    return data.status === 'completed' ? data : undefined;
  });
  log(`queued transcript ${queuedTranscript.id} (${providerList.defaultProvider}): ${queuedTranscript.content?.segments.length} segments`);

  // The recording's delivery to the tenant's receiver, in the delivery log until it has succeeded.
  const deliveries = new WebhookDeliveriesApi(tenant);
  const listedDelivery = await until('the recording\'s delivery to succeed', async () => {
    const { data } = await deliveries.listWebhookDeliveries({ limit: 10 });
    const delivery = data.find((entry) => entry.recordingId === started.id);
    if (delivery?.status === 'failed') throw new Error(`delivery ${delivery.id} failed`);
    return delivery?.status === 'succeeded' ? delivery : undefined;
  });
  const delivery = (await deliveries.getWebhookDelivery({ id: listedDelivery.id })).data;
  log(`delivery ${delivery.id} ${delivery.status} after ${delivery.attemptCount} attempt(s)`);

  const resentRaw = await deliveries.resendWebhookDeliveryRaw({ id: delivery.id });
  if (resentRaw.raw.status !== 202) throw new Error(`Resend Webhook Delivery answered ${resentRaw.raw.status}, not 202`);
  const resent = (await resentRaw.value()).data;
  const resentDone = await until('the re-sent delivery to succeed', async () => {
    const { data } = await deliveries.getWebhookDelivery({ id: resent.id });
    if (data.status === 'failed') throw new Error(`re-sent delivery ${data.id} failed`);
    return data.status === 'succeeded' ? data : undefined;
  });
  log(`re-sent as ${resent.id}: ${resentDone.status}`);

  const rotated = (await new TenantsApi(tenant).rotateTenantKey({ id: created.id })).data;
  const oldKeyStatus = await statusOf(new TenantsApi(tenantByKey).getTenant({ id: created.id }));
  const rotatedKeyWorks = (await new TenantsApi(withKey(rotated.apiKey)).getTenant({ id: created.id })).data.id === created.id;
  log('key rotated');

  await new TenantsApi(withKey(rotated.apiKey)).deleteTenant({ id: created.id });
  const deletedStatus = await statusOf(new TenantsApi(withKey(rotated.apiKey)).getTenant({ id: created.id }));
  log('tenant deleted');

  return {
    tenantId: created.id,
    updated: { name: updated.name, maxConcurrentRooms: updated.maxConcurrentRooms },
    roomId: room.id,
    participantIds: [host.participant.id, ...listed.participants.map((entry) => entry.id)],
    bulkResults: bulk.results.map((result) => ({ success: result.success })),
    recordingId: started.id,
    pendingDownload,
    download,
    downloadedBytes,
    postMeetingTranscript: { id: postMeeting.id, status: postMeeting.status, segments: postMeeting.content?.segments.length ?? 0 },
    listedPostMeetingTranscripts: listedPostMeeting.map((entry) => ({ id: entry.id, recordingId: entry.recordingId, status: entry.status })),
    queuedTranscript: {
      id: queued.transcriptId,
      queuedStatus: queued.status,
      recordingId: queuedTranscript.recordingId,
      status: queuedTranscript.status,
      segments: queuedTranscript.content?.segments.length ?? 0,
    },
    providers: { ids: providerList.providers.map((provider) => provider.id), defaultProvider: providerList.defaultProvider },
    delivery: {
      id: delivery.id,
      listedRecordingId: listedDelivery.recordingId,
      status: delivery.status,
      attemptCount: delivery.attemptCount,
      attempts: delivery.attempts.map((attempt) => ({
        attempt: attempt.attempt,
        status: attempt.status,
        responseStatusCode: attempt.responseStatusCode ?? null,
      })),
    },
    resent: { id: resent.id, resentFrom: resent.resentFrom ?? null, queuedStatus: resent.status, status: resentDone.status },
    testEvent: { id: testQueued.id, event: testDone.event, queuedStatus: testQueued.status, status: testDone.status, attemptCount: testDone.attemptCount },
    rotatedKeyWorks,
    oldKeyStatus,
    deletedStatus,
  };
}

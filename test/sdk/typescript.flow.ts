// The whole integrator flow driven through the typescript-fetch client generated from spec/openapi.yaml
// (`npm run sdk`, DECISIONS §12), with no hand edits to the client. Type-checked with the generated code under
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

/** Runs a step whose operation another branch implements; on 501 it says so and returns undefined. */
async function ifImplemented<T>(step: string, log: (line: string) => void, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ResponseError && error.response.status === 501) {
      log(`SKIPPED ${step}: the server answers 501 NOT_IMPLEMENTED`);
      return undefined;
    }
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

export async function runTypeScriptFlow({ baseUrl, adminKey, webhookUrl, log }: FlowOptions): Promise<FlowResult> {
  // The operator: the admin key is the client's one apiKey (sent as X-Admin-Key and X-API-Key; DECISIONS §12).
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
      postMeetingWebhook: { enabled: true, url: webhookUrl, secret: 'sdk-webhook-secret-0123456789' },
    },
  });

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

  const transcription = new TranscriptionApi(tenant);
  const transcript = await ifImplemented('transcript', log, async () => {
    await transcription.queueTranscription({ id: started.id, queueTranscriptionRequest: { roomId: room.id } });
    return until('the transcript', async () => {
      const { data } = await transcription.getRecordingTranscript({ id: started.id });
      return data.status === 'completed' || data.status === 'failed' ? data : undefined;
    });
  });

  const deliveries = new WebhookDeliveriesApi(tenant);
  const resent = await ifImplemented('delivery log and re-send', log, async () => {
    const finished = await until('a finished delivery', async () => {
      const { data } = await deliveries.listWebhookDeliveries({ limit: 10 });
      return data.find((delivery) => delivery.status === 'succeeded' || delivery.status === 'failed');
    });
    const detail = (await deliveries.getWebhookDelivery({ id: finished.id })).data;
    log(`delivery ${detail.id} ${detail.status} after ${detail.attemptCount} attempt(s)`);
    return (await deliveries.resendWebhookDelivery({ id: finished.id })).data;
  });

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
    transcriptStatus: transcript?.status ?? 'not implemented',
    resentDeliveryId: resent?.id ?? 'not implemented',
    rotatedKeyWorks,
    oldKeyStatus,
    deletedStatus,
  };
}

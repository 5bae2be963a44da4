// A recording's whole life through the API, against the real stack: PostgreSQL, Temporal (a real worker process),
// SeaweedFS and the development media server playing the provider.
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { recordingAutoStopWorkflowId, roomRecordingStopWorkflowId } from '../../../workflows/shared.ts';
import { addParticipant, bearer, createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';
import { handoverRows, startedRun } from '../../helpers/handovers.ts';

let stack: RecordingStack;
let tenant: TenantFixture;
let other: TenantFixture;

beforeAll(async () => {
  stack = await createRecordingStack();
  await stack.startWorker();
  tenant = await createTenant(stack.t);
  other = await createTenant(stack.t);
});
afterAll(async () => {
  await stack?.close();
});

const api = () => stack.t.request;
const recordingRoom = () => createRoom(stack.t, tenant, { config: { recording_enabled: true } });

test('start, stop, ingest, download: the stored file is the provider’s WAV, byte for byte in size', async () => {
  const room = await recordingRoom();
  const started = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth);
  expect(started.status).toBe(201);
  expect(started.body).toEqual({ data: { id: expect.any(String), room_id: room.id, status: 'recording', started_at: expect.any(String) } });
  const id = started.body.data.id as string;

  const again = await api().post(`/api/v1/rooms/${room.name}/recordings/start`).set(tenant.auth);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('RECORDING_IN_PROGRESS');

  const early = await api().get(`/api/v1/recordings/${id}/download`).set(tenant.auth);
  expect(early.status).toBe(202);
  expect(Number(early.headers['retry-after'])).toBeGreaterThan(0);
  expect(early.body).toEqual({ recording_id: id, status: 'recording', message: expect.any(String) });

  const stopped = await api().post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth);
  expect(stopped.status).toBe(200);
  expect(stopped.body).toEqual({ data: { id, room_id: room.id, status: 'processing', stopped_at: expect.any(String) } });

  const stopAgain = await api().post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth);
  expect(stopAgain.status).toBe(404);
  expect(stopAgain.body.error.code).toBe('NO_ACTIVE_RECORDING');

  // The provider finishes, notifies (we answer 202 once ingestion is started), the worker ingests.
  await stack.media.settled();
  expect(stack.media.notifications.some((n) => n.status === 202)).toBe(true);
  await stack.ingestionResult(id);

  const upstream = stack.media.listRecordings(room.id)[0];
  const got = await api().get(`/api/v1/recordings/${id}`).set(tenant.auth);
  expect(got.status).toBe(200);
  expect(got.body.data).toEqual({
    id,
    room_id: room.id,
    room: { id: room.id, name: room.name },
    status: 'ready',
    duration_seconds: upstream.duration_seconds,
    size_bytes: upstream.size_bytes,
    started_at: started.body.data.started_at,
    stopped_at: stopped.body.data.stopped_at,
  });

  const download = await api().get(`/api/v1/recordings/${id}/download`).set(tenant.auth);
  expect(download.status).toBe(200);
  expect(download.body).toEqual({
    recording_id: id,
    download_url: expect.stringMatching(/^http/),
    status: 'ready',
    duration: upstream.duration_seconds,
    file_size: upstream.size_bytes,
    provider: 's3',
  });
  expect(download.body.download_url).toContain('X-Amz-Expires=3600');
  const file = await fetch(download.body.download_url);
  expect(file.status).toBe(200);
  const bytes = Buffer.from(await file.arrayBuffer());
  expect(bytes.length).toBe(upstream.size_bytes);
  expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
  expect(bytes.subarray(8, 12).toString('ascii')).toBe('WAVE');

  const list = await api().get('/api/v1/recordings').set(tenant.auth);
  expect(list.status).toBe(200);
  expect(list.body.meta).toEqual({ total: expect.any(Number), limit: 20, offset: 0 });
  expect(list.body.data).toContainEqual({
    id,
    room_id: room.id,
    status: 'ready',
    duration_seconds: upstream.duration_seconds,
    size_bytes: upstream.size_bytes,
    created_at: expect.any(String),
  });
});

test('archive moves the file to the archive bucket; it stays downloadable; archive and recover then refuse', async () => {
  const { id } = await readyRecording();
  const archived = await api().post(`/api/v1/recordings/${id}/archive`).set(tenant.auth);
  expect(archived.status).toBe(200);
  expect(archived.body).toEqual({ data: { id, status: 'archived', archived_at: expect.any(String) } });

  const row = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  const { store } = stack.t.services;
  expect(await store.head({ bucket: store.bucket, key: row.objectKey! })).toBeNull();
  expect(await store.head({ bucket: store.archiveBucket, key: row.objectKey! })).toMatchObject({ sizeBytes: row.sizeBytes });

  const download = await api().get(`/api/v1/recordings/${id}/download`).set(tenant.auth);
  expect(download.status).toBe(200);
  expect(download.body.status).toBe('archived');
  expect((await fetch(download.body.download_url)).status).toBe(200);

  for (const action of ['archive', 'recover']) {
    const res = await api().post(`/api/v1/recordings/${id}/${action}`).set(tenant.auth);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_STATE');
  }
});

test('recover re-runs ingestion of a stuck processing recording with a fresh URL from the provider', async () => {
  const room = await recordingRoom();
  // A recording the provider finished but whose notification never arrived: Convene still shows it processing.
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 3, notify: false });
  const em = stack.t.services.orm.em.fork();
  const stuck = em.create(RecordingSchema, {
    id: '01937000-0000-7000-8000-000000000001',
    tenant: tenant.id,
    room: room.id,
    status: 'processing',
    upstreamRecordingId: upstream.id,
    startedAt: new Date(upstream.started_at),
  });
  const orphan = em.create(RecordingSchema, { id: '01937000-0000-7000-8000-000000000002', tenant: tenant.id, room: room.id, status: 'processing' });
  await em.flush();

  const noUpstream = await api().post(`/api/v1/recordings/${orphan.id}/recover`).set(tenant.auth);
  expect(noUpstream.status).toBe(400);
  expect(noUpstream.body.error.code).toBe('INVALID_STATE');

  const recovered = await api().post(`/api/v1/recordings/${stuck.id}/recover`).set(tenant.auth);
  expect(recovered.status).toBe(200);
  expect(recovered.body).toEqual({ data: { id: stuck.id, status: 'processing', message: 'Reprocessing initiated' } });
  await stack.ingestionResult(stuck.id);
  const got = await api().get(`/api/v1/recordings/${stuck.id}`).set(tenant.auth);
  expect(got.body.data).toMatchObject({ status: 'ready', size_bytes: upstream.size_bytes, duration_seconds: 3 });
});

test('another tenant sees none of it: every recording operation is 404, the list is empty', async () => {
  const { id, roomId } = await readyRecording();
  for (const [method, path] of [
    ['get', `/api/v1/recordings/${id}`],
    ['get', `/api/v1/recordings/${id}/download`],
    ['post', `/api/v1/recordings/${id}/archive`],
    ['post', `/api/v1/recordings/${id}/recover`],
    ['delete', `/api/v1/recordings/${id}`],
    ['post', `/api/v1/rooms/${roomId}/recordings/start`],
    ['post', `/api/v1/rooms/${roomId}/recordings/stop`],
    ['post', `/api/v1/rooms/${roomId}/recordings/sync`],
  ] as const) {
    const res = await api()[method](path).set(other.auth);
    expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'NOT_FOUND']);
  }
  const list = await api().get('/api/v1/recordings').set(other.auth);
  expect(list.body).toEqual({ data: [], meta: { total: 0, limit: 20, offset: 0 } });
});

test('soft delete hides the recording from get, list and download; the file is kept', async () => {
  const { id } = await readyRecording();
  const deleted = await api().delete(`/api/v1/recordings/${id}`).set(tenant.auth);
  expect(deleted.status).toBe(200);
  expect(deleted.body).toEqual({ data: { id, deleted: true, deleted_at: expect.any(String) } });
  expect((await api().get(`/api/v1/recordings/${id}`).set(tenant.auth)).status).toBe(404);
  expect((await api().get(`/api/v1/recordings/${id}/download`).set(tenant.auth)).status).toBe(404);
  expect((await api().delete(`/api/v1/recordings/${id}`).set(tenant.auth)).status).toBe(404);
  const list = await api().get('/api/v1/recordings?limit=100').set(tenant.auth);
  expect(list.body.data.map((r: { id: string }) => r.id)).not.toContain(id);
  const row = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  expect(await stack.t.services.store.head({ bucket: row.storageBucket!, key: row.objectKey! })).not.toBeNull();
});

test('sync imports what the provider recorded on its own, once', async () => {
  const room = await recordingRoom();
  const auto = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2 });
  const synced = await api().post(`/api/v1/rooms/${room.id}/recordings/sync`).set(tenant.auth);
  expect(synced.status).toBe(200);
  expect(synced.body).toEqual({ data: { synced_count: 1, recordings: [{ id: expect.any(String), status: 'processing' }] } });
  const id = synced.body.data.recordings[0].id as string;
  await stack.ingestionResult(id);
  const got = await api().get(`/api/v1/recordings/${id}`).set(tenant.auth);
  expect(got.body.data).toMatchObject({ status: 'ready', size_bytes: auto.size_bytes, duration_seconds: 2, started_at: auto.started_at });

  const again = await api().post(`/api/v1/rooms/${room.id}/recordings/sync`).set(tenant.auth);
  expect(again.body).toEqual({ data: { synced_count: 0, recordings: [] } });

  // One the provider is still recording comes in as `recording`, under the tenant's duration limit, and stops here.
  const live = stack.media.seedRecording({ meetingId: room.id, status: 'recording' });
  const liveSync = await api().post(`/api/v1/rooms/${room.id}/recordings/sync`).set(tenant.auth);
  expect(liveSync.body.data).toEqual({ synced_count: 1, recordings: [{ id: expect.any(String), status: 'recording' }] });
  const liveId = liveSync.body.data.recordings[0].id as string;
  expect((await (await startedRun(stack.temporal, recordingAutoStopWorkflowId(liveId))).describe()).status.name).toBe('RUNNING');
  await api().post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  expect(await (await startedRun(stack.temporal, recordingAutoStopWorkflowId(liveId))).result()).toEqual({ autoStopped: false });
  expect(stack.media.getRecording(live.id)!.status).not.toBe('recording');
  await stack.media.settled();
  await stack.ingestionResult(liveId);
});

test('a host may start and stop with its auth_token; a plain participant may not', async () => {
  const room = await recordingRoom();
  const host = await addParticipant(stack.t, tenant, room.id, { role: 'host' });
  const guest = await addParticipant(stack.t, tenant, room.id, { role: 'participant', display_name: 'Bob' });
  const refused = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(bearer(guest.auth_token));
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('FORBIDDEN');
  const started = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(bearer(host.auth_token));
  expect(started.status).toBe(201);
  const stopped = await api().post(`/api/v1/rooms/${room.id}/recordings/stop`).set(bearer(host.auth_token));
  expect(stopped.status).toBe(200);
  // The host's rights end at its room.
  const elsewhere = await recordingRoom();
  expect((await api().post(`/api/v1/rooms/${elsewhere.id}/recordings/start`).set(bearer(host.auth_token))).status).toBe(404);
  await stack.media.settled();
  await stack.ingestionResult(started.body.data.id);
});

test('a room without recording enabled refuses to start (400 INVALID_STATE); an ended room is 409 ROOM_ENDED', async () => {
  const plain = await createRoom(stack.t, tenant);
  const res = await api().post(`/api/v1/rooms/${plain.id}/recordings/start`).set(tenant.auth);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('INVALID_STATE');

  const room = await recordingRoom();
  await api().post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
  const ended = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth);
  expect(ended.status).toBe(409);
  expect(ended.body.error.code).toBe('ROOM_ENDED');
});

test('ending a room stops its recording', async () => {
  const room = await recordingRoom();
  const started = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await api().post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
  // The stop runs in a workflow once the end commits: wait for the provider to report it done, then for ingestion.
  await waitFor(async () => stack.media.listRecordings(room.id)[0]?.status !== 'recording');
  await stack.media.settled();
  await stack.ingestionResult(started.body.data.id);
  const got = await api().get(`/api/v1/recordings/${started.body.data.id}`).set(tenant.auth);
  expect(got.body.data.status).toBe('ready');
  expect(got.body.data.stopped_at).not.toBeNull();
});

/** Runs `body` with the API's in-process event bus publishing nothing, as after a crash between commit and publish. */
async function withSilentEventBus(body: () => Promise<void>): Promise<void> {
  const events = stack.t.services.events;
  events.publish = async () => {};
  try {
    await body();
  } finally {
    delete (events as { publish?: unknown }).publish; // back to the prototype's
  }
}

test('ending a room stops its recording durably: a workflow started in the ending transaction, not the event bus', async () => {
  const room = await recordingRoom();
  const started = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  const id = started.body.data.id as string;
  await withSilentEventBus(async () => {
    await api().post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
  });
  expect(await (await startedRun(stack.temporal, roomRecordingStopWorkflowId(room.id))).result()).toEqual({ stoppedRecordingId: id });
  expect(stack.media.listRecordings(room.id)[0]?.status).not.toBe('recording');
  // The recording's auto-stop timer was told, and ends without stopping anything.
  expect(await (await startedRun(stack.temporal, recordingAutoStopWorkflowId(id))).result()).toEqual({ autoStopped: false });
  await stack.media.settled();
  await stack.ingestionResult(id);
});

test('deleting a room stops what the provider still records for it, without the event bus', async () => {
  const room = await recordingRoom();
  await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await withSilentEventBus(async () => {
    await api().delete(`/api/v1/rooms/${room.id}`).set(tenant.auth).expect(204);
  });
  // The recording row went with the room; the provider's recording is what is stopped.
  expect(await (await startedRun(stack.temporal, roomRecordingStopWorkflowId(room.id))).result()).toEqual({ stoppedRecordingId: null });
  expect(stack.media.listRecordings(room.id).map((r) => r.status)).not.toContain('recording');
});

test('an end that rolls back records no stop: nothing is started, the recording goes on; a real end stops it', async () => {
  const room = await recordingRoom();
  const started = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  const id = started.body.data.id as string;
  const sessions = stack.t.services.sessions;
  sessions.roomClosed = async () => {
    throw new Error('the ending transaction fails after the stop was recorded');
  };
  try {
    expect((await api().post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth)).status).toBe(500);
  } finally {
    delete (sessions as { roomClosed?: unknown }).roomClosed;
  }
  // docs/decisions.md §15: the hand-over rolled back with the end; no run exists to stop anything.
  expect(await handoverRows(stack.t.services.orm, roomRecordingStopWorkflowId(room.id))).toEqual([]);
  expect((await api().get(`/api/v1/rooms/${room.id}`).set(tenant.auth)).body.status).toBe('active');
  expect((await api().get(`/api/v1/recordings/${id}`).set(tenant.auth)).body.data.status).toBe('recording');
  // Ending it for real now stops it.
  await api().post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
  expect(await (await startedRun(stack.temporal, roomRecordingStopWorkflowId(room.id))).result()).toEqual({ stoppedRecordingId: id });
  await stack.media.settled();
  await stack.ingestionResult(id);
});

async function readyRecording(): Promise<{ id: string; roomId: string }> {
  const room = await recordingRoom();
  const started = await api().post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await api().post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  await stack.media.settled();
  await stack.ingestionResult(started.body.data.id);
  return { id: started.body.data.id, roomId: room.id };
}

/** Polls an outcome that another process produces (never a fixed sleep); fails after 10 s. */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

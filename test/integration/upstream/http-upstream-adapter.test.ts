import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpUpstreamAdapter } from '../../../src/upstream/http-upstream-adapter.ts';
import { UpstreamError } from '../../../src/upstream/media-provider.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';

const SECRET = 'adapter-test-secret';
let media: DevMediaServer;
let adapter: HttpUpstreamAdapter;

beforeAll(async () => {
  media = await startDevMediaServer({ webhookSecret: SECRET, processingDelayMs: 20, recordingSeconds: 5 });
  adapter = new HttpUpstreamAdapter({ baseUrl: media.url });
});
afterAll(() => media.stop());

async function untilStatus(id: string, status: string) {
  await media.settled();
  const recording = await adapter.getRecording(id);
  expect(recording.status).toBe(status);
  return recording;
}

test('starts, stops and reads a recording through the provider protocol', async () => {
  expect(adapter.name).toBe('upstream');
  const started = await adapter.startRecording({ roomId: 'room-adapter-1', roomName: 'Design review' });
  expect(started.upstreamRecordingId).toEqual(expect.any(String));
  expect(Date.parse(started.startedAt)).not.toBeNaN();

  const during = await adapter.getRecording(started.upstreamRecordingId);
  expect(during).toEqual({ id: started.upstreamRecordingId, meetingId: 'room-adapter-1', status: 'recording', startedAt: started.startedAt });

  const stopped = await adapter.stopRecording(started.upstreamRecordingId);
  expect(stopped.status).toBe('processing');
  expect(Date.parse(stopped.stoppedAt)).toBeGreaterThanOrEqual(Date.parse(started.startedAt));

  const ready = await untilStatus(started.upstreamRecordingId, 'ready');
  expect(ready).toMatchObject({
    meetingId: 'room-adapter-1',
    stoppedAt: stopped.stoppedAt,
    durationSeconds: 5,
    contentType: 'audio/wav',
    sizeBytes: expect.any(Number),
    url: expect.stringContaining(`/media/${started.upstreamRecordingId}.wav?`),
  });
  const download = await fetch(ready.url!);
  expect(download.status).toBe(200);
  expect((await download.arrayBuffer()).byteLength).toBe(ready.sizeBytes);
});

test('stop is idempotent: a second stop keeps the first stop time', async () => {
  const { upstreamRecordingId } = await adapter.startRecording({ roomId: 'room-adapter-2' });
  const first = await adapter.stopRecording(upstreamRecordingId);
  const second = await adapter.stopRecording(upstreamRecordingId);
  expect(second.stoppedAt).toBe(first.stoppedAt);
});

test('a second start for a room being recorded is a 409 naming the running recording', async () => {
  const { upstreamRecordingId } = await adapter.startRecording({ roomId: 'room-adapter-3' });
  const refusal = await adapter.startRecording({ roomId: 'room-adapter-3' }).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(UpstreamError);
  expect(refusal).toMatchObject({ status: 409, code: 'already_recording', details: { recording_id: upstreamRecordingId } });
  expect((refusal as UpstreamError).retryable).toBe(false);
  await adapter.stopRecording(upstreamRecordingId);
  const next = await adapter.startRecording({ roomId: 'room-adapter-3' });
  expect(next.upstreamRecordingId).not.toBe(upstreamRecordingId);
});

test('lists every recording of a room, including ones the provider started on its own', async () => {
  const ours = await adapter.startRecording({ roomId: 'room-adapter-4' });
  await adapter.stopRecording(ours.upstreamRecordingId);
  const automatic = media.seedRecording({ meetingId: 'room-adapter-4', durationSeconds: 42 });
  media.seedRecording({ meetingId: 'another-room' });

  const listed = await adapter.listRecordings('room-adapter-4');
  expect(listed.map((r) => r.id).sort()).toEqual([ours.upstreamRecordingId, automatic.id].sort());
  expect(listed.find((r) => r.id === automatic.id)).toMatchObject({ status: 'ready', durationSeconds: 42, url: expect.any(String) });
  expect(await adapter.listRecordings('room-without-recordings')).toEqual([]);
});

test('an unknown recording is a 404 UpstreamError', async () => {
  await expect(adapter.getRecording('no-such-recording')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  await expect(adapter.stopRecording('no-such-recording')).rejects.toMatchObject({ status: 404 });
});

test('sends the API key as a bearer token when the provider requires one', async () => {
  const guarded = await startDevMediaServer({ webhookSecret: SECRET, apiKey: 'provider-key' });
  try {
    const withKey = new HttpUpstreamAdapter({ baseUrl: guarded.url, apiKey: 'provider-key' });
    const withoutKey = new HttpUpstreamAdapter({ baseUrl: guarded.url });
    const wrongKey = new HttpUpstreamAdapter({ baseUrl: guarded.url, apiKey: 'other-key' });
    await expect(withKey.listRecordings('room')).resolves.toEqual([]);
    await expect(withoutKey.listRecordings('room')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    await expect(wrongKey.startRecording({ roomId: 'room' })).rejects.toMatchObject({ status: 401 });
  } finally {
    await guarded.stop();
  }
});

test('a provider that does not answer in time is a retryable 504', async () => {
  const silent: Server = createServer(() => {}); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = silent.address() as AddressInfo;
    const slow = new HttpUpstreamAdapter({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 150 });
    const error = await slow.getRecording('x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 504, code: 'timeout' });
    expect((error as UpstreamError).retryable).toBe(true);
  } finally {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('an unreachable provider is a retryable 502', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const gone = new HttpUpstreamAdapter({ baseUrl: `http://127.0.0.1:${port}` });
  await expect(gone.listRecordings('room')).rejects.toMatchObject({ status: 502, code: 'unreachable', retryable: true });
});

test('a provider answering something other than the protocol is a 502 bad_response', async () => {
  const odd = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'r1', status: 'completed' }));
  });
  await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = odd.address() as AddressInfo;
    const confused = new HttpUpstreamAdapter({ baseUrl: `http://127.0.0.1:${port}` });
    await expect(confused.getRecording('r1')).rejects.toMatchObject({ status: 502, code: 'bad_response' });
  } finally {
    await new Promise((resolve) => odd.close(resolve));
  }
});

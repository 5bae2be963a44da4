import { randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';

const SECRET = 'files-test-secret';
let media: DevMediaServer;

beforeAll(async () => {
  media = await startDevMediaServer({ webhookSecret: SECRET, processingDelayMs: 10 });
});
afterAll(() => media.stop());

/** An independent reading of a whole RIFF/WAVE file (not the server's own parser). */
function parseWav(file: Buffer) {
  expect(file.toString('ascii', 0, 4)).toBe('RIFF');
  expect(file.readUInt32LE(4)).toBe(file.length - 8);
  expect(file.toString('ascii', 8, 12)).toBe('WAVE');
  const chunks = new Map<string, Buffer>();
  let offset = 12;
  while (offset < file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    chunks.set(id, file.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size + (size % 2);
  }
  expect(offset).toBe(file.length); // the last chunk ends exactly at the end of the file
  const fmt = chunks.get('fmt ')!;
  const data = chunks.get('data')!;
  const format = {
    audioFormat: fmt.readUInt16LE(0),
    channels: fmt.readUInt16LE(2),
    sampleRate: fmt.readUInt32LE(4),
    byteRate: fmt.readUInt32LE(8),
    blockAlign: fmt.readUInt16LE(12),
    bitsPerSample: fmt.readUInt16LE(14),
  };
  return { ...format, data, info: chunks.get('LIST'), durationSeconds: data.length / format.byteRate };
}

async function stoppedRecording(body: Record<string, unknown>) {
  const started = await fetch(`${media.url}/v1/recordings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(started.status).toBe(201);
  const { id } = (await started.json()) as { id: string };
  expect((await fetch(`${media.url}/v1/recordings/${id}/stop`, { method: 'POST' })).status).toBe(200);
  await media.settled();
  const ready = (await (await fetch(`${media.url}/v1/recordings/${id}`)).json()) as Record<string, any>;
  expect(ready.status).toBe('ready');
  return ready;
}

test('a stopped recording is a valid PCM WAV whose length and duration match what the provider reports', async () => {
  const recording = await stoppedRecording({ meeting_id: 'room-wav-1', meeting_name: 'Standup' });
  expect(recording.duration_seconds).toBe(1); // stopped at once: the shortest recording is one second

  const response = await fetch(recording.url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('audio/wav');
  const file = Buffer.from(await response.arrayBuffer());
  expect(Number(response.headers.get('content-length'))).toBe(file.length);
  expect(file.length).toBe(recording.size_bytes);

  const wav = parseWav(file);
  expect(wav).toMatchObject({ audioFormat: 1, channels: 1, bitsPerSample: 16, blockAlign: 2 });
  expect([8000, 16000]).toContain(wav.sampleRate);
  expect(wav.byteRate).toBe(wav.sampleRate * 2);
  expect(wav.durationSeconds).toBe(recording.duration_seconds);
  expect(wav.info?.toString('latin1')).toContain(recording.id);
  expect(wav.data.some((byte) => byte !== 0)).toBe(true); // there is sound, not only silence
});

test('a duration asked for at start is the duration of the file', async () => {
  const recording = await stoppedRecording({ meeting_id: 'room-wav-2', duration_seconds: 7 });
  expect(recording.duration_seconds).toBe(7);
  const wav = parseWav(Buffer.from(await (await fetch(recording.url)).arrayBuffer()));
  expect(wav.durationSeconds).toBe(7);
});

test('HEAD tells the size without the body', async () => {
  const recording = media.seedRecording({ meetingId: 'room-wav-3', durationSeconds: 3 });
  const response = await fetch(recording.url!, { method: 'HEAD' });
  expect(response.status).toBe(200);
  expect(Number(response.headers.get('content-length'))).toBe(recording.size_bytes);
});

test("a meeting given an audio file: its recordings are that file, byte for byte, with the file's size", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dev-media-audio-'));
  const file = join(dir, 'speech.wav');
  const bytes = Buffer.concat([Buffer.from('RIFF'), randomBytes(50_000)]);
  writeFileSync(file, bytes);
  const withFile = await startDevMediaServer({ webhookSecret: SECRET, audioFile: (meetingId) => (meetingId === 'room-spoken' ? file : undefined) });
  try {
    const spoken = withFile.seedRecording({ meetingId: 'room-spoken', durationSeconds: 3 });
    expect(spoken.size_bytes).toBe(bytes.length);
    expect(Buffer.from(await (await fetch(spoken.url!)).arrayBuffer())).toEqual(bytes);
    // Another meeting's recordings are the generated tones, as before.
    const tones = withFile.seedRecording({ meetingId: 'room-tones', durationSeconds: 3 });
    expect(parseWav(Buffer.from(await (await fetch(tones.url!)).arrayBuffer())).durationSeconds).toBe(3);
  } finally {
    await withFile.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the media link refuses a tampered signature, another recording id and an expired link', async () => {
  const recording = media.seedRecording({ meetingId: 'room-wav-4', durationSeconds: 2 });
  const other = media.seedRecording({ meetingId: 'room-wav-5', durationSeconds: 2 });
  const url = new URL(recording.url!);

  const tampered = new URL(url);
  const sig = tampered.searchParams.get('sig')!;
  tampered.searchParams.set('sig', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
  const extended = new URL(url);
  extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
  const swapped = new URL(url);
  swapped.pathname = `/media/${other.id}.wav`;
  const unsigned = new URL(url.pathname, url);

  for (const refused of [tampered, extended, swapped, unsigned]) {
    const response = await fetch(refused);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: expect.objectContaining({ message: expect.any(String) }) });
  }

  const expired = media.mediaUrl(recording.id, new Date(Date.now() - 1000));
  const response = await fetch(expired);
  expect(response.status).toBe(403);
  expect(((await response.json()) as any).error.code).toBe('url_expired');

  expect((await fetch(url)).status).toBe(200);
});

test('links are issued fresh on every read and expire an hour later by default', async () => {
  const recording = media.seedRecording({ meetingId: 'room-wav-6', durationSeconds: 2 });
  const expiresAt = Date.parse(recording.url_expires_at!);
  expect(expiresAt).toBeGreaterThan(Date.now() + 3500 * 1000);
  expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600 * 1000);
  expect(Number(new URL(recording.url!).searchParams.get('expires'))).toBe(Math.floor(expiresAt / 1000));
});

test('an hour-long recording streams in full, generated only as fast as the client reads it', async () => {
  // The server's side of the download, through Node's own hook: what it has queued and not yet handed to the kernel.
  let served: ServerResponse | undefined;
  const onRequest = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    if (request.url?.startsWith('/media/')) served = response;
  };
  subscribe('http.server.request.start', onRequest);
  const big = await startDevMediaServer({ webhookSecret: SECRET, sampleRate: 16000 });
  try {
    const recording = big.seedRecording({ meetingId: 'room-long', durationSeconds: 3600 });
    const expected = recording.size_bytes!;
    expect(expected).toBeGreaterThan(3600 * 16000 * 2); // 115 MB of samples plus the header

    // Live memory, not garbage waiting for a collection. V8 frees the dead ArrayBuffers (the socket's read buffers)
    // of a full collection on a background thread and takes them off `arrayBuffers` only when that sweep ends, which
    // the next collection, even a minor one, first waits for: after one gc() the count still held up to 52 MB of dead
    // buffers, after the minor one none. A minor collection costs milliseconds; a full one here 170–430 ms.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;
    const live = () => {
      collect();
      collect({ type: 'minor' });
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const baseline = live();

    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      get(recording.url!, resolve).on('error', reject),
    );
    expect(Number(response.headers['content-length'])).toBe(expected);

    // A client that does not read yet: once the kernel's socket buffers are full the server must stop generating,
    // not queue the hour. Something queued in user space means the socket is full; the pause then gives a server that
    // ignores `write()` returning false the time to show it (it is no bound on the server's speed).
    while (!served || served.writableLength === 0) await sleep(5);
    await sleep(100);
    const queuedWhilePaused = served.writableLength;

    let peakQueued = 0;
    let peakGrowth = 0;
    let received = 0;
    let header: Buffer | undefined;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        header ??= Buffer.from(chunk.subarray(0, 12));
        received += chunk.length;
        peakQueued = Math.max(peakQueued, served!.writableLength);
        // Every 32 MB: a file held whole shows from the first sample, one held as it is sent reaches 32 MB by then.
        if (received % (32 * 1024 * 1024) < chunk.length) peakGrowth = Math.max(peakGrowth, live() - baseline);
        done();
      },
    });
    await pipeline(response, sink);

    expect(received).toBe(expected);
    expect(header!.toString('ascii', 0, 4)).toBe('RIFF');
    expect(header!.readUInt32LE(4)).toBe(expected - 8);
    // The server queues a few seconds of audio (32 KB each) beyond the socket's buffers, reader paused or not.
    expect(queuedWhilePaused).toBeLessThan(1024 * 1024);
    expect(peakQueued).toBeLessThan(1024 * 1024);
    // Neither the server nor this reader holds what has gone through: measured growth ~0 MB.
    expect(peakGrowth).toBeLessThan(16 * 1024 * 1024);
  } finally {
    unsubscribe('http.server.request.start', onRequest);
    await big.stop();
  }
}, 180_000);

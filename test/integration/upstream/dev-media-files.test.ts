import { get } from 'node:http';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

test('an hour-long recording streams in full without being held in memory', async () => {
  const big = await startDevMediaServer({ webhookSecret: SECRET, sampleRate: 16000 });
  try {
    const recording = big.seedRecording({ meetingId: 'room-long', durationSeconds: 3600 });
    const expected = recording.size_bytes!;
    expect(expected).toBeGreaterThan(3600 * 16000 * 2); // 115 MB of samples plus the header

    // Live memory, not garbage waiting for a collection: collect before each measurement.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const live = () => {
      collect();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const baseline = live();
    let peakGrowth = 0;
    let received = 0;
    let header: Buffer | undefined;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        header ??= Buffer.from(chunk.subarray(0, 12));
        received += chunk.length;
        if (received % (8 * 1024 * 1024) < chunk.length) peakGrowth = Math.max(peakGrowth, live() - baseline);
        done();
      },
    });
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) =>
      get(recording.url!, resolve).on('error', reject),
    );
    expect(Number(response.headers['content-length'])).toBe(expected);
    await pipeline(response, sink);

    expect(received).toBe(expected);
    expect(header!.toString('ascii', 0, 4)).toBe('RIFF');
    expect(header!.readUInt32LE(4)).toBe(expected - 8);
    // Buffering the file would hold its 115 MB; streaming holds a few socket buffers' worth.
    expect(peakGrowth).toBeLessThan(24 * 1024 * 1024);
  } finally {
    await big.stop();
  }
  // 115 MB through a socket with a full collection every 8 MB: 2.5 s alone, 42–66 s in a loaded full run.
}, 180_000);

test.each([8, 32, 32, 16])('DIAG every %d MB', async (everyMB) => {
  const big = await startDevMediaServer({ webhookSecret: SECRET, sampleRate: 16000 });
  try {
    const recording = big.seedRecording({ meetingId: 'room-long', durationSeconds: 3600 });
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const m = () => { const u = process.memoryUsage(); return { heap: u.heapUsed, ab: u.arrayBuffers }; };
    let gcMs = 0;
    const live = () => { const t = performance.now(); collect(); const a = m(); collect(); const b = m(); gcMs += performance.now() - t; return { a, b }; };
    const base = live();
    const peak = { heap1: 0, ab1: 0, heap2: 0, ab2: 0 };
    let received = 0;
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        received += chunk.length;
        if (received % (everyMB * 1024 * 1024) < chunk.length) {
          const { a, b } = live();
          peak.heap1 = Math.max(peak.heap1, a.heap - base.a.heap); peak.ab1 = Math.max(peak.ab1, a.ab - base.a.ab);
          peak.heap2 = Math.max(peak.heap2, b.heap - base.b.heap); peak.ab2 = Math.max(peak.ab2, b.ab - base.b.ab);
        }
        done();
      },
    });
    const t0 = performance.now();
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => get(recording.url!, resolve).on('error', reject));
    await pipeline(response, sink);
    const MB = (n: number) => (n / 1048576).toFixed(1);
    console.log(JSON.stringify({ everyMB, ms: Math.round(performance.now() - t0), gcMs: Math.round(gcMs), heapAfter1gc: MB(peak.heap1), abAfter1gc: MB(peak.ab1), heapAfter2gc: MB(peak.heap2), abAfter2gc: MB(peak.ab2), baseHeap: MB(base.b.heap) }));
  } finally { await big.stop(); }
}, 180_000);

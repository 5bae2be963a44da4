// Generated WAV files for the development media server: RIFF/WAVE, PCM 16-bit mono, a sequence of one-second sine
// tones. A LIST/INFO chunk before the samples carries the recording id, so the transcription endpoint can tell
// which recording an uploaded file is from its first bytes. The samples are produced second by second from a few
// precomputed buffers, so a recording of hours streams in constant memory.

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { RECORDING_MARKER_PREFIX } from '../../src/providers/wav-header.ts';

export type SampleRate = 8000 | 16000;

export const WAV_CONTENT_TYPE = 'audio/wav';
const SOFTWARE = 'Convene development media server';
const BYTES_PER_SAMPLE = 2;

export interface WavSpec {
  recordingId: string;
  /** Shown as the file's title (INFO/INAM), e.g. the meeting name. */
  title: string;
  durationSeconds: number;
  sampleRate: SampleRate;
}

/** Total file size in bytes: the exact `Content-Length` and the `size_bytes` reported for the recording. */
export function wavSize(spec: WavSpec): number {
  return headerBytes(spec).length + dataBytes(spec);
}

/**
 * Pulls the generator only while the stream's buffer is under its highWaterMark, so `pipeline` to a response stops
 * generating while the client is not reading: about 100 KB queued beside the socket's buffers (measured in
 * test/integration/upstream/dev-media-files.test.ts).
 */
export function wavStream(spec: WavSpec): Readable {
  return Readable.from(wavChunks(spec), { objectMode: false, highWaterMark: 64 * 1024 });
}

function* wavChunks(spec: WavSpec): Generator<Buffer> {
  yield headerBytes(spec);
  const tones = toneSet(spec.sampleRate);
  const melody = melodyFor(spec.recordingId);
  for (let second = 0; second < spec.durationSeconds; second++) {
    yield tones[melody[second % melody.length]];
  }
}

function dataBytes(spec: WavSpec): number {
  return spec.durationSeconds * spec.sampleRate * BYTES_PER_SAMPLE;
}

function headerBytes(spec: WavSpec): Buffer {
  const info = infoChunk([
    ['INAM', spec.title],
    ['ICMT', RECORDING_MARKER_PREFIX + spec.recordingId],
    ['ISFT', SOFTWARE],
  ]);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8); // PCM
  fmt.writeUInt16LE(1, 10); // mono
  fmt.writeUInt32LE(spec.sampleRate, 12);
  fmt.writeUInt32LE(spec.sampleRate * BYTES_PER_SAMPLE, 16); // byte rate
  fmt.writeUInt16LE(BYTES_PER_SAMPLE, 20); // block align
  fmt.writeUInt16LE(16, 22); // bits per sample
  const data = Buffer.alloc(8);
  data.write('data', 0, 'ascii');
  data.writeUInt32LE(dataBytes(spec), 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + fmt.length + info.length + data.length + dataBytes(spec), 4);
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, fmt, info, data]);
}

function infoChunk(entries: Array<[string, string]>): Buffer {
  const parts = entries.map(([id, text]) => {
    const value = Buffer.from(`${text}\0`, 'utf8');
    const padded = Buffer.alloc(value.length + (value.length % 2));
    value.copy(padded);
    const head = Buffer.alloc(8);
    head.write(id, 0, 'ascii');
    head.writeUInt32LE(value.length, 4);
    return Buffer.concat([head, padded]);
  });
  const body = Buffer.concat([Buffer.from('INFO', 'ascii'), ...parts]);
  const head = Buffer.alloc(8);
  head.write('LIST', 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

// Whole-hertz tones fill one second with whole periods, so consecutive seconds join without a click.
const TONE_HZ = [0, 220, 262, 330, 392, 440, 523];
const toneCache = new Map<SampleRate, Buffer[]>();

function toneSet(sampleRate: SampleRate): Buffer[] {
  let tones = toneCache.get(sampleRate);
  if (!tones) {
    tones = TONE_HZ.map((hz) => {
      const buffer = Buffer.alloc(sampleRate * BYTES_PER_SAMPLE);
      for (let n = 0; n < sampleRate; n++) {
        buffer.writeInt16LE(Math.round(0.25 * 32767 * Math.sin((2 * Math.PI * hz * n) / sampleRate)), n * 2);
      }
      return buffer;
    });
    toneCache.set(sampleRate, tones);
  }
  return tones;
}

function melodyFor(recordingId: string): number[] {
  const digest = createHash('sha256').update(recordingId).digest();
  // Even seconds always sound (index 0 is the silent "tone"), so even a one-second file is audible.
  return [...digest.subarray(0, 8)].map((byte, i) => (i % 2 === 0 ? 1 + (byte % (TONE_HZ.length - 1)) : byte % TONE_HZ.length));
}

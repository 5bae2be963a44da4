// Generated WAV files for the development media server: RIFF/WAVE, PCM 16-bit mono, a sequence of one-second sine
// tones. A LIST/INFO chunk before the samples carries the recording id, so the transcription endpoint can tell
// which recording an uploaded file is from its first bytes. The samples are produced second by second from a few
// precomputed buffers, so a recording of hours streams in constant memory.

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

export type SampleRate = 8000 | 16000;

export const WAV_CONTENT_TYPE = 'audio/wav';
export const RECORDING_MARKER_PREFIX = 'convene-dev-recording:';
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

export interface WavInfo {
  /** 1 is PCM; 3 IEEE float; 0xFFFE the extensible format. */
  audioFormat: number;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Size of the sample data as the header declares it. */
  dataBytes: number;
  recordingId?: string;
  title?: string;
}

/**
 * Reads the header of a WAV file from its first bytes (up to the start of the samples). Returns undefined when
 * the bytes are not a PCM WAV header or do not reach the `data` chunk.
 */
export function readWavHeader(prefix: Buffer): WavInfo | undefined {
  if (prefix.length < 12 || prefix.toString('ascii', 0, 4) !== 'RIFF' || prefix.toString('ascii', 8, 12) !== 'WAVE') {
    return undefined;
  }
  let format: Pick<WavInfo, 'audioFormat' | 'sampleRate' | 'channels' | 'bitsPerSample'> | undefined;
  const info: Pick<WavInfo, 'recordingId' | 'title'> = {};
  let offset = 12;
  while (offset + 8 <= prefix.length) {
    const id = prefix.toString('ascii', offset, offset + 4);
    const size = prefix.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'data') {
      if (!format) return undefined;
      return { ...format, ...info, dataOffset: body, dataBytes: size };
    }
    if (body + size > prefix.length) return undefined;
    if (id === 'fmt ' && size >= 16) {
      format = {
        audioFormat: prefix.readUInt16LE(body),
        channels: prefix.readUInt16LE(body + 2),
        sampleRate: prefix.readUInt32LE(body + 4),
        bitsPerSample: prefix.readUInt16LE(body + 14),
      };
    } else if (id === 'LIST' && size >= 4 && prefix.toString('ascii', body, body + 4) === 'INFO') {
      Object.assign(info, readInfo(prefix.subarray(body + 4, body + size)));
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}

function readInfo(list: Buffer): Pick<WavInfo, 'recordingId' | 'title'> {
  const found: Pick<WavInfo, 'recordingId' | 'title'> = {};
  let offset = 0;
  while (offset + 8 <= list.length) {
    const id = list.toString('ascii', offset, offset + 4);
    const size = list.readUInt32LE(offset + 4);
    const text = list.toString('utf8', offset + 8, Math.min(list.length, offset + 8 + size)).replace(/\0+$/, '');
    if (id === 'ICMT' && text.startsWith(RECORDING_MARKER_PREFIX)) {
      found.recordingId = text.slice(RECORDING_MARKER_PREFIX.length);
    } else if (id === 'INAM') {
      found.title = text;
    }
    offset += 8 + size + (size % 2);
  }
  return found;
}

// The loudness and pitch of what each segment of a recording says, read from a PCM WAV as it streams (never held whole
// in memory: a sliding window of 40 ms). src/providers/voice-labels.ts groups segments by pitch when the transcription
// provider labels no speakers, and voice-turns.ts finds the pauses where a segment may change voice (docs/decisions.md
// §9, "Speakers told apart by voice").
//
// Per 20 ms frame that falls inside a segment: the frame's loudness, and its pitch from the autocorrelation of the
// windowed frame (Boersma's correction for the window); a silent frame, a frame whose best period repeats less than
// VOICED_CORRELATION, and a pure tone have none. One FFT (fft.js) gives the power spectrum, for the tone check, and its
// inverse, the autocorrelation.
import type { Readable } from 'node:stream';
import FFT from 'fft.js';
import { readWavHeader, type WavInfo } from './wav-header.ts';

/** The header must lie in the first bytes (the transcription adapters allow the same: src/providers/audio.ts). */
const HEADER_PROBE_BYTES = 64 * 1024;
const WAV_PCM = 1;
const FRAME_SECONDS = 0.04;
/** A frame every 20 ms (voice-turns.ts counts pauses and speech in frames). */
export const HOP_SECONDS = 0.02;
/** Pitch searched between these (speech: about 70 Hz for a low male voice to 400 Hz for a child's). */
const MIN_PITCH_HZ = 60;
const MAX_PITCH_HZ = 400;
/** A frame quieter than -50 dBFS is silence. */
const SILENT_RMS = 10 ** (-50 / 20);
/** The normalised autocorrelation at the period must reach this for the frame to count as voiced. */
const VOICED_CORRELATION = 0.5;
/** A frame with this share of its energy in one spectral peak is a pure tone, not a voice. */
const TONE_SHARE = 0.8;

/**
 * A segment's frames, one every 20 ms, in time order, silent ones too: each frame's time (seconds), loudness (RMS, full
 * scale 1) and pitch (semitones relative to 100 Hz; NaN when unvoiced). Three arrays of numbers rather than an object a
 * frame: a two-hour recording is 360,000 frames.
 */
export interface SegmentFrames {
  times: number[];
  levels: number[];
  pitches: number[];
}

/** The pitches of the voiced frames among frames `from` to `to` (all by default), in semitones relative to 100 Hz. */
export function voicedPitches(frames: SegmentFrames, from = 0, to = frames.pitches.length): number[] {
  return frames.pitches.slice(from, to).filter((pitch) => !Number.isNaN(pitch));
}

/**
 * For every segment (in the order given) its frames, silent ones too (where a pause lies tells
 * src/providers/voice-turns.ts where one voice may hand over to another), read from a 16-bit PCM WAV stream; `null`
 * when the stream is not one (another format cannot be read without a decoder).
 */
export async function readSegmentFrames(
  audio: Readable,
  segments: ReadonlyArray<{ start: number; end: number }>,
  signal?: AbortSignal,
): Promise<SegmentFrames[] | null> {
  const iterator = audio[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    const header = await readHeader(iterator);
    if (!header) return null;
    const { wav, rest } = header;
    if (wav.audioFormat !== WAV_PCM || wav.bitsPerSample !== 16 || wav.channels < 1 || wav.sampleRate < 2 * MAX_PITCH_HZ * 2) return null;
    const analysis = new FrameAnalysis(wav.sampleRate, segments);
    const samples = new SampleReader(wav.channels, wav.dataBytes > 0 && wav.dataBytes < 0xffffffff ? wav.dataBytes : Infinity);
    analysis.push(samples.read(rest));
    for (;;) {
      signal?.throwIfAborted();
      const next = await iterator.next();
      if (next.done || samples.finished) break;
      analysis.push(samples.read(next.value));
      if (analysis.pastLastSegment) break;
    }
    return analysis.frames;
  } finally {
    await iterator.return?.();
    audio.destroy();
  }
}

async function readHeader(iterator: AsyncIterator<Buffer>): Promise<{ wav: WavInfo; rest: Buffer } | null> {
  let prefix = Buffer.alloc(0);
  while (prefix.length < HEADER_PROBE_BYTES) {
    const next = await iterator.next();
    if (next.done) break;
    prefix = Buffer.concat([prefix, next.value]);
    const wav = readWavHeader(prefix.subarray(0, HEADER_PROBE_BYTES));
    if (wav) return { wav, rest: prefix.subarray(wav.dataOffset) };
  }
  return null;
}

/** 16-bit little-endian PCM bytes to mono samples in [-1, 1], across chunk boundaries, up to the declared data size. */
class SampleReader {
  private carry = Buffer.alloc(0);
  private left: number;
  private readonly channels: number;
  constructor(channels: number, dataBytes: number) {
    this.channels = channels;
    this.left = dataBytes;
  }

  get finished(): boolean {
    return this.left <= 0;
  }

  read(chunk: Buffer): Float32Array {
    const take = chunk.subarray(0, Math.min(chunk.length, this.left));
    this.left -= take.length;
    const bytes = this.carry.length ? Buffer.concat([this.carry, take]) : take;
    const blockAlign = 2 * this.channels;
    const count = Math.floor(bytes.length / blockAlign);
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      let sum = 0;
      for (let c = 0; c < this.channels; c++) sum += bytes.readInt16LE(i * blockAlign + 2 * c);
      out[i] = sum / this.channels / 32768;
    }
    this.carry = Buffer.from(bytes.subarray(count * blockAlign));
    return out;
  }
}

/** The frames of the stream, each read into the segment its centre falls in. */
class FrameAnalysis {
  private readonly frameLength: number;
  private readonly hop: number;
  private readonly fft: FFT;
  private readonly size: number;
  private readonly window: Float32Array;
  /** The window's own normalised autocorrelation, divided out of each frame's (Boersma 1993). */
  private readonly windowCorrelation: Float64Array;
  private readonly minLag: number;
  private readonly maxLag: number;
  private readonly order: number[];
  /** Each segment's frames. */
  readonly frames: SegmentFrames[];
  private pending = new Float32Array(0);
  /** Index in the stream of pending[0]. */
  private pendingStart = 0;
  /** Position in `order` of the first segment that may still receive frames. */
  private cursor = 0;
  private readonly input: Float64Array;
  private readonly spectrum: number[];
  private readonly power: number[];
  private readonly correlation: number[];

  private readonly sampleRate: number;
  private readonly segments: ReadonlyArray<{ start: number; end: number }>;

  constructor(sampleRate: number, segments: ReadonlyArray<{ start: number; end: number }>) {
    this.sampleRate = sampleRate;
    this.segments = segments;
    this.frameLength = Math.round(FRAME_SECONDS * sampleRate);
    this.hop = Math.round(HOP_SECONDS * sampleRate);
    this.minLag = Math.floor(sampleRate / MAX_PITCH_HZ);
    this.maxLag = Math.ceil(sampleRate / MIN_PITCH_HZ);
    // Zero-padded so the autocorrelation up to the longest period does not wrap around.
    this.size = 2 ** Math.ceil(Math.log2(this.frameLength + this.maxLag + 1));
    this.fft = new FFT(this.size);
    this.window = Float32Array.from({ length: this.frameLength }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / this.frameLength));
    this.input = new Float64Array(this.size);
    this.spectrum = this.fft.createComplexArray();
    this.power = this.fft.createComplexArray();
    this.correlation = this.fft.createComplexArray();
    this.windowCorrelation = this.autocorrelationOf(this.window);
    this.order = segments.map((_, i) => i).sort((a, b) => segments[a]!.start - segments[b]!.start);
    this.frames = segments.map(() => ({ times: [], levels: [], pitches: [] }));
  }

  get pastLastSegment(): boolean {
    return this.cursor >= this.order.length;
  }

  push(samples: Float32Array): void {
    const joined = new Float32Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    let offset = 0;
    while (offset + this.frameLength <= joined.length) {
      const centre = (this.pendingStart + offset + this.frameLength / 2) / this.sampleRate;
      const segment = this.segmentAt(centre);
      if (segment !== undefined) this.readFrame(joined.subarray(offset, offset + this.frameLength), segment, centre);
      offset += this.hop;
    }
    this.pending = joined.slice(offset);
    this.pendingStart += offset;
  }

  /** The segment whose span holds `time` (the latest-starting one where segments overlap); segments are passed in time order. */
  private segmentAt(time: number): number | undefined {
    while (this.cursor < this.order.length && this.segments[this.order[this.cursor]!]!.end <= time) this.cursor++;
    let found: number | undefined;
    for (let k = this.cursor; k < this.order.length; k++) {
      const segment = this.segments[this.order[k]!]!;
      if (segment.start > time) break;
      if (segment.end > time) found = this.order[k];
    }
    return found;
  }

  private readFrame(frame: Float32Array, segment: number, time: number): void {
    let energy = 0;
    for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!;
    const level = Math.sqrt(energy / frame.length);
    const frames = this.frames[segment]!;
    frames.times.push(time);
    frames.levels.push(level);
    if (level < SILENT_RMS) {
      frames.pitches.push(NaN);
      return;
    }
    this.input.fill(0);
    for (let i = 0; i < frame.length; i++) this.input[i] = frame[i]! * this.window[i]!;
    const pitch = this.pitchOf();
    frames.pitches.push(pitch === null || this.isTone() ? NaN : 12 * Math.log2(pitch / 100));
  }

  /** The frame's pitch in Hz, or null when unvoiced; leaves the power spectrum in `this.power`. */
  private pitchOf(): number | null {
    this.autocorrelate();
    const zero = this.correlation[0]!;
    if (!(zero > 0)) return null;
    let best = -1;
    let bestLag = -1;
    for (let lag = this.minLag; lag <= this.maxLag; lag++) {
      const value = this.correlation[2 * lag]! / zero / this.windowCorrelation[lag]!;
      if (value > best) {
        best = value;
        bestLag = lag;
      }
    }
    if (best < VOICED_CORRELATION) return null;
    // The peak between samples: a parabola through the best lag and its neighbours.
    const at = (lag: number) => this.correlation[2 * lag]! / zero / this.windowCorrelation[lag]!;
    const left = at(Math.max(this.minLag, bestLag - 1));
    const right = at(Math.min(this.maxLag, bestLag + 1));
    const curve = left - 2 * best + right;
    const shift = curve < 0 ? (0.5 * (left - right)) / curve : 0;
    return this.sampleRate / (bestLag + Math.max(-0.5, Math.min(0.5, shift)));
  }

  /** `this.input`'s power spectrum into `this.power` and its autocorrelation (the inverse transform) into `this.correlation`. */
  private autocorrelate(): void {
    this.fft.realTransform(this.spectrum, this.input);
    this.fft.completeSpectrum(this.spectrum);
    for (let k = 0; k < this.size; k++) {
      const re = this.spectrum[2 * k]!;
      const im = this.spectrum[2 * k + 1]!;
      this.power[2 * k] = re * re + im * im;
      this.power[2 * k + 1] = 0;
    }
    this.fft.inverseTransform(this.correlation, this.power);
  }

  /**
   * Whether the power spectrum left by pitchOf is one pure tone (a test signal, a beep, hold music's sine) rather than
   * a voice, whose energy is spread over its harmonics: TONE_SHARE of the energy within two bins of the strongest.
   */
  private isTone(): boolean {
    let total = 0;
    let peak = 0;
    for (let k = 1; k < this.size / 2; k++) {
      total += this.power[2 * k]!;
      if (this.power[2 * k]! > this.power[2 * peak]!) peak = k;
    }
    let near = 0;
    for (let k = Math.max(1, peak - 2); k <= Math.min(this.size / 2 - 1, peak + 2); k++) near += this.power[2 * k]!;
    return total > 0 && near >= TONE_SHARE * total;
  }

  private autocorrelationOf(window: Float32Array): Float64Array {
    this.input.fill(0);
    this.input.set(window);
    this.autocorrelate();
    const zero = this.correlation[0]!;
    return Float64Array.from({ length: this.maxLag + 2 }, (_, lag) => this.correlation[2 * lag]! / zero);
  }
}

// Test helper: speech-like audio without a synthesiser. A "voice" is a glottal-like harmonic series (every harmonic of
// its pitch up to 4 kHz, shaped by three vowel formants) whose pitch rises and falls by a semitone over each line, as
// speech intonation does; lines are separated by silence. Written as 16-bit PCM mono WAV samples, so the voice
// grouping (src/providers/voice-labels.ts) reads it as it reads a recording.

export interface VoiceLine {
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  /** The voice's mean pitch. */
  pitchHz: number;
}

const FORMANTS_HZ = [700, 1200, 2600];
const FORMANT_WIDTH_HZ = 150;

/** Samples of `seconds` of audio with each line voiced over its span (less 0.15 s of silence at each end). */
export function voicedSamples(lines: readonly VoiceLine[], seconds: number, sampleRate = 16_000): Int16Array {
  const samples = new Float64Array(Math.round(seconds * sampleRate));
  for (const line of lines) {
    const from = Math.round((line.start + 0.15) * sampleRate);
    const to = Math.min(samples.length, Math.round((line.end - 0.15) * sampleRate));
    let phase = 0;
    for (let n = from; n < to; n++) {
      const progress = (n - from) / Math.max(1, to - from);
      // Intonation: up a semitone and back down over the line.
      const pitch = line.pitchHz * 2 ** (Math.sin(Math.PI * progress) / 12);
      phase += (2 * Math.PI * pitch) / sampleRate;
      let value = 0;
      for (let k = 1; k * pitch < 4000; k++) value += (envelope(k * pitch) / k) * Math.sin(k * phase);
      // Syllables: the loudness rises and falls four times a second.
      samples[n] = value * (0.55 + 0.45 * Math.sin((2 * Math.PI * 4 * (n - from)) / sampleRate));
    }
  }
  const peak = samples.reduce((max, v) => Math.max(max, Math.abs(v)), 0) || 1;
  return Int16Array.from(samples, (v) => Math.round((v / peak) * 0.5 * 32767));
}

/** A 16-bit PCM mono WAV: a 44-byte header, then the samples. */
export function wavFile(samples: Int16Array, sampleRate = 16_000): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples.length * 2, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples.length * 2, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}

function envelope(hz: number): number {
  return 0.1 + FORMANTS_HZ.reduce((sum, formant) => sum + 1 / (1 + ((hz - formant) / FORMANT_WIDTH_HZ) ** 2), 0);
}

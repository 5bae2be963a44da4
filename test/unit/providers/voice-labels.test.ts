// Speakers told apart by voice (src/providers/voice-labels.ts, docs/decisions.md §9): speech-like voices written as a
// PCM WAV and read back as a stream, as the transcription step reads a recording from the store.
import { Readable } from 'node:stream';
import { labelByVoice, withVoiceLabels } from '../../../src/providers/voice-labels.ts';
import { readSegmentPitches } from '../../../src/providers/segment-pitches.ts';
import type { TranscriptSegmentOut } from '../../../src/providers/types.ts';
import { wavStream } from '../../../dev/media-server/wav.ts';
import { voicedSamples, wavFile, type VoiceLine } from '../../helpers/synthetic-voices.ts';

/** A meeting of `pitches[i]` speaking line i, each line `seconds` long, and its segments as a recogniser without speakers gives them. */
function meeting(pitches: number[], seconds = 3): { wav: Buffer; segments: TranscriptSegmentOut[] } {
  const lines: VoiceLine[] = pitches.map((pitchHz, i) => ({ start: i * seconds, end: (i + 1) * seconds, pitchHz }));
  const wav = wavFile(voicedSamples(lines, pitches.length * seconds));
  return { wav, segments: lines.map((line, i) => ({ start: line.start, end: line.end, text: `line ${i}`, speaker: 'speaker_0' })) };
}

/** A stream of the bytes in 16 KiB chunks, like a network stream, that records whether it was destroyed. */
function streamOf(bytes: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += 16 * 1024) yield bytes.subarray(offset, offset + 16 * 1024);
    })(),
    { objectMode: false },
  );
}

test('two voices a fifth apart: each segment labelled by its voice, speaker_0 the first heard', async () => {
  const pitches = [210, 120, 210, 210, 120, 210, 120, 120];
  const { wav, segments } = meeting(pitches);
  const labelled = await labelByVoice(streamOf(wav), segments);
  expect(labelled?.map((s) => s.speaker)).toEqual(pitches.map((p) => (p === 210 ? 'speaker_0' : 'speaker_1')));
  expect(labelled?.map((s) => s.text)).toEqual(segments.map((s) => s.text));
});

test('three voices: three labels', async () => {
  const pitches = [100, 150, 230, 100, 150, 230, 230, 100, 150];
  const { wav, segments } = meeting(pitches);
  const labelled = await labelByVoice(streamOf(wav), segments);
  const labelOf = new Map([[100, 'speaker_0'], [150, 'speaker_1'], [230, 'speaker_2']]);
  expect(labelled?.map((s) => s.speaker)).toEqual(pitches.map((p) => labelOf.get(p)));
});

test('one voice, its pitch moving by a semitone or two from line to line: no labels (one speaker stays one)', async () => {
  const { wav, segments } = meeting([120, 127, 115, 124, 120, 131, 118, 125]);
  expect(await labelByVoice(streamOf(wav), segments)).toBeNull();
});

test('the pitch of each voiced frame is measured within a semitone', async () => {
  const { wav, segments } = meeting([110, 220]);
  const pitches = await readSegmentPitches(streamOf(wav), segments);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  // Semitones above 100 Hz: 110 Hz is 1.65, 220 Hz 13.65; the intonation adds up to one semitone.
  expect(median(pitches![0]!)).toBeGreaterThan(1.65 - 0.5);
  expect(median(pitches![0]!)).toBeLessThan(1.65 + 1.5);
  expect(median(pitches![1]!)).toBeGreaterThan(13.65 - 0.5);
  expect(median(pitches![1]!)).toBeLessThan(13.65 + 1.5);
});

test("pure tones (the development media server's recordings) are no voices", async () => {
  const segments = Array.from({ length: 12 }, (_, i) => ({ start: i * 5, end: i * 5 + 5, text: `line ${i}`, speaker: 'speaker_0' }));
  const audio = wavStream({ recordingId: 'rec_tones', title: 'tones', durationSeconds: 60, sampleRate: 16000 });
  expect(await labelByVoice(audio, segments)).toBeNull();
});

test('audio that is not a PCM WAV: no labels, and the stream is closed', async () => {
  const { segments } = meeting([210, 120, 210, 120]);
  const audio = streamOf(Buffer.alloc(200_000, 7));
  expect(await labelByVoice(audio, segments)).toBeNull();
  expect(audio.destroyed).toBe(true);
});

test("withVoiceLabels keeps a provider's own speakers, and the provider's result when the audio cannot be read, and says which", async () => {
  const { wav, segments } = meeting([210, 120, 210, 120]);
  const diarized = { language: 'en', segments: segments.map((s, i) => ({ ...s, speaker: `spk_${i % 2}` })) };
  let opened = 0;
  const open = async () => {
    opened++;
    return streamOf(wav);
  };
  expect(await withVoiceLabels(diarized, open)).toEqual({ result: diarized, outcome: 'provider_labelled' });
  expect(opened).toBe(0);

  const plain = { language: 'en', segments };
  const unreachable = new Error('the store is unreachable');
  const failing = async (): Promise<Readable> => {
    throw unreachable;
  };
  expect(await withVoiceLabels(plain, failing)).toEqual({ result: plain, outcome: 'failed', error: unreachable });
  const labelled = await withVoiceLabels(plain, open);
  expect(labelled.outcome).toBe('labelled');
  expect(labelled.result.segments.map((s) => s.speaker)).toEqual(['speaker_0', 'speaker_1', 'speaker_0', 'speaker_1']);

  const oneVoice = meeting([150, 150, 150, 150]);
  expect(await withVoiceLabels({ language: 'en', segments: oneVoice.segments }, async () => streamOf(oneVoice.wav))).toMatchObject({ outcome: 'one_voice' });
});

test('a cancelled transcription stops reading voices', async () => {
  const { wav, segments } = meeting([210, 120, 210, 120]);
  const controller = new AbortController();
  controller.abort();
  await expect(withVoiceLabels({ language: 'en', segments }, async () => streamOf(wav), controller.signal)).rejects.toThrow();
});

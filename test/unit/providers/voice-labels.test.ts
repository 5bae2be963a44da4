// Speakers told apart by voice (src/providers/voice-labels.ts, docs/decisions.md §9): speech-like voices written as a
// PCM WAV and read back as a stream, as the transcription step reads a recording from the store.
import { Readable } from 'node:stream';
import { labelByVoice, withVoiceLabels } from '../../../src/providers/voice-labels.ts';
import { readSegmentFrames, voicedPitches } from '../../../src/providers/segment-pitches.ts';
import { piecesOf, splitByVoice } from '../../../src/providers/voice-turns.ts';
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
  const pitches = (await readSegmentFrames(streamOf(wav), segments))?.map((frames) => voicedPitches(frames));
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

/**
 * Lines of the given voices with `gap` seconds of silence between them (`voicedSamples` adds 0.15 s at each end of a
 * line), and the segments a recogniser cut by its own clock: `cuts` are the times its segments end.
 */
function conversation(pitches: number[], texts: string[], cuts: number[], seconds = 3, gap = 0.4): { wav: Buffer; segments: TranscriptSegmentOut[] } {
  const lines: VoiceLine[] = pitches.map((pitchHz, i) => ({ start: i * (seconds + gap), end: i * (seconds + gap) + seconds, pitchHz }));
  const wav = wavFile(voicedSamples(lines, lines.at(-1)!.end));
  const starts = [0, ...cuts.slice(0, -1)];
  return { wav, segments: starts.map((start, i) => ({ start, end: cuts[i]!, text: texts[i]!, speaker: 'speaker_0' })) };
}

test("a segment that runs one voice's sentence end into another's reply becomes two, cut at the pause and the sentence end", async () => {
  // Lines (3 s each, 0.7 s of silence between): 0–3 high, 3.4–6.4 low, 6.8–9.8 high, 10.2–13.2 low. The recogniser's
  // second segment (1.8–8) holds the end of line 1, all of line 2 and the start of line 3.
  const texts = [
    'Right, the call is at six thirty at the bridge',
    'so it is tight. No question, specials are done and the lamb is on. Marco, can you',
    'ring the supplier about the fish this morning?',
    'Sure, I will ring them at nine and let you know.',
  ];
  const { wav, segments } = conversation([210, 120, 210, 120], texts, [1.8, 8, 10, 13.2]);
  const labelled = await labelByVoice(streamOf(wav), segments);
  expect(labelled?.map((s) => [s.speaker, s.text])).toEqual([
    ['speaker_0', texts[0]],
    ['speaker_0', 'so it is tight.'],
    ['speaker_1', 'No question, specials are done and the lamb is on.'],
    ['speaker_0', 'Marco, can you'],
    ['speaker_0', texts[2]],
    ['speaker_1', texts[3]],
  ]);
  // The cuts lie in the pauses between the lines (3.0–3.4 and 6.4–6.8, plus the 0.15 s edges of each line).
  expect(labelled![1]!.end).toBeGreaterThan(2.8);
  expect(labelled![1]!.end).toBeLessThan(3.6);
  expect(labelled![3]!.start).toBeGreaterThan(6.2);
  expect(labelled![3]!.start).toBeLessThan(7);
  expect(labelled!.map((s) => s.text).join(' ')).toBe(texts.join(' '));
});

test('a pause inside one voice leaves its segment whole', async () => {
  const texts = ['We had a good week.', 'Twelve tickets closed. Two left, and both are waiting on the vendor.', 'Thanks, that is clear.', 'One more thing from me.'];
  // The second segment covers lines 1 and 2, both the low voice, with a 0.7 s pause between them.
  const { wav, segments } = conversation([210, 120, 120, 210, 120], texts, [3.2, 10, 13.5, 16.6]);
  const labelled = await labelByVoice(streamOf(wav), segments);
  expect(labelled?.map((s) => [s.speaker, s.text])).toEqual([
    ['speaker_0', texts[0]],
    ['speaker_1', texts[1]],
    ['speaker_0', texts[2]],
    ['speaker_1', texts[3]],
  ]);
});

test('a segment is shared out by speech and cut at the nearest sentence end, else a comma; one word stays whole under the voice that speaks most', () => {
  // 100 frames of 20 ms: 30 of speech, a 25-frame pause, 45 of speech; pitch 0 before the pause, 12 after.
  const frames = { times: [] as number[], levels: [] as number[], pitches: [] as number[] };
  for (let i = 0; i < 100; i++) {
    const silent = i >= 30 && i < 55;
    frames.times.push(i * 0.02);
    frames.levels.push(silent ? 0 : 0.3);
    frames.pitches.push(silent ? NaN : i < 30 ? 0 : 12);
  }
  const pieces = piecesOf([frames])[0]!;
  expect(pieces).toHaveLength(2);
  const segment = { start: 0, end: 2, text: '', speaker: 'speaker_0' };
  const split = (text: string) => splitByVoice({ ...segment, text }, pieces, [0, 1]).map((s) => [s.voice, s.text]);
  // 30 of 75 speech frames: 4 of 10 words; the sentence ends after the third.
  expect(split('we are done then. Okay I will take the next one')).toEqual([[0, 'we are done then.'], [1, 'Okay I will take the next one']]);
  expect(split('we are done, then okay I will take the next one')).toEqual([[0, 'we are done,'], [1, 'then okay I will take the next one']]);
  expect(split('okay')).toEqual([[1, 'okay']]);
});

// Speakers told apart by voice through the transcription step (src/modules/transcripts/transcription-stages.ts
// runTranscription, docs/decisions.md §9): a self-hosted Whisper-like server that answers only `verbose_json` (no
// speakers; the development media server with diarized_json refused, real HTTP on loopback) transcribes a recording
// whose two speakers are speech-like voices; the stored segments then carry one label per voice, matching who the
// server's script says spoke. A diarizing answer keeps the provider's labels, and pure tones stay one speaker.
import { runTranscription, type TranscriptionJob } from '../../../src/modules/transcripts/transcription-stages.ts';
import { metrics } from '../../../src/metrics/metrics.ts';
import { OpenAiTranscriptionProvider } from '../../../src/providers/openai.ts';
import { readWavHeader } from '../../../src/providers/wav-header.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';
import { voicedSamples } from '../../helpers/synthetic-voices.ts';
import { chunkedStream, devRecording, openAiSettings } from './audio-source.ts';

const settings = (baseUrl: string) => openAiSettings(baseUrl, { maxConcurrency: 1 });

/** The dev recording's own header (so the server knows which script it is) over speech-like voices, one per scripted speaker. */
function voicedRecording(bytes: Buffer, script: { durationSeconds: number; segments: Array<{ start: number; end: number; speaker: string }> }): Buffer {
  const header = readWavHeader(bytes.subarray(0, 64 * 1024))!;
  const speakers = [...new Set(script.segments.map((s) => s.speaker))];
  const pitchOf = (speaker: string) => [115, 215, 165][speakers.indexOf(speaker) % 3]!;
  const samples = voicedSamples(
    script.segments.map((s) => ({ start: s.start, end: s.end, pitchHz: pitchOf(s.speaker) })),
    script.durationSeconds,
    header.sampleRate,
  );
  return Buffer.concat([bytes.subarray(0, header.dataOffset), Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}

/** The count of `convene_voice_labels_total` for one outcome, as the worker's /metrics would show it. */
async function voiceLabelCount(outcome: string): Promise<number> {
  const counter = await metrics.registry.getSingleMetric('convene_voice_labels_total')?.get();
  return counter?.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/**
 * runTranscription over bytes held as the store would serve them, in 16 KiB chunks; `storeFailsAfter` opens, the
 * store refuses (as an unreachable S3 would). The warnings logged are kept.
 */
async function transcribe(provider: OpenAiTranscriptionProvider, bytes: Buffer, storeFailsAfter = Infinity) {
  const opened: Array<{ start: number; end: number } | undefined> = [];
  const warnings: unknown[][] = [];
  const store = {
    async open(_location: unknown, range?: { start: number; end: number }) {
      opened.push(range);
      if (opened.length > storeFailsAfter) throw new Error('connect ECONNREFUSED https://s3.example/recordings/voices.wav?X-Amz-Signature=abcdef0123456789');
      return chunkedStream(range ? bytes.subarray(range.start, range.end) : bytes);
    },
  };
  const job = {
    transcriptId: 'tr_voices',
    recording: { contentType: 'audio/wav' },
    location: { bucket: 'recordings', key: 'voices.wav' },
    sizeBytes: bytes.length,
    provider,
    providerId: 'openai',
    apiKey: undefined,
    language: 'en-US',
    keywords: [],
    profanityFilter: false,
  } as unknown as TranscriptionJob;
  const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
  const result = await runTranscription(store, job, { signal: new AbortController().signal, progress: () => {}, logger });
  return { result, opened, warnings };
}

let whisper: DevMediaServer;
let media: DevMediaServer;
beforeAll(async () => {
  whisper = await startDevMediaServer({ webhookSecret: 'voice-labels-test', refuseResponseFormats: ['diarized_json'] });
  media = await startDevMediaServer({ webhookSecret: 'voice-labels-test' });
});
afterAll(async () => {
  await whisper.stop();
  await media.stop();
});

test('a server without speakers: each stored segment is labelled by its voice, as the script says who spoke', async () => {
  const { bytes, script } = await devRecording(whisper, 'room-voices-1', 60);
  expect(new Set(script.segments.map((s) => s.speaker)).size).toBeGreaterThan(1);
  const labelledBefore = await voiceLabelCount('labelled');
  const { result, opened, warnings } = await transcribe(new OpenAiTranscriptionProvider(settings(whisper.url)), voicedRecording(bytes, script));
  expect(await voiceLabelCount('labelled')).toBe(labelledBefore + 1);
  expect(warnings).toEqual([]);

  expect(whisper.transcriptionRequests.map((r) => r.fields.response_format?.[0])).toEqual(['diarized_json', 'verbose_json']);
  expect(result.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
  // Read once more for the voices, after the uploads.
  expect(opened.length).toBe(3);
  // The same partition as the script's speakers, numbered in order of first appearance.
  const firstSeen = [...new Set(script.segments.map((s) => s.speaker))];
  expect(result.segments.map((s) => s.speaker)).toEqual(script.segments.map((s) => `speaker_${firstSeen.indexOf(s.speaker)}`));
});

test("a diarizing server's labels are kept, and the recording is not read again", async () => {
  const { bytes, script } = await devRecording(media, 'room-voices-2', 40);
  const { result, opened } = await transcribe(new OpenAiTranscriptionProvider(settings(media.url)), voicedRecording(bytes, script));
  // The server's own labels (its diarized_json names speakers A, B, C), one per scripted speaker, untouched.
  const labelOf = new Map(script.segments.map((s, i) => [s.speaker, result.segments[i]!.speaker]));
  expect(new Set(labelOf.values()).size).toBe(labelOf.size);
  expect(result.segments.map((s) => s.speaker)).toEqual(script.segments.map((s) => labelOf.get(s.speaker)));
  expect(result.segments.some((s) => /^speaker_\d+$/.test(s.speaker))).toBe(false);
  expect(opened.length).toBe(1);
});

test('pure tones (the development recording as it is): one speaker, speaker_0', async () => {
  const { bytes, script } = await devRecording(whisper, 'room-voices-3', 40);
  const { result } = await transcribe(new OpenAiTranscriptionProvider(settings(whisper.url)), bytes);
  expect(result.segments).toHaveLength(script.segments.length);
  expect(result.segments.every((s) => s.speaker === 'speaker_0')).toBe(true);
});

test("the recording unreadable for the voices: the provider's segments are kept, a warning says why without the URL's signature, the failure is counted", async () => {
  const { bytes, script } = await devRecording(whisper, 'room-voices-4', 40);
  const failedBefore = await voiceLabelCount('failed');
  // The provider reads the file once (it is small enough for one upload); the read for the voices is refused.
  const { result, opened, warnings } = await transcribe(new OpenAiTranscriptionProvider(settings(whisper.url)), voicedRecording(bytes, script), 1);
  expect(opened.length).toBe(2);
  expect(result.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
  expect(result.segments.every((s) => s.speaker === 'speaker_0')).toBe(true);
  expect(await voiceLabelCount('failed')).toBe(failedBefore + 1);
  expect(warnings).toHaveLength(1);
  const [fields, message] = warnings[0] as [Record<string, string>, string];
  expect(fields.transcriptId).toBe('tr_voices');
  expect(fields.reason).toContain('ECONNREFUSED');
  expect(JSON.stringify(warnings)).not.toContain('abcdef0123456789');
  expect(message).toMatch(/not told apart by voice/);
});

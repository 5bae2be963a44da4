// The `deepgram` adapter against the Deepgram-format local server (test/helpers/deepgram-server.ts), real HTTP on
// loopback: speakers, segments, language, keywords, the profanity filter option, the fallbacks when utterances are
// missing, and failures (401/403 final; 429, 500, timeout retryable; garbage JSON a clear final failure).
import type { TranscriptionVendorConfig } from '../../../src/config.ts';
import { DeepgramProvider } from '../../../src/providers/deepgram.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';
import { startDeepgramServer, type DeepgramServer } from '../../helpers/deepgram-server.ts';
import { devRecording, requestFor } from './audio-source.ts';

const KEY = 'dg-operator-key-123456';
let media: DevMediaServer;
let deepgram: DeepgramServer;
let recording: Awaited<ReturnType<typeof devRecording>>;

const settings = (overrides: Partial<TranscriptionVendorConfig> = {}): TranscriptionVendorConfig => ({
  baseUrl: deepgram.url,
  apiKey: KEY,
  model: 'nova-3',
  maxConcurrency: 4,
  maxUploadBytes: 2 * 1000 ** 3,
  timeoutMs: 10_000,
  ...overrides,
});

beforeAll(async () => {
  media = await startDevMediaServer({ webhookSecret: 'deepgram-adapter-test' });
  deepgram = await startDeepgramServer({ apiKey: KEY });
  recording = await devRecording(media, 'room-deepgram-1', 48);
});
afterAll(async () => {
  await deepgram.stop();
  await media.stop();
});

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const failure = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(failure).toBeInstanceOf(ProviderError);
  return failure as ProviderError;
}

test('utterances become segments with speaker_<n> labels; options and the audio reach Deepgram as documented', async () => {
  const { bytes, script } = recording;
  const provider = new DeepgramProvider(settings());
  const result = await provider.transcribe(
    requestFor(bytes, { language: 'en-GB', keywords: ['Convene', 'budget review'], profanityFilter: true }),
  );

  expect(result.language).toBe('en-GB');
  expect(result.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
  expect(result.segments.map((s) => [s.start, s.end])).toEqual(script.segments.map((s) => [s.start, s.end]));
  const numbers = new Map(script.speakers.map((name, i) => [name, `speaker_${i}`]));
  expect(result.segments.map((s) => s.speaker)).toEqual(script.segments.map((s) => numbers.get(s.speaker)));

  const sent = deepgram.requests.at(-1)!;
  expect(sent.authorization).toBe(`Token ${KEY}`);
  expect(sent.contentType).toBe('audio/wav');
  expect(sent.bytes).toBe(bytes.length);
  expect(sent.contentLength).toBe(bytes.length);
  expect(sent.recordingId).toBe(recording.recording.id);
  expect(Object.fromEntries(['model', 'diarize', 'punctuate', 'utterances', 'language', 'profanity_filter'].map((k) => [k, sent.query.get(k)]))).toEqual({
    model: 'nova-3',
    diarize: 'true',
    punctuate: 'true',
    utterances: 'true',
    language: 'en-GB',
    profanity_filter: 'true',
  });
  // Nova-3 takes key terms as `keyterm`; older models as `keywords`.
  expect(sent.query.getAll('keyterm')).toEqual(['Convene', 'budget review']);
  expect(sent.query.getAll('keywords')).toEqual([]);
});

test('older models get `keywords`; the tenant key replaces the operator key', async () => {
  const provider = new DeepgramProvider(settings({ model: 'nova-2', apiKey: 'not-the-key' }));
  await provider.transcribe(requestFor(recording.bytes, { keywords: ['Convene'], apiKey: KEY }));
  const sent = deepgram.requests.at(-1)!;
  expect(sent.query.getAll('keywords')).toEqual(['Convene']);
  expect(sent.query.get('profanity_filter')).toBe('false');
  expect(sent.authorization).toBe(`Token ${KEY}`);
});

test('without utterances the paragraphs are used; without paragraphs the words, grouped by speaker', async () => {
  const { bytes, script } = recording;
  const provider = new DeepgramProvider(settings());
  const numbers = new Map(script.speakers.map((name, i) => [name, `speaker_${i}`]));

  deepgram.failNext('no_utterances');
  const fromParagraphs = await provider.transcribe(requestFor(bytes));
  expect(fromParagraphs.segments.map((s) => [s.text, s.speaker])).toEqual(
    script.segments.map((s) => [s.text, numbers.get(s.speaker)]),
  );

  deepgram.failNext('words_only');
  const fromWords = await provider.transcribe(requestFor(bytes));
  // Consecutive segments of one speaker merge; every word is there, in order.
  expect(fromWords.segments.map((s) => s.text).join(' ')).toBe(script.text);
  expect(fromWords.segments[0].speaker).toBe(numbers.get(script.segments[0].speaker));
  expect(fromWords.segments.at(-1)!.end).toBeCloseTo(48, 1);
});

test('a result without speaker numbers (no diarization) labels every segment speaker_0, never null', async () => {
  const { bytes, script } = recording;
  const provider = new DeepgramProvider(settings());
  deepgram.failNext('undiarized');
  const fromUtterances = await provider.transcribe(requestFor(bytes));
  expect(fromUtterances.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
  expect(new Set(fromUtterances.segments.map((s) => s.speaker))).toEqual(new Set(['speaker_0']));
});

test('401 and 403 fail at once with a reason naming Deepgram; the key never appears', async () => {
  const provider = new DeepgramProvider(settings());
  deepgram.failNext('unauthorized');
  const unauthorized = await failureOf(provider.transcribe(requestFor(recording.bytes)));
  expect(unauthorized).toMatchObject({ retryable: false, status: 401 });
  expect(unauthorized.message).toBe('deepgram refused the API key (HTTP 401): Invalid credentials.');

  deepgram.failNext('forbidden');
  expect(await failureOf(provider.transcribe(requestFor(recording.bytes)))).toMatchObject({ retryable: false, status: 403 });

  const wrongKey = await failureOf(new DeepgramProvider(settings({ apiKey: 'wrong-key-999' })).transcribe(requestFor(recording.bytes)));
  expect(wrongKey).toMatchObject({ retryable: false, status: 401 });
  expect(wrongKey.message).not.toContain('wrong-key-999');
});

test('429 and 500 are retryable, with the vendor message', async () => {
  const provider = new DeepgramProvider(settings());
  deepgram.failNext('rate_limited');
  const limited = await failureOf(provider.transcribe(requestFor(recording.bytes)));
  expect(limited).toMatchObject({ retryable: true, status: 429 });
  expect(limited.message).toBe('deepgram answered HTTP 429: Too many requests. Please try again later.');

  deepgram.failNext('server_error');
  expect(await failureOf(provider.transcribe(requestFor(recording.bytes)))).toMatchObject({ retryable: true, status: 500 });
});

test('no answer within the timeout is retryable', async () => {
  deepgram.slowMs = 3000;
  deepgram.failNext('slow');
  const started = Date.now();
  const failure = await failureOf(new DeepgramProvider(settings({ timeoutMs: 300 })).transcribe(requestFor(recording.bytes)));
  expect(failure).toMatchObject({ retryable: true });
  expect(failure.message).toBe('deepgram: no answer within 300 ms');
  expect(Date.now() - started).toBeLessThan(2000);
});

test('garbage JSON is a clear final failure', async () => {
  deepgram.failNext('garbage');
  const failure = await failureOf(new DeepgramProvider(settings()).transcribe(requestFor(recording.bytes)));
  expect(failure).toMatchObject({ retryable: false });
  expect(failure.message).toMatch(/^deepgram answered with invalid JSON: \{"metadata"/);
});

test('requests in flight are bounded by DEEPGRAM_MAX_CONCURRENCY', async () => {
  deepgram.slowMs = 150;
  deepgram.failNext('slow', 3);
  const provider = new DeepgramProvider(settings({ maxConcurrency: 1 }));
  const first = deepgram.requests.length;
  const results = await Promise.all([1, 2, 3].map(() => provider.transcribe(requestFor(recording.bytes))));
  expect(results.every((r) => r.segments.length === recording.script.segments.length)).toBe(true);
  expect(deepgram.requests.slice(first).map((r) => r.inFlight)).toEqual([1, 1, 1]);
});

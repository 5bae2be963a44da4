// The `openai` adapter against the development media server's OpenAI-compatible /v1/audio/transcriptions
// (real HTTP on loopback): speakers from diarized_json, the verbose_json fallback, languages, keywords, the
// profanity filter, splitting of a WAV over the upload limit, and failures.
import { OpenAiTranscriptionProvider } from '../../../src/providers/openai.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';
import { startBodyLimitProxy } from '../../helpers/body-limit-proxy.ts';
import { devRecording, openAiSettings, requestFor } from './audio-source.ts';

const settings = openAiSettings;

let media: DevMediaServer;
beforeAll(async () => {
  media = await startDevMediaServer({ webhookSecret: 'openai-adapter-test' });
});
afterAll(() => media.stop());

test('diarized_json: segments, times and speakers of the scripted meeting; language and keywords reach the server', async () => {
  const { bytes, script } = await devRecording(media, 'room-openai-1', 40);
  const provider = new OpenAiTranscriptionProvider(settings(media.url));
  const progress: number[] = [];
  const before = media.transcriptionRequests.length;

  const result = await provider.transcribe(
    requestFor(bytes, { language: 'en-US', keywords: ['Convene', 'roadmap'], progress: (done) => progress.push(done) }),
  );

  expect(result.language).toBe('en-US');
  expect(result.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
  expect(result.segments.map((s) => [s.start, s.end])).toEqual(script.segments.map((s) => [s.start, s.end]));
  // OpenAI labels speakers A, B, … in order of appearance.
  const labels = new Map(script.speakers.map((name, i) => [name, String.fromCharCode(65 + i)]));
  expect(result.segments.map((s) => s.speaker)).toEqual(script.segments.map((s) => labels.get(s.speaker)));

  const sent = media.transcriptionRequests.slice(before);
  expect(sent).toHaveLength(1);
  expect(sent[0].fields.response_format).toEqual(['diarized_json']);
  expect(sent[0].fields.language).toEqual(['en']); // ISO 639-1, as OpenAI wants
  expect(sent[0].fields.prompt).toEqual(['Keywords: Convene, roadmap.']);
  expect(sent[0].fields.model).toEqual(['whisper-1']);
  expect(sent[0].fileBytes).toBe(bytes.length);
  expect(progress.at(-1)).toBe(bytes.length);
});

test('the profanity filter is applied by us (OpenAI has none)', async () => {
  const { bytes } = await devRecording(media, 'room-openai-2', 20);
  const provider = new OpenAiTranscriptionProvider(settings(media.url));
  const plain = await provider.transcribe(requestFor(bytes, { profanityFilter: true }));
  // The scripted meetings are polite: the filter changes nothing there; the masking itself is unit-tested.
  expect(plain.segments.length).toBeGreaterThan(0);
  expect(plain.segments.every((s) => !s.text.includes('*'))).toBe(true);
});

test('a server that refuses diarized_json (422, FastAPI envelope) is asked with verbose_json, and remembered', async () => {
  const whisper = await startDevMediaServer({ webhookSecret: 'openai-adapter-test', refuseResponseFormats: ['diarized_json'] });
  try {
    const { bytes, script } = await devRecording(whisper, 'room-openai-3', 30);
    const provider = new OpenAiTranscriptionProvider(settings(whisper.url));

    const first = await provider.transcribe(requestFor(bytes, { language: 'fr-CA' }));
    expect(first.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
    // verbose_json has no speakers: every segment is the stable `speaker_0` (docs/decisions.md §9).
    expect(first.segments.every((s) => s.speaker === 'speaker_0')).toBe(true);
    expect(whisper.transcriptionRequests.map((r) => r.fields.response_format?.[0])).toEqual(['diarized_json', 'verbose_json']);
    expect(whisper.transcriptionRequests[1].fields.language).toEqual(['fr']);

    await provider.transcribe(requestFor(bytes));
    expect(whisper.transcriptionRequests.map((r) => r.fields.response_format?.[0])).toEqual([
      'diarized_json',
      'verbose_json',
      'verbose_json',
    ]);
  } finally {
    await whisper.stop();
  }
});

test('a PCM WAV over the upload limit is split on sample boundaries, read by ranges, and its segments re-timed', async () => {
  const limit = 100_000;
  const small = await startDevMediaServer({ webhookSecret: 'openai-adapter-test', maxUploadBytes: limit });
  try {
    const { bytes } = await devRecording(small, 'room-openai-4', 60); // 8 kHz 16-bit mono: 960,000 bytes of samples
    const provider = new OpenAiTranscriptionProvider(settings(small.url, { maxUploadBytes: limit }));
    const request = requestFor(bytes);

    const result = await provider.transcribe(request);

    const uploads = small.transcriptionRequests;
    // The samples a part carries: as many as fit once the WAV header and the multipart envelope are counted.
    const perPart = uploads[0].fileBytes - 44;
    expect(perPart).toBeLessThan(limit - 44 - 300);
    const dataBytes = 60 * 8000 * 2;
    const parts = Math.ceil(dataBytes / perPart);
    expect(uploads).toHaveLength(parts);
    expect(uploads.every((u) => u.fileBytes <= limit)).toBe(true);
    expect(uploads.reduce((sum, u) => sum + u.fileBytes, 0)).toBe(dataBytes + 44 * parts);
    // One range for the header, then one per part; never the whole file.
    expect(request.opened).toHaveLength(parts + 1);
    expect(request.opened.every((range) => range !== undefined && range.end - range.start <= limit)).toBe(true);
    // Each part is transcribed alone (the server answers two segments per part of unknown audio); times move by the
    // part's offset, so the transcript runs from 0 to 60 s without going back.
    expect(result.segments).toHaveLength(parts * 2);
    const partSeconds = perPart / 16_000;
    result.segments.forEach((segment, i) => {
      const part = Math.floor(i / 2);
      expect(segment.start).toBeGreaterThanOrEqual(round(part * partSeconds) - 0.01);
      expect(segment.end).toBeLessThanOrEqual(round(Math.min(60, (part + 1) * partSeconds)) + 0.01);
      if (i > 0) expect(segment.start).toBeGreaterThanOrEqual(result.segments[i - 1].end - 0.01);
    });
    expect(result.segments.at(-1)!.end).toBeCloseTo(60, 1);
  } finally {
    await small.stop();
  }
});

test("the whole multipart body of every part stays within OPENAI_MAX_UPLOAD_BYTES (OpenAI's limit is on the request)", async () => {
  const limit = 100_000;
  const proxy = await startBodyLimitProxy({ target: media.url, maxBodyBytes: limit });
  try {
    const { bytes, script } = await devRecording(media, 'room-openai-body', 60);
    // The longest prompt and a language: the fields take room too.
    const keywords = Array.from({ length: 60 }, (_, i) => `keyword${i}`);
    const provider = new OpenAiTranscriptionProvider(settings(proxy.url, { maxUploadBytes: limit }));

    const result = await provider.transcribe(requestFor(bytes, { language: 'en-US', keywords }));

    expect(proxy.requests.length).toBeGreaterThan(1);
    expect(proxy.requests.every((r) => r.status === 200 && r.bytes <= limit)).toBe(true);
    // Some parts fill the limit closely: the room left is the envelope, not a guess.
    expect(Math.max(...proxy.requests.map((r) => r.bytes))).toBeGreaterThan(limit - 64);
    expect(result.segments.length).toBeGreaterThan(0);
    expect(script.segments.length).toBeGreaterThan(0);
  } finally {
    await proxy.stop();
  }
});

test('a 400 that is not about response_format is the reason, after one upload (no verbose_json retry)', async () => {
  const proxy = await startBodyLimitProxy({ target: media.url, maxBodyBytes: 25 * 1024 * 1024 });
  try {
    const { bytes } = await devRecording(media, 'room-openai-400', 10);
    const provider = new OpenAiTranscriptionProvider(settings(proxy.url));
    proxy.answerNext(400, {
      error: { message: 'Audio file might be corrupted or unsupported', type: 'invalid_request_error', param: 'file', code: 'invalid_value' },
    });
    const failure = await provider.transcribe(requestFor(bytes)).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      name: 'ProviderError',
      retryable: false,
      status: 400,
      message: 'openai answered HTTP 400: Audio file might be corrupted or unsupported',
    });
    expect(proxy.requests).toEqual([{ bytes: expect.any(Number), status: 400 }]);

    // The same server is still asked for diarized_json next time: nothing was remembered from that error.
    const ok = await provider.transcribe(requestFor(bytes));
    expect(ok.segments.length).toBeGreaterThan(0);
    expect(proxy.requests.map((r) => r.status)).toEqual([400, 200]);
  } finally {
    await proxy.stop();
  }
});

test('another format over the limit fails at once with a clear reason', async () => {
  const provider = new OpenAiTranscriptionProvider(settings(media.url, { maxUploadBytes: 64 * 1024 }));
  const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(200_000, 1)]);
  const failure = await provider.transcribe(requestFor(mp3, { contentType: 'audio/mpeg' })).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(ProviderError);
  expect((failure as ProviderError).retryable).toBe(false);
  expect((failure as ProviderError).message).toMatch(/over openai's upload limit of 65536 bytes.*only PCM WAV/);
});

test('401 is final and names the provider; the tenant key is sent as a Bearer token', async () => {
  const keyed = await startDevMediaServer({ webhookSecret: 'openai-adapter-test', apiKey: 'tenant-key-1234' });
  try {
    const { bytes } = await devRecording(keyed, 'room-openai-5', 10).catch(async () => {
      // The dev server's /v1 needs the key for seeding too; seed through the object API instead.
      const recording = keyed.seedRecording({ meetingId: 'room-openai-5', durationSeconds: 10 });
      return { bytes: Buffer.from(await (await fetch(recording.url!)).arrayBuffer()) };
    });
    const provider = new OpenAiTranscriptionProvider(settings(keyed.url, { apiKey: 'operator-wrong-key' }));
    const failure = await provider.transcribe(requestFor(bytes)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ retryable: false, status: 401 });
    expect((failure as Error).message).toMatch(/^openai refused the API key \(HTTP 401\): missing or invalid API key/);
    expect((failure as Error).message).not.toContain('operator-wrong-key');

    const ok = await provider.transcribe(requestFor(bytes, { apiKey: 'tenant-key-1234' }));
    expect(ok.segments.length).toBeGreaterThan(0);
  } finally {
    await keyed.stop();
  }
});

test('a server that is down is a retryable failure', async () => {
  const gone = await startDevMediaServer({ webhookSecret: 'openai-adapter-test' });
  const url = gone.url;
  await gone.stop();
  const provider = new OpenAiTranscriptionProvider(settings(url));
  const failure = await provider.transcribe(requestFor(Buffer.alloc(1000))).catch((e: unknown) => e);
  expect(failure).toMatchObject({ name: 'ProviderError', retryable: true });
  expect((failure as Error).message).toMatch(/^openai: connection failed \(ECONNREFUSED\)/);
});

function round(value: number) {
  return Math.round(value * 100) / 100;
}

test("OpenAI's diarizing model gets no prompt (it takes none); the chunking strategy it needs is sent", async () => {
  const { bytes } = await devRecording(media, 'room-openai-6', 10);
  const before = media.transcriptionRequests.length;
  const provider = new OpenAiTranscriptionProvider(settings(media.url, { model: 'gpt-4o-transcribe-diarize' }));
  await provider.transcribe(requestFor(bytes, { keywords: ['Convene'] }));
  const sent = media.transcriptionRequests.slice(before);
  expect(sent[0].fields.prompt).toBeUndefined();
  expect(sent[0].fields.chunking_strategy).toEqual(['auto']);
});

test('a stalled upload times out (retryable) and the source stream is destroyed, not left open', async () => {
  const { Readable } = await import('node:stream');
  let source: InstanceType<typeof Readable> | undefined;
  const provider = new OpenAiTranscriptionProvider(settings(media.url, { timeoutMs: 300 }));
  const failure = await provider
    .transcribe({
      ...requestFor(Buffer.alloc(0)),
      sizeBytes: 1_000_000,
      async open() {
        // 64 KiB, then nothing: a stalled S3 download.
        source = new Readable({ read() {} });
        source.push(Buffer.alloc(64 * 1024));
        return source;
      },
    })
    .catch((e: unknown) => e);
  expect(failure).toMatchObject({ name: 'ProviderError', retryable: true, message: 'openai: no answer within 300 ms' });
  await new Promise((resolve) => setImmediate(resolve));
  expect(source!.destroyed).toBe(true);
});

import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';

let media: DevMediaServer;

beforeAll(async () => {
  media = await startDevMediaServer({ webhookSecret: 'transcription-test-secret' });
});
afterAll(() => media.stop());

async function recordingFile(meetingId: string, meetingName: string, durationSeconds: number) {
  const recording = media.seedRecording({ meetingId, meetingName, durationSeconds });
  const file = new Blob([await (await fetch(recording.url!)).arrayBuffer()], { type: 'audio/wav' });
  return { recording, file };
}

function transcribe(file: Blob, fields: Record<string, string | string[]>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
  }
  form.append('file', file, 'recording.wav');
  return fetch(`${media.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: 'Bearer any-key' },
    body: form,
  });
}

test('the transcript of a generated recording is its scripted meeting, with action items', async () => {
  const { recording, file } = await recordingFile('room-stt-1', 'Roadmap planning', 90);
  const script = media.transcriptFor(recording.id);

  const response = await transcribe(file, { model: 'whisper-1' });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { text: string };
  expect(body.text).toBe(script.text);
  expect(body.text).toContain('Roadmap planning');
  expect(script.actionItems).toHaveLength(2);
  for (const item of script.actionItems) {
    expect(item).toMatch(/^[A-Z][a-z]+ will .+\.$/);
    expect(body.text).toContain(item);
  }
});

test('verbose_json segments cover the recording and stay within its duration', async () => {
  const { recording, file } = await recordingFile('room-stt-2', 'Budget', 37);
  const response = await transcribe(file, { model: 'whisper-1', response_format: 'verbose_json', language: 'en' });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    task: string;
    duration: number;
    text: string;
    segments: Array<{ id: number; start: number; end: number; text: string }>;
  };
  expect(body.task).toBe('transcribe');
  expect(body.duration).toBe(37);
  expect(body.text).toBe(media.transcriptFor(recording.id).text);
  expect(body.segments.length).toBeGreaterThan(3);
  body.segments.forEach((segment, index) => {
    expect(segment.id).toBe(index);
    expect(segment.start).toBeGreaterThanOrEqual(index === 0 ? 0 : body.segments[index - 1].end);
    expect(segment.end).toBeGreaterThan(segment.start);
    expect(segment.end).toBeLessThanOrEqual(37);
  });
  expect(body.segments.at(-1)!.end).toBe(37);
  expect(body.segments.map((s) => s.text.trim()).join(' ')).toBe(body.text);
});

test('text and diarized_json formats', async () => {
  const { recording, file } = await recordingFile('room-stt-3', 'Retro', 20);
  const script = media.transcriptFor(recording.id);

  const text = await transcribe(file, { model: 'whisper-1', response_format: 'text' });
  expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
  expect((await text.text()).trim()).toBe(script.text);

  const diarized = await transcribe(file, { model: 'gpt-4o-transcribe-diarize', response_format: 'diarized_json' });
  const body = (await diarized.json()) as { segments: Array<{ speaker: string; text: string; end: number }> };
  expect(body.segments.map((s) => s.text)).toEqual(script.segments.map((s) => s.text));
  expect(new Set(body.segments.map((s) => s.speaker))).toEqual(new Set(['A', 'B', 'C']));

  const named = await transcribe(file, {
    model: 'gpt-4o-transcribe-diarize',
    response_format: 'diarized_json',
    'known_speaker_names[]': ['Host', 'Second', 'Third'],
  });
  const namedBody = (await named.json()) as { segments: Array<{ speaker: string }> };
  expect(namedBody.segments[0].speaker).toBe('Host');
  // Each scripted speaker keeps one label throughout.
  const pairs = new Set(script.segments.map((s, i) => `${s.speaker}=${namedBody.segments[i].speaker}`));
  expect(pairs.size).toBe(script.speakers.length);
});

test('two recordings give two different meetings; audio from elsewhere gets a placeholder', async () => {
  const first = await recordingFile('room-stt-4', 'Same name', 10);
  const second = await recordingFile('room-stt-5', 'Same name', 10);
  const [a, b] = await Promise.all([
    transcribe(first.file, { model: 'whisper-1' }).then((r) => r.json()),
    transcribe(second.file, { model: 'whisper-1' }).then((r) => r.json()),
  ]);
  expect(a).not.toEqual(b);

  const foreign = await transcribe(new Blob([Buffer.from('not audio at all')], { type: 'audio/mpeg' }), {
    model: 'whisper-1',
    response_format: 'verbose_json',
  });
  expect(foreign.status).toBe(200);
  const placeholder = (await foreign.json()) as { text: string };
  expect(placeholder.text).toMatch(/not produced by the development media server/);
});

test('bad requests get an OpenAI-style JSON error', async () => {
  const { file } = await recordingFile('room-stt-6', 'Errors', 2);
  const noModel = await transcribe(file, {});
  expect(noModel.status).toBe(400);
  expect(await noModel.json()).toEqual({ error: expect.objectContaining({ message: expect.stringContaining('model') }) });

  const badFormat = await transcribe(file, { model: 'whisper-1', response_format: 'mp3' });
  expect(badFormat.status).toBe(400);

  const notMultipart = await fetch(`${media.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"whisper-1"}',
  });
  expect(notMultipart.status).toBe(400);
  expect(((await notMultipart.json()) as any).error.message).toMatch(/multipart/);
});

test('an upload over the size limit is refused with 413', async () => {
  const small = await startDevMediaServer({ webhookSecret: 'x', maxUploadBytes: 1024 });
  try {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([Buffer.alloc(4096)]), 'big.wav');
    const response = await fetch(`${small.url}/v1/audio/transcriptions`, { method: 'POST', body: form });
    expect(response.status).toBe(413);
  } finally {
    await small.stop();
  }
});

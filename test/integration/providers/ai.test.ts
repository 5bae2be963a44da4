// The `openai-compatible` analyser against the development media server's /v1/chat/completions (real HTTP on
// loopback), and its failures: a refused key, an unusable answer, a missing key for a vendor's own service.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProvidersConfig } from '../../../src/config.ts';
import { OpenAiCompatibleAnalyzer } from '../../../src/providers/ai-openai-compatible.ts';
import { analyzeTranscript } from '../../../src/providers/ai-builtin.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';
import { scriptedTranscript } from '../../../dev/media-server/script.ts';
import { asOwnerTask } from '../../helpers/scripted-items.ts';

let media: DevMediaServer;
beforeAll(async () => {
  media = await startDevMediaServer({ webhookSecret: 'ai-test', apiKey: 'dev-ai-key-0001' });
});
afterAll(() => media.stop());

const settings = (baseUrl: string, overrides: Partial<ProvidersConfig['ai']> = {}): ProvidersConfig['ai'] => ({
  defaultProvider: 'openai-compatible',
  baseUrl,
  apiKey: 'dev-ai-key-0001',
  model: 'openai/gpt-4o-mini',
  timeoutMs: 10_000,
  timeoutPer1kTokensMs: 1000,
  contextTokens: 128_000,
  ...overrides,
});

const meeting = scriptedTranscript({ recordingId: 'ai-test-recording', meetingName: 'Roadmap', durationSeconds: 120 });
const request = {
  text: meeting.text,
  segments: meeting.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: s.speaker })),
  language: 'en',
};

test('summary and action items of the transcript, through chat completions with a JSON answer', async () => {
  const insights = await new OpenAiCompatibleAnalyzer(settings(`${media.url}/v1`)).analyze(request);
  // The builtin analyser behind the stand-in writes "Owner: task" (docs/decisions.md §9).
  expect(insights.actionItems).toEqual(meeting.actionItems.map(asOwnerTask));
  expect(insights.summary.length).toBeGreaterThan(20);
  expect(meeting.text).toContain(insights.summary.split('. ')[0]);
});

test('the tenant key replaces the operator key; a refused key is final and names the provider', async () => {
  const analyzer = new OpenAiCompatibleAnalyzer(settings(`${media.url}/v1`, { apiKey: 'operator-bad-key' }));
  const failure = await analyzer.analyze(request).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(ProviderError);
  expect(failure).toMatchObject({ retryable: false, status: 401 });
  expect((failure as Error).message).toMatch(/^openai-compatible refused the API key \(HTTP 401\)/);
  expect((failure as Error).message).not.toContain('operator-bad-key');

  const insights = await analyzer.analyze({ ...request, apiKey: 'dev-ai-key-0001', model: 'acme/small-1' });
  expect(insights.actionItems).toHaveLength(2);
});

describe('against a server that answers badly', () => {
  let server: Server;
  let answer: { status: number; body: string };
  let lastBody: Record<string, unknown> | undefined;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        lastBody = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const chat = (content: string) =>
    JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] });
  const analyze = (overrides: Partial<ProvidersConfig['ai']> = {}) =>
    new OpenAiCompatibleAnalyzer(settings(baseUrl, { apiKey: undefined, ...overrides })).analyze(request).catch((e: unknown) => e);

  test('it asks for JSON by schema with the tenant model, as given', async () => {
    answer = { status: 200, body: chat('{"summary": "S.", "action_items": [{"task": "update the project plan", "owner": "Bob", "due": null}]}') };
    // The model's item first; the commitment it missed, found by the builtin rules in the same transcript, after it.
    const rules = analyzeTranscript(request).actionItems.filter((item) => !/project plan/.test(item));
    expect(rules).toHaveLength(1);
    expect(await analyze({ model: 'acme/large-2' })).toEqual({ summary: 'S.', actionItems: ['Bob: update the project plan', ...rules] });
    expect(lastBody).toMatchObject({
      model: 'acme/large-2',
      response_format: { type: 'json_schema', json_schema: { schema: { required: ['action_items', 'summary'] } } },
      temperature: 0,
    });
    expect((lastBody!.messages as Array<{ content: string }>)[1].content).toContain(`${meeting.speakers[0]}: `);
  });

  test('a message that is not the JSON asked for is a final failure with a clear reason', async () => {
    answer = { status: 200, body: chat('Here is your summary: the meeting went well.') };
    expect(await analyze()).toMatchObject({
      retryable: false,
      message: 'openai-compatible gave an unusable answer: the message is not JSON: Here is your summary: the meeting went well.',
    });
    answer = { status: 200, body: chat('{"summary": 3, "action_items": []}') };
    expect(await analyze()).toMatchObject({ retryable: false, message: 'openai-compatible gave an unusable answer: "summary" is not a string' });
    answer = { status: 200, body: '<html>' };
    expect(await analyze()).toMatchObject({ retryable: false, message: 'openai-compatible answered with invalid JSON: <html>' });
  });

  test('429 and 5xx are retryable; FastAPI and plain-text error bodies give their reason', async () => {
    answer = { status: 429, body: '{"detail": "Rate limit reached"}' };
    expect(await analyze()).toMatchObject({ retryable: true, status: 429, message: 'openai-compatible answered HTTP 429: Rate limit reached' });
    answer = { status: 503, body: `Service Unavailable ${'x'.repeat(400)}` };
    const failure = (await analyze()) as ProviderError;
    expect(failure).toMatchObject({ retryable: true, status: 503 });
    expect(failure.message).toBe(`openai-compatible answered HTTP 503: Service Unavailable ${'x'.repeat(180)}`);
  });
});

test("a vendor's own service without any key fails at once, without a request", async () => {
  const analyzer = new OpenAiCompatibleAnalyzer(settings('https://api.openai.com/v1', { apiKey: undefined }));
  expect(await analyzer.analyze(request).catch((e: unknown) => e)).toMatchObject({
    retryable: false,
    message: "openai-compatible: no API key (set AI_API_KEY, or the tenant's own key)",
  });
});

test("the development media server's /v1/chat/completions answers in OpenAI's format, and refuses a bad request", async () => {
  const post = (body: unknown) =>
    fetch(`${media.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer dev-ai-key-0001' },
      body: JSON.stringify(body),
    });
  const response = await post({
    model: 'dev/extractor',
    messages: [
      { role: 'system', content: 'Summarise.' },
      { role: 'user', content: [{ type: 'text', text: 'Transcript:\nAlice: Bob will send the slides by Friday.\nCarol: I will book the room.' }] },
    ],
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as Record<string, unknown> & { choices: Array<{ message: { role: string; content: string } }> };
  expect(body).toMatchObject({ object: 'chat.completion', model: 'dev/extractor', choices: [{ index: 0, finish_reason: 'stop' }] });
  expect(body.choices[0].message.role).toBe('assistant');
  expect(JSON.parse(body.choices[0].message.content)).toEqual({
    summary: 'Bob will send the slides by Friday.',
    action_items: ['Bob: send the slides by Friday', 'Carol: book the room'],
  });

  const bad = await post({ model: 'dev/extractor' });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ error: { code: 'invalid_messages' } });
});

test('a key the vendor echoes in its error never reaches the stored reason', async () => {
  const echo = createServer((req, res) => {
    const key = (req.headers.authorization ?? '').replace('Bearer ', '');
    req.resume();
    req.on('end', () => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.` } })));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  try {
    const baseUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
    const failure = await new OpenAiCompatibleAnalyzer(settings(baseUrl, { apiKey: 'sk-secret-tenant-0001' }))
      .analyze(request)
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({
      retryable: false,
      message: 'openai-compatible refused the API key (HTTP 401): Incorrect API key provided: ***.',
    });
  } finally {
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  }
});

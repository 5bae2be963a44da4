// The `openai-compatible` analyser against a stand-in for a self-hosted LLM server (test/helpers/llm-server.ts, real
// HTTP on loopback), docs/decisions.md §9 "Self-hosted LLMs": JSON in a fence with prose around it, `response_format`
// refused, an 8k-token context window enforced with llama.cpp's 400, slow prompt reading.
import type { ProvidersConfig } from '../../../src/config.ts';
import { OpenAiCompatibleAnalyzer } from '../../../src/providers/ai-openai-compatible.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { countTokens, startLlmServer, type LlmServer } from '../../helpers/llm-server.ts';
import { oneHourMeeting } from '../../helpers/long-meeting.ts';

const settings = (server: LlmServer, overrides: Partial<ProvidersConfig['ai']> = {}): ProvidersConfig['ai'] => ({
  defaultProvider: 'openai-compatible',
  baseUrl: `${server.url}/v1`,
  apiKey: undefined,
  model: 'local/qwen2.5-1.5b-instruct',
  timeoutMs: 10_000,
  timeoutPer1kTokensMs: 1000,
  contextTokens: 8192,
  ...overrides,
});

const servers: LlmServer[] = [];
async function server(options: Parameters<typeof startLlmServer>[0]) {
  const started = await startLlmServer(options);
  servers.push(started);
  return started;
}
afterAll(() => Promise.all(servers.map((s) => s.stop())));

const meeting = oneHourMeeting();
const request = { text: meeting.text, segments: meeting.segments, language: 'en' };
const sorted = (items: string[]) => [...items].sort();
/** How an item without owner is written (docs/decisions.md §9): the task with a capital. */
const asWritten = (item: string) => (/^[^:]+: /.test(item) ? item : item.charAt(0).toUpperCase() + item.slice(1));
const commitments = meeting.commitments.map(asWritten);

test('the generated meeting is an hour of speech that does not fit an 8k-token context in one prompt', () => {
  expect(meeting.words).toBeGreaterThanOrEqual(9000);
  expect(meeting.words).toBeLessThanOrEqual(10_000);
  expect(meeting.segments.at(-1)!.end).toBe(3600);
  expect(meeting.commitments).toHaveLength(12);
  const whole = meeting.segments.map((s) => `${s.speaker}: ${s.text}`).join('\n');
  expect(countTokens([{ content: whole }])).toBeGreaterThan(8192);
});

test('a one-hour meeting summarises through an 8k-token server that fences its JSON and refuses response_format', async () => {
  const llm = await server({ contextTokens: 8192, refuseResponseFormat: true });
  const insights = await new OpenAiCompatibleAnalyzer(settings(llm)).analyze(request);

  // Every commitment once: the recap's repeats are merged, "No new tasks this week." and "N/A" are dropped, and a
  // speaker label written as an owner is left out (the meeting never names that person).
  expect(sorted(insights.actionItems)).toEqual(sorted(commitments));
  expect(insights.actionItems.join('\n')).not.toMatch(/speaker_\d|no new tasks|N\/A/i);

  const analyses = llm.requests.filter((r) => r.kind === 'analysis' && r.status === 200);
  expect(analyses.length).toBeGreaterThanOrEqual(2);
  // The parts cover the meeting in order, each within the context window, none refused as too long.
  expect(llm.requests.filter((r) => r.status === 400 && r.responseFormat === undefined)).toEqual([]);
  expect(analyses.every((r) => r.promptTokens < 8192 - 1024)).toBe(true);
  expect(analyses[0].user).toContain('Part 1 of a longer meeting');
  expect(analyses.at(-1)!.user).toContain('Thanks everyone, see you next month.');
  const sent = analyses.map((r) => r.user.slice(r.user.indexOf('Transcript:\n') + 'Transcript:\n'.length)).join('\n');
  expect(sent).toBe(meeting.segments.map((s) => `${s.speaker}: ${s.text}`).join('\n'));

  // One short summary made by the model from the parts' summaries.
  const merge = llm.requests.filter((r) => r.kind === 'merge');
  expect(merge).toHaveLength(1);
  expect(insights.summary).toMatch(/^Across the meeting: Good morning everyone, thanks for joining the monthly operations review\. \/ /);
  expect(insights.summary.split(' / ')).toHaveLength(analyses.length);

  // response_format was asked for by schema, then as a JSON object, both refused, and never sent to this server again.
  expect(llm.requests[0]).toMatchObject({ status: 400, responseFormat: { type: 'json_schema' } });
  expect(llm.requests[1]).toMatchObject({ status: 400, responseFormat: { type: 'json_object' } });
  expect(llm.requests.slice(2).every((r) => r.responseFormat === undefined)).toBe(true);
});

test('a server whose context is smaller than AI_CONTEXT_TOKENS says so (llama.cpp 400); the parts are cut smaller', async () => {
  const llm = await server({ contextTokens: 4096 });
  const insights = await new OpenAiCompatibleAnalyzer(settings(llm, { contextTokens: 16_384 })).analyze(request);

  expect(sorted(insights.actionItems)).toEqual(sorted(commitments));
  const refused = llm.requests.filter((r) => r.status === 400);
  expect(refused.length).toBeGreaterThanOrEqual(1);
  // Its numbers size the next parts at once: one refusal is enough.
  expect(refused).toHaveLength(1);
  expect(llm.requests.filter((r) => r.status === 200).every((r) => r.promptTokens < 4096)).toBe(true);
  // The server honours response_format: the JSON schema is sent every time.
  expect(llm.requests.every((r) => (r.responseFormat as { type?: string })?.type === 'json_schema')).toBe(true);
});

test('a context too small for any useful part fails at once, naming the setting', async () => {
  const llm = await server({ contextTokens: 300 });
  const failure = await new OpenAiCompatibleAnalyzer(settings(llm, { contextTokens: 2048 })).analyze(request).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(ProviderError);
  expect(failure).toMatchObject({ retryable: false });
  expect((failure as Error).message).toMatch(/context window is too small.*AI_CONTEXT_TOKENS/);
});

test('the time limit grows with the prompt: a slow reader answers within base + per-1k allowance, not within the base', async () => {
  // About 6k tokens of prompt read at 3,000 tokens/s: ~2 s, over a 500 ms base.
  const llm = await server({ readTokensPerSecond: 3000, fence: false });
  const short = { ...request, segments: meeting.segments.slice(0, 90) };
  const scaled = await new OpenAiCompatibleAnalyzer(settings(llm, { timeoutMs: 500, timeoutPer1kTokensMs: 1500 })).analyze(short);
  expect(scaled.summary).toBe('Good morning everyone, thanks for joining the monthly operations review.');

  const fixed = await new OpenAiCompatibleAnalyzer(settings(llm, { timeoutMs: 500, timeoutPer1kTokensMs: 0 })).analyze(short).catch((e: unknown) => e);
  expect(fixed).toMatchObject({ name: 'ProviderError', retryable: true, message: 'openai-compatible: no answer within 500 ms' });
});

// The `openai-compatible` AI analyser (DECISIONS §9): `POST {base}/chat/completions` asking for a JSON object
// `{summary, action_items}` (`response_format: {type: "json_object"}`). The model is the tenant's `<vendor>/<model>`
// when given, else the operator's (AI_MODEL); the tenant's key replaces the operator's. Any server speaking OpenAI's
// chat completions works (OpenAI, OpenRouter, LiteLLM, vLLM, the development media server).

import type { ProvidersConfig } from '../config.ts';
import { authKey, failureOf, needsKey, parseJson, send } from './http.ts';
import { ProviderError, type AiAnalyzer, type AnalysisRequest, type MeetingInsights } from './types.ts';

/** Transcript text sent at most (about 50k tokens); a longer meeting is cut, keeping its start. */
const MAX_TRANSCRIPT_CHARS = 200_000;
const MAX_ACTION_ITEMS = 50;
const MAX_TEXT = 10_000;

export const SYSTEM_PROMPT =
  'You summarise meeting transcripts. Answer with one JSON object and nothing else: ' +
  '{"summary": "<a few sentences on what the meeting decided and discussed>", ' +
  '"action_items": ["<one sentence per task: who does what, by when if said>"]}. ' +
  'Use the language of the transcript. Use an empty list when nobody took on a task.';

export class OpenAiCompatibleAnalyzer implements AiAnalyzer {
  readonly id = 'openai-compatible';
  readonly #config: ProvidersConfig['ai'];

  constructor(config: ProvidersConfig['ai']) {
    this.#config = config;
  }

  async analyze(request: AnalysisRequest): Promise<MeetingInsights> {
    const key = authKey(request.apiKey, this.#config.apiKey);
    if (!key && needsKey(this.#config.baseUrl)) {
      throw new ProviderError(`${this.id}: no API key (set AI_API_KEY, or the tenant's own key)`, { retryable: false });
    }
    const body = Buffer.from(
      JSON.stringify({
        model: this.#modelFor(request.model ?? this.#config.model),
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: transcriptForPrompt(request) },
        ],
      }),
      'utf8',
    );
    const answer = await send({
      provider: this.id,
      url: `${this.#config.baseUrl}/chat/completions`,
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        accept: 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body,
      timeoutMs: this.#config.timeoutMs,
      signal: request.signal,
    });
    if (answer.status < 200 || answer.status >= 300) throw failureOf(this.id, answer, key);
    return insightsOf(this.id, parseJson(this.id, answer.body));
  }

  /**
   * `<vendor>/<model>` is what routers (OpenRouter, LiteLLM) expect; a vendor's own service knows only its model
   * names, so `openai/gpt-4o-mini` goes to api.openai.com as `gpt-4o-mini`.
   */
  #modelFor(model: string): string {
    const [vendor, ...rest] = model.split('/');
    const host = new URL(this.#config.baseUrl).hostname;
    return rest.length > 0 && (host === `${vendor}.com` || host.endsWith(`.${vendor}.com`)) ? rest.join('/') : model;
  }
}

function transcriptForPrompt(request: AnalysisRequest): string {
  const lines =
    request.segments.length > 0
      ? request.segments.map((segment) => (segment.speaker ? `${segment.speaker}: ${segment.text}` : segment.text)).join('\n')
      : request.text;
  const language = request.language ? `Language: ${request.language}\n` : '';
  return `${language}Transcript:\n${lines.slice(0, MAX_TRANSCRIPT_CHARS)}`;
}

/** Reads `choices[0].message.content` as `{summary, action_items}`; anything else is a final failure. */
export function insightsOf(provider: string, parsed: unknown): MeetingInsights {
  const malformed = (why: string) =>
    new ProviderError(`${provider} gave an unusable answer: ${why}`, { retryable: false });
  const content = (parsed as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw malformed('no choices[0].message.content');
  let json: unknown;
  try {
    // Some models wrap JSON in a Markdown fence despite json_object.
    json = JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
  } catch {
    throw malformed(`the message is not JSON: ${content.slice(0, 200)}`);
  }
  const { summary, action_items: items } = (json ?? {}) as { summary?: unknown; action_items?: unknown };
  if (typeof summary !== 'string') throw malformed('"summary" is not a string');
  if (!Array.isArray(items)) throw malformed('"action_items" is not a list');
  const actionItems = items.map((item) => {
    // Models sometimes answer objects ({task, owner, due}); keep their text.
    if (typeof item === 'string') return item.trim();
    if (item && typeof item === 'object') {
      const value = item as Record<string, unknown>;
      const text = value.text ?? value.task ?? value.description ?? value.item;
      if (typeof text === 'string') {
        return typeof value.owner === 'string' && !text.includes(value.owner) ? `${value.owner}: ${text.trim()}` : text.trim();
      }
    }
    throw malformed('an action item is neither text nor an object with text');
  });
  return {
    summary: summary.trim().slice(0, MAX_TEXT),
    actionItems: actionItems.filter(Boolean).slice(0, MAX_ACTION_ITEMS).map((item) => item.slice(0, MAX_TEXT)),
  };
}

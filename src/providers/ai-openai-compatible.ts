// The `openai-compatible` AI analyser (docs/decisions.md §9): `POST {base}/chat/completions` asking for a JSON object
// `{action_items, summary}` by schema where the server takes one. The model proposes, the rules check: its items pass
// the builtin analyser's checks (action-item-check.ts) against the part of the transcript they came from. The model is the tenant's `<vendor>/<model>` when given, else the operator's (AI_MODEL);
// the tenant's key replaces the operator's. Any server speaking OpenAI's chat completions works: OpenAI, routers
// (OpenRouter, LiteLLM), vLLM, and self-hosted servers such as llama.cpp's, which differ (docs/decisions.md §9 "Self-hosted
// LLMs"): some refuse `response_format` (asked again with a weaker one, then without it, remembered per base URL), they wrap JSON in fences or
// prose (llm-answer.ts reads it), their context window may be 8k tokens (a transcript that does not fit is cut into
// parts, each analysed alone, then merged; a llama.cpp `exceed_context_size_error` cuts smaller), and they read
// prompts slowly (the time limit grows with the prompt).

import type { ProvidersConfig } from '../config.ts';
import { authKey, failureOf, needsKey, parseJson, send, type ProviderResponse } from './provider-http.ts';
import { checkProposedItems, mergeItems, withRuleItems } from './action-item-check.ts';
import { analyzeTranscript } from './ai-builtin.ts';
import { insightsFrom, MAX_ACTION_ITEMS, messageContent, summaryFrom, summarySentences } from './llm-answer.ts';
import { estimateTokens, takePart } from './transcript-parts.ts';
import { ProviderError, type AiAnalyzer, type AnalysisRequest, type MeetingInsights } from './types.ts';

export const SYSTEM_PROMPT =
  'You read the transcript of a meeting and answer with one JSON object and nothing else:\n' +
  '{"action_items": [{"owner": "<name or null>", "task": "<what is to be done>", "due": "<deadline or null>"}], ' +
  '"summary": "<1 to 3 sentences: the topics discussed and what was decided>"}\n' +
  'An action item is a task someone took on in the meeting: a promise ("I will send it"), an assignment ("Dana, ' +
  'please look into it", "let\'s have Omar check the invoices", "Jun owns the migration"), or a request the person ' +
  'asked accepted ("Ravi, can you book the room?" answered "Sure"). Questions, ideas, wishes ("maybe one day"), ' +
  'things already done, what might happen and what people outside the meeting will do are not action items, and ' +
  'neither are answers such as "Sure, will do." on their own. List each task once. The owner is the name the meeting ' +
  'gives the person who will do it (the one addressed, or the one who promised when the meeting says who that is), ' +
  'else null. Write the task with words from the transcript, starting with a verb, in the third person (their, ' +
  'not your), without the owner\'s name. Each line starts with the speech recogniser\'s label of the speaker (such ' +
  'as speaker_0 or A): that label is not a name, never use it as an owner. When nobody took on a task, ' +
  'action_items is []. Use the language of the transcript.';

/**
 * The answer's shape, sent as `response_format` where the server takes a JSON schema (llama.cpp's server, OpenAI).
 * The items come first: llama.cpp's grammar writes the properties in the schema's order (measured) and OpenAI documents
 * that it does, and a small model's summary can run on, repeating itself until the answer's room is spent (measured: 4
 * of 59 answers of the 1.5 B model on the spoken corpus, 3 of them before any item was written). Items written first
 * are whole whatever the summary does; an answer in the other order is read as well (llm-answer.ts).
 * `maxItems` (maxItemsFor) ends an item list that runs on, so the summary still gets written.
 */
export function answerSchema(maxItems: number) {
  return {
    type: 'object',
    properties: {
      action_items: {
        type: 'array',
        maxItems,
        items: {
          type: 'object',
          properties: {
            owner: { type: ['string', 'null'] },
            task: { type: 'string' },
            due: { type: ['string', 'null'] },
          },
          required: ['owner', 'task', 'due'],
          additionalProperties: false,
        },
      },
      summary: { type: 'string' },
    },
    required: ['action_items', 'summary'],
    additionalProperties: false,
  } as const;
}

/** However short the part, an answer may hold this many items. */
const MIN_ITEMS_PER_PART = 12;
/** Beyond that, one item for this many tokens of transcript: a dense stand-up, every turn a task of ~45 words. */
const TOKENS_PER_ITEM = 60;

/**
 * The most items an answer for a part of `partTokens` tokens of transcript may hold. A small model's list can run on,
 * repeating one task through the room's names until the answer's room is spent. Measured with the 1.5 B model: 5 of
 * 59 answers did, 4 of them for short meetings (26 to 33 items from a few hundred tokens of transcript) and one for a
 * part of the 45-minute meeting (32 items from about 4,900 tokens), each a minute and more of a CPU server with no
 * summary after it; no answer that stopped on its own held more than 12 items. The bound is far above what people
 * commit to in that much talk (the spoken corpus: at most 4 items a meeting, 2.7 per 100 tokens), so it ends only
 * lists that repeat themselves. A long part's bound is high (50 for 3,000 tokens and more): its list is not cut early.
 */
export function maxItemsFor(partTokens: number): number {
  return Math.min(MAX_ACTION_ITEMS, Math.max(MIN_ITEMS_PER_PART, Math.ceil(partTokens / TOKENS_PER_ITEM)));
}

const MERGE_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
} as const;

export const MERGE_PROMPT =
  'You combine the summaries of consecutive parts of one meeting into one summary of the whole meeting. Answer with ' +
  'one JSON object and nothing else: {"summary": "<1 to 3 sentences: the topics discussed and what was decided>"}. ' +
  'Use the language of the summaries.';

/** Tokens kept free in the context window for the model's answer (a summary and up to 50 items). */
const ANSWER_TOKENS = 1024;
/** A chat template's tokens around each message (role markers, separators), generously. */
const MESSAGE_OVERHEAD_TOKENS = 16;
/** Below this many tokens of transcript per part, cutting smaller will not help: the server's context is too small. */
const MIN_PART_TOKENS = 256;
/** A meeting needing more parts than this (about 7 hours of speech at 8k tokens) is analysed up to there. */
const MAX_PARTS = 24;
/** A server that answers "too long" is asked with parts this much smaller when it does not say by how much. */
const SHRINK_WITHOUT_NUMBERS = 0.5;

/**
 * How each base URL takes `response_format`, for the life of the process (docs/decisions.md §9): a JSON schema first;
 * a server that refuses it (a 400/422 about `response_format`) is asked for a JSON object, and one that refuses that
 * too is asked without the field.
 */
type AnswerFormat = 'json_schema' | 'json_object' | 'none';
const answerFormats = new Map<string, AnswerFormat>();
const WEAKER: Record<AnswerFormat, AnswerFormat | undefined> = { json_schema: 'json_object', json_object: 'none', none: undefined };
/** Base URLs that refuse `max_tokens` (OpenAI's reasoning models want `max_completion_tokens`): not sent again. */
const withoutMaxTokens = new Set<string>();

interface Call {
  key: string | undefined;
  model: string;
  signal?: AbortSignal;
}

/** A prompt over the server's context window; llama.cpp says by how much (`n_prompt_tokens`, `n_ctx`). */
class ContextExceeded extends Error {
  readonly promptTokens: number | undefined;
  readonly contextTokens: number | undefined;
  constructor(message: string, numbers: { promptTokens?: number; contextTokens?: number }) {
    super(message);
    this.promptTokens = numbers.promptTokens;
    this.contextTokens = numbers.contextTokens;
  }
}

export class OpenAiCompatibleAnalyzer implements AiAnalyzer {
  readonly id = 'openai-compatible';
  // `#`, not `private`: it holds the operator's API key, kept out of every log line, inspection and JSON of this
  // object (docs/architecture.md habit 17).
  readonly #config: ProvidersConfig['ai'];

  constructor(config: ProvidersConfig['ai']) {
    this.#config = config;
  }

  async analyze(request: AnalysisRequest): Promise<MeetingInsights> {
    const key = authKey(request.apiKey, this.#config.apiKey);
    if (!key && needsKey(this.#config.baseUrl)) {
      throw new ProviderError(`${this.id}: no API key (set AI_API_KEY, or the tenant's own key)`, { retryable: false });
    }
    const call: Call = { key, model: this.modelFor(request.model ?? this.#config.model), signal: request.signal };
    const results = await this.analyseInParts(transcriptLines(request), request.language, call, request.participants);
    // The model proposes, the rules check: each part's items were checked against that part; repeats across parts
    // (and within one) are one item; then the rules' own items (milliseconds, no model) give owners and fill gaps.
    const modelItems = mergeItems(results.flatMap((r) => r.actionItems), MAX_ACTION_ITEMS);
    const rules = analyzeTranscript(request);
    const actionItems = withRuleItems(modelItems, rules.actionItems, MAX_ACTION_ITEMS);
    // An answer cut short in its items has no summary: the rules' summary stands in for a part-less answer.
    const summaries = results.map((r) => r.summary).filter(Boolean);
    if (summaries.length === 0) return { summary: rules.summary, actionItems };
    if (summaries.length === 1) return { summary: summaries[0], actionItems };
    return { summary: await this.mergedSummary(summaries, call), actionItems };
  }

  /**
   * The transcript in as few parts as fit the context window (one when it fits), each analysed alone, in order. A
   * server that refuses a part as too long makes every part from there on smaller, by the server's own numbers when
   * it gives them.
   */
  private async analyseInParts(lines: string[], language: string | null, call: Call, participants?: readonly string[]): Promise<MeetingInsights[]> {
    const header = (part?: number) => promptHeader(language, part, participants);
    const fixed = estimateTokens(SYSTEM_PROMPT) + 2 * MESSAGE_OVERHEAD_TOKENS + estimateTokens(header(2));
    let budget = this.#config.contextTokens - ANSWER_TOKENS - fixed;
    const results: MeetingInsights[] = [];
    let rest = lines;
    do {
      if (budget < MIN_PART_TOKENS) {
        throw new ProviderError(
          `${this.id}: the server's context window is too small for a transcript (AI_CONTEXT_TOKENS is ${this.#config.contextTokens})`,
          { retryable: false },
        );
      }
      const { part, rest: after } = takePart(rest, budget);
      const whole = results.length === 0 && after.length === 0;
      const user = `${header(whole ? undefined : results.length + 1)}${part.join('\n')}`;
      try {
        const schema = answerSchema(maxItemsFor(estimateTokens(part.join('\n'))));
        const insights = insightsFrom(this.id, await this.complete(SYSTEM_PROMPT, user, call, schema));
        results.push({ summary: insights.summary, actionItems: checkProposedItems(insights.actionItems, part.join('\n')) });
        rest = after;
      } catch (err) {
        if (!(err instanceof ContextExceeded)) throw err;
        budget = smallerBudget({ budget, fixed, prompt: estimateTokens(SYSTEM_PROMPT) + estimateTokens(user) + 2 * MESSAGE_OVERHEAD_TOKENS }, err);
      }
    } while (rest.length > 0 && results.length < MAX_PARTS);
    return results;
  }

  /**
   * One short summary of the parts' summaries, by the model; its own parts' first sentences when the model's answer
   * cannot be read (the action items are already complete, so a weak merge costs only the summary's polish).
   */
  private async mergedSummary(summaries: string[], call: Call): Promise<string> {
    const fallback = summarySentences(summaries.map((s) => /^.*?[.!?](?=\s|$)/s.exec(s)?.[0] ?? s).join(' '));
    const user = `Summaries of the parts, in order:\n${summaries.map((s, i) => `${i + 1}. ${s}`).join('\n')}`;
    try {
      return summaryFrom(await this.complete(MERGE_PROMPT, user, call, MERGE_SCHEMA)) ?? fallback;
    } catch (err) {
      if (err instanceof ContextExceeded || (err instanceof ProviderError && err.message.includes('unusable answer'))) return fallback;
      throw err;
    }
  }

  /**
   * One chat completion: the message's text. `response_format` asks for `schema` where the server takes a JSON schema,
   * else for a JSON object, else is left out (what the server refused is remembered per base URL).
   */
  private async complete(system: string, user: string, call: Call, schema: object): Promise<string> {
    const baseUrl = this.#config.baseUrl;
    const promptTokens = estimateTokens(system) + estimateTokens(user) + 2 * MESSAGE_OVERHEAD_TOKENS;
    let format = answerFormats.get(baseUrl) ?? 'json_schema';
    let answer = await this.post(system, user, call, responseFormat(format, schema), promptTokens);
    if (!withoutMaxTokens.has(baseUrl) && refusesMaxTokens(answer)) {
      withoutMaxTokens.add(baseUrl);
      answer = await this.post(system, user, call, responseFormat(format, schema), promptTokens);
    }
    for (let weaker = WEAKER[format]; weaker && refusesResponseFormat(answer); weaker = WEAKER[format]) {
      format = weaker;
      answerFormats.set(baseUrl, format);
      answer = await this.post(system, user, call, responseFormat(format, schema), promptTokens);
    }
    const exceeded = contextExceeded(answer);
    if (exceeded) throw exceeded;
    if (answer.status < 200 || answer.status >= 300) throw failureOf(this.id, answer, call.key);
    return messageContent(this.id, parseJson(this.id, answer.body));
  }

  private post(system: string, user: string, call: Call, format: object | undefined, promptTokens: number): Promise<ProviderResponse> {
    const body = Buffer.from(
      JSON.stringify({
        model: call.model,
        temperature: 0,
        // The answer may take the room kept for it, no more: a small model can otherwise write until the context is full.
        ...(withoutMaxTokens.has(this.#config.baseUrl) ? {} : { max_tokens: ANSWER_TOKENS }),
        ...(format ? { response_format: format } : {}),
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      }),
      'utf8',
    );
    return send({
      provider: this.id,
      url: `${this.#config.baseUrl}/chat/completions`,
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        accept: 'application/json',
        ...(call.key ? { authorization: `Bearer ${call.key}` } : {}),
      },
      body,
      timeoutMs: requestTimeoutMs(this.#config, promptTokens),
      signal: call.signal,
    });
  }

  /**
   * `<vendor>/<model>` is what routers (OpenRouter, LiteLLM) expect; a vendor's own service knows only its model
   * names, so `openai/gpt-4o-mini` goes to api.openai.com as `gpt-4o-mini`.
   */
  private modelFor(model: string): string {
    const [vendor, ...rest] = model.split('/');
    const host = new URL(this.#config.baseUrl).hostname;
    return rest.length > 0 && (host === `${vendor}.com` || host.endsWith(`.${vendor}.com`)) ? rest.join('/') : model;
  }
}

/**
 * The time limit of one request: AI_TIMEOUT_MS, plus AI_TIMEOUT_PER_1K_TOKENS_MS for every thousand (estimated)
 * prompt tokens, since a server on CPU reads a prompt at tens of tokens a second before it writes a word.
 */
export function requestTimeoutMs(config: Pick<ProvidersConfig['ai'], 'timeoutMs' | 'timeoutPer1kTokensMs'>, promptTokens: number): number {
  return config.timeoutMs + Math.ceil(promptTokens / 1000) * config.timeoutPer1kTokensMs;
}

/** "speaker: text" lines, one per segment (speakers help attribute action items); the plain text when no segments. */
function transcriptLines(request: AnalysisRequest): string[] {
  if (request.segments.length > 0) {
    return request.segments.map((segment) => (segment.speaker ? `${segment.speaker}: ${segment.text}` : segment.text)).filter((l) => l.trim());
  }
  return request.text.split('\n').filter((line) => line.trim());
}

/** What precedes the transcript in the user message; `part` numbers a part of a meeting cut in several. */
function promptHeader(language: string | null, part?: number, participants?: readonly string[]): string {
  const languageLine = language ? `Language: ${language}\n` : '';
  // The room's display names: the recogniser may have spelled them otherwise.
  const peopleLine = participants?.length ? `Participants (names as the room knows them): ${participants.join(', ')}\n` : '';
  const partLine = part === undefined ? '' : `Part ${part} of a longer meeting; earlier and later parts are read separately.\n`;
  return `${languageLine}${peopleLine}${partLine}Transcript:\n`;
}

/**
 * The transcript budget for the next parts after a refusal. With the server's numbers: the prompt it counted against
 * our estimate of it gives its tokens per estimated token, and the next part is sized so that the whole prompt plus
 * room for the answer fits its `n_ctx`. Without them: half. Always smaller than before.
 */
function smallerBudget(sizes: { budget: number; fixed: number; prompt: number }, exceeded: ContextExceeded): number {
  const { promptTokens, contextTokens } = exceeded;
  let next = Math.floor(sizes.budget * SHRINK_WITHOUT_NUMBERS);
  if (promptTokens && contextTokens && sizes.prompt > 0) {
    const realPerEstimated = promptTokens / sizes.prompt;
    next = Math.floor((contextTokens - ANSWER_TOKENS) / realPerEstimated - sizes.fixed);
  }
  return Math.min(next, Math.floor(sizes.budget * 0.9));
}

/** The `response_format` field for a format: OpenAI's `json_schema` form, which llama.cpp's server also reads. */
function responseFormat(format: AnswerFormat, schema: object): object | undefined {
  if (format === 'json_schema') return { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema } };
  return format === 'json_object' ? { type: 'json_object' } : undefined;
}

/** 400/422 that is about `max_tokens`. */
function refusesMaxTokens(answer: ProviderResponse): boolean {
  return (answer.status === 400 || answer.status === 422) && /max_tokens/i.test(answer.body);
}

/** 400/422 that is about `response_format` (the server does not know the field or the `json_object` type). */
function refusesResponseFormat(answer: ProviderResponse): boolean {
  return (answer.status === 400 || answer.status === 422) && /response_format|json_object|json_schema|response format/i.test(answer.body);
}

/**
 * The server's "prompt too long": llama.cpp's 400 `exceed_context_size_error` (with `n_prompt_tokens` and `n_ctx`),
 * and OpenAI's or vLLM's `context_length_exceeded` / "maximum context length" wording.
 */
function contextExceeded(answer: ProviderResponse): ContextExceeded | undefined {
  if (answer.status !== 400 && answer.status !== 413) return undefined;
  if (!/exceed_context_size_error|exceeds the available context size|context_length_exceeded|maximum context length/i.test(answer.body)) {
    return undefined;
  }
  let error: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(answer.body) as { error?: unknown };
    if (parsed.error && typeof parsed.error === 'object') error = parsed.error as Record<string, unknown>;
  } catch {
    // A plain-text body: no numbers.
  }
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  return new ContextExceeded(answer.body.slice(0, 200), { promptTokens: number(error.n_prompt_tokens), contextTokens: number(error.n_ctx) });
}

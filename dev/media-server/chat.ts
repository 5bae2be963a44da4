// OpenAI-compatible `POST /v1/chat/completions` for the development media server (docs/decisions.md §8): whatever the
// model, the answer is the builtin extractor's summary and action items of the transcript in the last user message,
// as JSON in `choices[0].message.content` (what `response_format: {type: "json_object"}` asks for). Deterministic,
// so `npm run dev` and the tests run the `openai-compatible` analyser end to end with no key.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { analyzeTranscript, type SpokenText } from '../../src/providers/ai-builtin.ts';
import { HttpError, readJsonObject, sendJson } from './http.ts';

/** A transcript of several hours fits; more is refused (413). */
const BODY_LIMIT = 4 * 1024 * 1024;
/** "Alice: text" lines, as the openai-compatible analyser writes them. */
const SPEAKER_LINE = /^([^:\n]{1,60}): (.+)$/;

export async function handleChatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJsonObject(req, BODY_LIMIT);
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0) throw new HttpError(400, 'missing_model', "'model' is required");
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new HttpError(400, 'invalid_messages', "'messages' must be a non-empty list");
  }
  const user = [...messages].reverse().find((m) => (m as { role?: unknown })?.role === 'user') as
    | { content?: unknown }
    | undefined;
  const text = contentText(user?.content);
  if (text === undefined) throw new HttpError(400, 'invalid_messages', 'no user message with text content');
  const insights = analyzeTranscript(transcriptOf(text));
  const content = JSON.stringify({ summary: insights.summary, action_items: insights.actionItems });
  const promptTokens = Math.ceil(text.length / 4);
  const completionTokens = Math.ceil(content.length / 4);
  sendJson(res, 200, {
    id: `chatcmpl-${createHash('sha256').update(text).digest('hex').slice(0, 24)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  });
}

/** A message's text: a string, or OpenAI's list of content parts (`{type: "text", text}`). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.flatMap((part) =>
      part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string'
        ? [(part as { text: string }).text]
        : [],
    );
    return parts.length > 0 ? parts.join('\n') : undefined;
  }
  return undefined;
}

/** The transcript in a prompt: a `Transcript:` line and what follows it (else the whole text), one segment a line. */
function transcriptOf(prompt: string): { text: string; segments: SpokenText[] } {
  const marker = /^Transcript:\s*$/m.exec(prompt);
  const body = marker ? prompt.slice(marker.index + marker[0].length) : prompt;
  const segments: SpokenText[] = body
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const match = SPEAKER_LINE.exec(line);
      return { text: match ? match[2] : line, speaker: match ? match[1] : null };
    });
  return { text: segments.map((segment) => segment.text).join(' '), segments };
}

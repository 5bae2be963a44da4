// A local server speaking OpenAI's `POST /v1/chat/completions` the way a self-hosted LLM server does (docs/decisions.md §9
// "Self-hosted LLMs"), the stand-in for llama.cpp's server in tests. Real HTTP. What it can be made to do, each as
// measured on such servers:
//   - refuse `response_format` with a 400 (some servers do not know the field);
//   - refuse a prompt at or over its context size with llama.cpp's 400 body, as its source writes it
//     (tools/server: format_error_response + server_task_result_error::to_json):
//     {"error":{"code":400,"message":"request (N tokens) exceeds the available context size (C tokens), try
//     increasing it","type":"exceed_context_size_error","n_prompt_tokens":N,"n_ctx":C}}
//   - wrap its JSON in a Markdown code fence with prose around it;
//   - read prompts at a given number of tokens per second before answering;
//   - write "No new tasks this week." as an action item, and a recogniser's label (speaker_1) as an owner.
// Its "model" is a few rules, so tests know what a correct analysis of their transcript is: a line "<Name> will <task>."
// is the action item "<Name>: <task>"; a line "speaker_N: I will <task>." is "speaker_N: <task>" (the label written as
// an owner, as small models do); a part's summary is its first sentence; a merge request (the system message starts
// "You combine") answers "Across the meeting: " and the parts' summaries joined by " / ".

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LlmServerOptions {
  /** The context window in tokens (llama.cpp's `-c`); unset: no limit. */
  contextTokens?: number;
  /** Answer 400 to any request with `response_format`. */
  refuseResponseFormat?: boolean;
  /** Wrap the JSON in a fence with prose around it (default true). */
  fence?: boolean;
  /** Prompt reading speed; unset: answer at once. */
  readTokensPerSecond?: number;
  /** Add "No new tasks this week." and "N/A" to every analysis's items (default true). */
  nothingToDoItems?: boolean;
}

export interface LlmRequest {
  status: number;
  responseFormat: unknown;
  system: string;
  user: string;
  /** The prompt's tokens as this server counts them. */
  promptTokens: number;
  kind: 'analysis' | 'merge';
}

export interface LlmServer {
  url: string;
  readonly requests: LlmRequest[];
  stop(): Promise<void>;
}

/**
 * Tokens as this server counts them: about 4 characters of English a token, like real tokenizers, plus a few for
 * each message's chat-template markers.
 */
export function countTokens(messages: Array<{ content: string }>): number {
  return messages.reduce((sum, m) => sum + Math.ceil(m.content.length / 4) + 4, 0);
}

export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  const requests: LlmRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } });
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      response_format?: unknown;
      messages: Array<{ role: string; content: string }>;
    };
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = body.messages.findLast((m) => m.role === 'user')?.content ?? '';
    const promptTokens = countTokens(body.messages);
    const kind = system.startsWith('You combine') ? 'merge' : 'analysis';
    const record = (status: number) => requests.push({ status, responseFormat: body.response_format, system, user, promptTokens, kind });

    if (options.refuseResponseFormat && body.response_format !== undefined) {
      record(400);
      return send(res, 400, { error: { code: 400, message: "Unsupported param: 'response_format' is not supported by this server", type: 'invalid_request_error' } });
    }
    if (options.contextTokens !== undefined && promptTokens >= options.contextTokens) {
      record(400);
      return send(res, 400, {
        error: {
          code: 400,
          message: `request (${promptTokens} tokens) exceeds the available context size (${options.contextTokens} tokens), try increasing it`,
          type: 'exceed_context_size_error',
          n_prompt_tokens: promptTokens,
          n_ctx: options.contextTokens,
        },
      });
    }
    if (options.readTokensPerSecond) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, (promptTokens / options.readTokensPerSecond!) * 1000);
        timers.add(timer);
        res.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (res.destroyed || res.writableEnded) return;
    }
    record(200);
    const answer = kind === 'merge' ? mergeAnswer(user) : analysisAnswer(user, options.nothingToDoItems ?? true);
    const json = JSON.stringify(answer, null, 2);
    const content = options.fence === false ? json : `Sure! Here is the JSON you asked for:\n\`\`\`json\n${json}\n\`\`\`\nLet me know if you need anything else.`;
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'stand-in-1.5b',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: Math.ceil(content.length / 4), total_tokens: promptTokens + Math.ceil(content.length / 4) },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** The transcript lines after the "Transcript:" line of the prompt, without their speaker labels split off. */
function transcriptOf(user: string): Array<{ speaker: string; text: string }> {
  const marker = /^Transcript:\s*$/m.exec(user);
  const body = marker ? user.slice(marker.index + marker[0].length) : user;
  return body
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const match = /^([^:]{1,60}): (.*)$/.exec(line);
      return match ? { speaker: match[1], text: match[2] } : { speaker: '', text: line };
    });
}

function analysisAnswer(user: string, nothingToDoItems: boolean) {
  const lines = transcriptOf(user);
  const items: string[] = [];
  for (const { speaker, text } of lines) {
    for (const match of text.matchAll(/\b([A-Z][a-z]+) will ([^.]+)\./g)) items.push(`${match[1]}: ${match[2]}`);
    for (const match of text.matchAll(/\bI will ([^.]+)\./g)) items.push(`${speaker}: ${match[1]}`);
  }
  if (nothingToDoItems) items.push('No new tasks this week.', 'N/A');
  const first = lines[0]?.text ?? '';
  return { summary: /^.*?[.!?](?=\s|$)/.exec(first)?.[0] ?? first, action_items: items };
}

function mergeAnswer(user: string) {
  const summaries = user
    .split('\n')
    .map((line) => /^\d+\. (.*)$/.exec(line)?.[1])
    .filter((s): s is string => Boolean(s));
  return { summary: `Across the meeting: ${summaries.join(' / ')}` };
}

// The `openai` transcription provider (docs/decisions.md §9): OpenAI's `POST {base}/audio/transcriptions` and the servers
// that copy it (self-hosted Whisper servers, the development media server). The multipart body is written around
// the audio stream, never buffered, and the whole body stays within OPENAI_MAX_UPLOAD_BYTES (OpenAI's limit is on
// the request, 25 MiB: the file part alone must leave room for the fields). Speakers come from `diarized_json`; a
// server that refuses that format (a 400/422 about `response_format`) is asked again with `verbose_json`, and
// remembered so it is not asked twice; any other error is the reason (docs/decisions.md §9 "Limits of real providers").

import { randomBytes } from 'node:crypto';
import type { TranscriptionVendorConfig } from '../config.ts';
import { audioParts, iso639_1, maskProfanity, transcribeParts, type AudioPart } from './audio.ts';
import { authKey, failureOf, framed, limiter, parseJson, send, type Limiter, type ProviderResponse } from './provider-http.ts';
import { PROVIDER_LANGUAGES } from './languages.ts';
import {
  ProviderError,
  type TranscriptionProvider,
  type TranscriptionRequest,
  type TranscriptionResult,
  type TranscriptSegmentOut,
  UNLABELLED_SPEAKER,
} from './types.ts';

type ResponseFormat = 'diarized_json' | 'verbose_json';

/** Base URLs known to refuse `diarized_json`, for the life of the process (docs/decisions.md §9). */
const verboseOnly = new Set<string>();

/** OpenAI reads at most 224 tokens of prompt; keywords beyond that are dropped. */
const MAX_PROMPT_CHARS = 800;

export class OpenAiTranscriptionProvider implements TranscriptionProvider {
  readonly id = 'openai';
  readonly name = 'OpenAI-compatible';
  readonly supportedLanguages = PROVIDER_LANGUAGES.openai;
  // `#`, not `private`: it holds the operator's API key, kept out of every log line, inspection and JSON of this
  // object (docs/architecture.md habit 17).
  readonly #config: TranscriptionVendorConfig;
  private readonly limit: Limiter;

  constructor(config: TranscriptionVendorConfig) {
    this.#config = config;
    this.limit = limiter(config.maxConcurrency);
  }

  async transcribe(request: TranscriptionRequest): Promise<TranscriptionResult> {
    const parts = await audioParts(request, { bodyBytes: this.#config.maxUploadBytes, envelopeBytes: this.envelopeBytes(request) }, this.id);
    const result = await transcribeParts(request, parts, (part, onBytes) =>
      this.limit(() => this.transcribePart(request, part, onBytes)),
    );
    if (request.profanityFilter) {
      // OpenAI has no profanity option: we apply it (docs/decisions.md §9).
      for (const segment of result.segments) segment.text = maskProfanity(segment.text);
    }
    return result;
  }

  private async transcribePart(request: TranscriptionRequest, part: AudioPart, onBytes: (n: number) => void) {
    const baseUrl = this.#config.baseUrl;
    if (!verboseOnly.has(baseUrl)) {
      const answer = await this.post(request, part, 'diarized_json', onBytes);
      if (!refusesFormat(answer)) return this.read(request, answer, 'diarized_json');
    }
    const answer = await this.post(request, part, 'verbose_json', onBytes);
    const result = this.read(request, answer, 'verbose_json');
    verboseOnly.add(baseUrl);
    return result;
  }

  /** The form fields sent with the file. */
  private fields(request: TranscriptionRequest, format: ResponseFormat): Array<[string, string]> {
    const fields: Array<[string, string]> = [
      ['model', this.#config.model],
      ['response_format', format],
    ];
    // OpenAI's diarizing model needs a chunking strategy for audio over 30 s; verbose_json gives segment times.
    if (format === 'diarized_json') fields.push(['chunking_strategy', 'auto']);
    else fields.push(['timestamp_granularities[]', 'segment']);
    if (request.language) fields.push(['language', iso639_1(request.language)]);
    // Keywords steer the model as a prompt; OpenAI's diarizing model takes no prompt, so they cannot reach it.
    const prompt = this.#config.model.includes('diarize') ? undefined : keywordPrompt(request.keywords);
    if (prompt) fields.push(['prompt', prompt]);
    return fields;
  }

  /**
   * The most bytes a request of `request` carries besides the file: its fields, part headers and boundaries, for
   * either format and for the file as it is or as a split WAV part (boundaries are always the same length).
   */
  private envelopeBytes(request: TranscriptionRequest): number {
    let most = 0;
    for (const format of ['diarized_json', 'verbose_json'] as const) {
      for (const contentType of [request.contentType, 'audio/wav']) {
        const body = multipart(this.fields(request, format), { name: 'file', filename: filenameFor(contentType), contentType });
        most = Math.max(most, body.head.length + body.tail.length);
      }
    }
    return most;
  }

  private async post(request: TranscriptionRequest, part: AudioPart, format: ResponseFormat, onBytes: (n: number) => void) {
    const fields = this.fields(request, format);
    const body = multipart(fields, { name: 'file', filename: filenameFor(part.contentType), contentType: part.contentType });
    const audio = await part.open();
    const key = authKey(request.apiKey, this.#config.apiKey);
    return send({
      provider: this.id,
      url: `${this.#config.baseUrl}/audio/transcriptions`,
      headers: {
        'content-type': `multipart/form-data; boundary=${body.boundary}`,
        'content-length': body.head.length + part.sizeBytes + body.tail.length,
        accept: 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: framed(audio, { head: body.head, tail: body.tail, onBytes }),
      timeoutMs: this.#config.timeoutMs,
      signal: request.signal,
    });
  }

  private read(request: TranscriptionRequest, answer: ProviderResponse, format: ResponseFormat): TranscriptionResult {
    if (answer.status < 200 || answer.status >= 300) throw failureOf(this.id, answer, authKey(request.apiKey, this.#config.apiKey));
    const parsed = parseJson(this.id, answer.body);
    const segments = segmentsOf(parsed, format);
    if (!segments) {
      throw new ProviderError(`${this.id} answered without segments or text: ${answer.body.slice(0, 200)}`, { retryable: false });
    }
    return { language: request.language || languageOf(parsed), segments };
  }
}

/**
 * A 400/422 that says the server does not take `diarized_json` (OpenAI's `{error: {param: "response_format"}}`,
 * FastAPI's `{detail: [{loc: ["body", "response_format"]}]}`, or a message naming it). Any other 400/422 (a bad file,
 * a wrong model) is the failure itself: asking again with another format would upload the audio twice for nothing.
 */
function refusesFormat(answer: ProviderResponse): boolean {
  return (answer.status === 400 || answer.status === 422) && /response_format|diarized_json|response format/i.test(answer.body);
}

function segmentsOf(parsed: unknown, format: ResponseFormat): TranscriptSegmentOut[] | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const body = parsed as { segments?: unknown; text?: unknown; duration?: unknown };
  if (Array.isArray(body.segments)) {
    const segments: TranscriptSegmentOut[] = [];
    for (const raw of body.segments as Array<Record<string, unknown>>) {
      if (typeof raw?.start !== 'number' || typeof raw.end !== 'number' || typeof raw.text !== 'string') return undefined;
      const speaker = format === 'diarized_json' && typeof raw.speaker === 'string' && raw.speaker ? raw.speaker : UNLABELLED_SPEAKER;
      segments.push({ start: raw.start, end: raw.end, text: raw.text.trim(), speaker });
    }
    return segments;
  }
  // A server that gives only text (plain `json`): one segment over the whole audio.
  if (typeof body.text === 'string') {
    const end = typeof body.duration === 'number' ? body.duration : 0;
    return body.text.trim() ? [{ start: 0, end, text: body.text.trim(), speaker: UNLABELLED_SPEAKER }] : [];
  }
  return undefined;
}

function languageOf(parsed: unknown): string | null {
  const language = (parsed as { language?: unknown }).language;
  return typeof language === 'string' && language ? language : null;
}

/** Keywords as a prompt: OpenAI-compatible servers have no keyword option, a prompt with the words steers them. */
function keywordPrompt(keywords: string[]): string | undefined {
  if (keywords.length === 0) return undefined;
  let prompt = 'Keywords:';
  for (const word of keywords) {
    const next = `${prompt} ${word},`;
    if (next.length > MAX_PROMPT_CHARS) break;
    prompt = next;
  }
  return prompt.replace(/,$/, '.');
}

function filenameFor(contentType: string): string {
  const extension: Record<string, string> = {
    'audio/wav': 'wav',
    'audio/x-wav': 'wav',
    'audio/wave': 'wav',
    'audio/mpeg': 'mp3',
    'audio/mp4': 'm4a',
    'audio/ogg': 'ogg',
    'audio/webm': 'webm',
    'audio/flac': 'flac',
    'video/mp4': 'mp4',
    'video/webm': 'webm',
  };
  return `audio.${extension[contentType.split(';')[0].trim().toLowerCase()] ?? 'wav'}`;
}

/** The bytes before and after the file in a multipart/form-data body whose file part is streamed in between. */
function multipart(fields: Array<[string, string]>, file: { name: string; filename: string; contentType: string }) {
  const boundary = `----convene${randomBytes(12).toString('hex')}`;
  const quote = (value: string) => value.replace(/["\r\n]/g, '_');
  let head = '';
  for (const [name, value] of fields) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.name)}"; filename="${quote(file.filename)}"\r\n` +
    `Content-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`;
  return { boundary, head: Buffer.from(head, 'utf8'), tail: Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8') };
}

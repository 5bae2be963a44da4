// The `deepgram` transcription provider (docs/decisions.md §9): `POST {base}/v1/listen` with the raw audio as the body
// (streamed), options in the query string, `Authorization: Token <key>`. Field names as Deepgram documents its
// pre-recorded API: `results.utterances[]` (`start`, `end`, `transcript`, `speaker`), else
// `results.channels[0].alternatives[0]` (`paragraphs.paragraphs[].sentences[]`, `words[]`, `transcript`).

import type { TranscriptionVendorConfig } from '../config.ts';
import { audioParts, transcribeParts, type AudioPart } from './audio.ts';
import { authKey, failureOf, limiter, parseJson, send, framed, type Limiter } from './provider-http.ts';
import { PROVIDER_LANGUAGES } from './languages.ts';
import {
  ProviderError,
  type TranscriptionProvider,
  type TranscriptionRequest,
  type TranscriptionResult,
  type TranscriptSegmentOut,
  UNLABELLED_SPEAKER,
} from './types.ts';

/** Deepgram takes up to 100 key terms. */
const MAX_KEYWORDS = 100;

export class DeepgramProvider implements TranscriptionProvider {
  readonly id = 'deepgram';
  readonly name = 'Deepgram';
  readonly supportedLanguages = PROVIDER_LANGUAGES.deepgram;
  // `#`, not `private`: it holds the operator's API key, kept out of every log line, inspection and JSON of this
  // object (docs/architecture.md habit 17).
  readonly #config: TranscriptionVendorConfig;
  private readonly limit: Limiter;

  constructor(config: TranscriptionVendorConfig) {
    this.#config = config;
    this.limit = limiter(config.maxConcurrency);
  }

  async transcribe(request: TranscriptionRequest): Promise<TranscriptionResult> {
    const parts = await audioParts(request, { bodyBytes: this.#config.maxUploadBytes }, this.id);
    return transcribeParts(request, parts, (part, onBytes) => this.limit(() => this.transcribePart(request, part, onBytes)));
  }

  /** The `/v1/listen` URL with the request's options. */
  listenUrl(request: Pick<TranscriptionRequest, 'language' | 'keywords' | 'profanityFilter'>): string {
    const url = new URL(`${this.#config.baseUrl}/v1/listen`);
    const query = url.searchParams;
    query.set('model', this.#config.model);
    query.set('diarize', 'true');
    query.set('punctuate', 'true');
    query.set('utterances', 'true');
    query.set('paragraphs', 'true');
    if (request.language) query.set('language', request.language);
    // Nova-3 takes `keyterm` (phrases); older models take `keywords` (single words).
    const keywordParameter = this.#config.model.startsWith('nova-3') ? 'keyterm' : 'keywords';
    for (const keyword of request.keywords.slice(0, MAX_KEYWORDS)) query.append(keywordParameter, keyword);
    query.set('profanity_filter', String(request.profanityFilter));
    return url.toString();
  }

  private async transcribePart(request: TranscriptionRequest, part: AudioPart, onBytes: (n: number) => void) {
    const audio = await part.open();
    const key = authKey(request.apiKey, this.#config.apiKey);
    const answer = await send({
      provider: this.id,
      url: this.listenUrl(request),
      headers: {
        'content-type': part.contentType,
        'content-length': part.sizeBytes,
        accept: 'application/json',
        ...(key ? { authorization: `Token ${key}` } : {}),
      },
      body: framed(audio, { onBytes }),
      timeoutMs: this.#config.timeoutMs,
      signal: request.signal,
    });
    if (answer.status < 200 || answer.status >= 300) throw failureOf(this.id, answer, key);
    const parsed = parseJson(this.id, answer.body);
    const segments = segmentsOf(parsed);
    if (!segments) {
      throw new ProviderError(`${this.id} answered without results: ${answer.body.slice(0, 200)}`, { retryable: false });
    }
    return { language: request.language || detectedLanguage(parsed), segments };
  }
}

interface DeepgramWord {
  word?: string;
  punctuated_word?: string;
  start?: number;
  end?: number;
  speaker?: number;
}

interface DeepgramResponse {
  results?: {
    utterances?: Array<{ start?: number; end?: number; transcript?: string; speaker?: number }>;
    channels?: Array<{
      detected_language?: string;
      alternatives?: Array<{
        transcript?: string;
        words?: DeepgramWord[];
        paragraphs?: {
          paragraphs?: Array<{ speaker?: number; sentences?: Array<{ text?: string; start?: number; end?: number }> }>;
        };
      }>;
    }>;
  };
}

// Deepgram numbers speakers from 0; without numbers (no diarization) every segment is UNLABELLED_SPEAKER.
const speakerLabel = (speaker: unknown) => (typeof speaker === 'number' ? `speaker_${speaker}` : UNLABELLED_SPEAKER);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function segmentsOf(parsed: unknown): TranscriptSegmentOut[] | undefined {
  const results = (parsed as DeepgramResponse | null)?.results;
  if (typeof results !== 'object' || results === null) return undefined;
  if (Array.isArray(results.utterances) && results.utterances.length > 0) {
    return results.utterances
      .filter((u) => isNumber(u.start) && isNumber(u.end) && typeof u.transcript === 'string')
      .map((u) => ({ start: u.start!, end: u.end!, text: u.transcript!.trim(), speaker: speakerLabel(u.speaker) }));
  }
  if (!Array.isArray(results.channels)) return undefined;
  const alternative = results.channels[0]?.alternatives?.[0];
  if (!alternative) return [];
  const paragraphs = alternative.paragraphs?.paragraphs;
  if (Array.isArray(paragraphs) && paragraphs.length > 0) {
    return paragraphs.flatMap((paragraph) =>
      (paragraph.sentences ?? [])
        .filter((s) => isNumber(s.start) && isNumber(s.end) && typeof s.text === 'string')
        .map((s) => ({ start: s.start!, end: s.end!, text: s.text!.trim(), speaker: speakerLabel(paragraph.speaker) })),
    );
  }
  if (Array.isArray(alternative.words) && alternative.words.length > 0) return fromWords(alternative.words);
  return alternative.transcript?.trim() ? [{ start: 0, end: 0, text: alternative.transcript.trim(), speaker: UNLABELLED_SPEAKER }] : [];
}

/** Words grouped into one segment per run of the same speaker. */
function fromWords(words: DeepgramWord[]): TranscriptSegmentOut[] {
  const segments: TranscriptSegmentOut[] = [];
  for (const word of words) {
    if (!isNumber(word.start) || !isNumber(word.end)) continue;
    const text = word.punctuated_word ?? word.word ?? '';
    const speaker = speakerLabel(word.speaker);
    const last = segments.at(-1);
    if (last && last.speaker === speaker) {
      last.text += ` ${text}`;
      last.end = word.end;
    } else {
      segments.push({ start: word.start, end: word.end, text, speaker });
    }
  }
  return segments;
}

function detectedLanguage(parsed: unknown): string | null {
  const language = (parsed as DeepgramResponse).results?.channels?.[0]?.detected_language;
  return typeof language === 'string' && language ? language : null;
}

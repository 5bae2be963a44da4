// The ports of post-meeting processing (docs/decisions.md §9): transcription providers and AI analysers, each an adapter in a
// registry (one file per vendor). Workflows and activities see only these types.
import type { Readable } from 'node:stream';

export interface TranscriptSegmentOut {
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
  text: string;
  /** The provider's label, or a stable `speaker_0`-style label; UNLABELLED_SPEAKER when the provider gives none. */
  speaker: string;
}

/**
 * The speaker of a segment the provider gave no label (docs/decisions.md §9): every segment carries a string speaker, so a
 * transcript without diarization reads as one speaker rather than as missing data.
 */
export const UNLABELLED_SPEAKER = 'speaker_0';

export interface TranscriptionRequest {
  /**
   * Opens the audio as a stream (from S3); may be called again for a retry or for each segment of a split file.
   * `range` is bytes `start`..`end`, end EXCLUSIVE (like ObjectStore.open and Buffer.subarray).
   */
  open(range?: { start: number; end: number }): Promise<Readable>;
  contentType: string;
  sizeBytes: number;
  /** BCP 47 (`en-US`); the adapter maps it to what the vendor expects. */
  language: string;
  keywords: string[];
  profanityFilter: boolean;
  /** The tenant's own key (post_meeting_webhook.transcription.api_key), replacing the operator's. */
  apiKey?: string;
  signal?: AbortSignal;
  /** Called as bytes are sent (for activity heartbeats): bytes done and total. */
  progress?(done: number, total: number): void;
}

export interface TranscriptionResult {
  language: string | null;
  segments: TranscriptSegmentOut[];
}

export interface TranscriptionProvider {
  /** Registry id: `openai`, `deepgram`. */
  readonly id: string;
  readonly name: string;
  readonly supportedLanguages: readonly string[];
  transcribe(request: TranscriptionRequest): Promise<TranscriptionResult>;
}

export interface MeetingInsights {
  summary: string;
  actionItems: string[];
}

export interface AnalysisRequest {
  /** The transcript's text and segments (speakers help attribute action items). */
  text: string;
  segments: TranscriptSegmentOut[];
  language: string | null;
  /**
   * The display names of the room's participants, when known: they help recognise names the recogniser spelled
   * otherwise ("Lewis" for Luis) and, with two people in the room, who speaks (docs/decisions.md §9).
   */
  participants?: string[];
  apiKey?: string;
  /** `<vendor>/<model>` (docs/decisions.md §9); the operator's default when absent. */
  model?: string;
  signal?: AbortSignal;
}

export interface AiAnalyzer {
  /** `builtin` or `openai-compatible`. */
  readonly id: string;
  analyze(request: AnalysisRequest): Promise<MeetingInsights>;
}

/**
 * A provider's failure, classified once so the activity knows what to do: `retryable` (429, 5xx, timeouts, connection
 * errors) is retried by the workflow's bounded policy; otherwise (401/403 bad key, 4xx, unusable answer) it fails at once.
 * `message` is safe to store and show: never a key or a URL with credentials.
 */
export class ProviderError extends Error {
  readonly retryable: boolean;
  readonly status: number | undefined;
  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
    this.retryable = options.retryable;
    this.status = options.status;
  }
}

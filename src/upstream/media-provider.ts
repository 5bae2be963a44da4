// The media provider port: what Convene needs from the real-time media provider that records rooms.
// Adapters (the generic `upstream` HTTP adapter, or one per vendor) implement it; services and activities depend
// on this file only. Times are ISO 8601 strings, not Dates, because these values cross Temporal activity
// boundaries as JSON and a Date would silently arrive as a string.

export type UpstreamRecordingStatus = 'recording' | 'processing' | 'ready' | 'failed';

export const UPSTREAM_RECORDING_STATUSES: readonly UpstreamRecordingStatus[] = [
  'recording',
  'processing',
  'ready',
  'failed',
];

export interface UpstreamRecording {
  /** The provider's recording id (stored by Convene as `upstream_recording_id`). */
  id: string;
  /** The provider's meeting id, which is Convene's room id. */
  meetingId: string;
  status: UpstreamRecordingStatus;
  startedAt: string;
  stoppedAt?: string;
  /** Whole seconds; known once the recording is stopped. */
  durationSeconds?: number;
  /** Size of the media file in bytes; known once `ready`. */
  sizeBytes?: number;
  /** MIME type of the media file; known once `ready`. */
  contentType?: string;
  /** A temporary download URL, freshly issued on every read; only when `ready`. */
  url?: string;
  /** When `url` stops working. */
  urlExpiresAt?: string;
}

export interface StartRecordingInput {
  roomId: string;
  roomName?: string;
}

export interface StartedRecording {
  upstreamRecordingId: string;
  startedAt: string;
}

export interface StoppedRecording {
  stoppedAt: string;
  status: UpstreamRecordingStatus;
}

export interface MediaProvider {
  /** The adapter id, also the path segment of the incoming webhook (`/webhooks/{name}/recording-ready`). */
  readonly name: string;
  /** Starts recording a room. A room already being recorded at the provider: UpstreamError 409 `already_recording`. */
  startRecording(input: StartRecordingInput): Promise<StartedRecording>;
  /** Stops a recording. Idempotent: stopping a stopped recording returns its original `stoppedAt`. */
  stopRecording(upstreamRecordingId: string): Promise<StoppedRecording>;
  /** Every recording the provider holds for a room, including ones it started on its own (used by Sync). */
  listRecordings(roomId: string): Promise<UpstreamRecording[]>;
  /** One recording, with a fresh download URL when `ready` (used by Recover to re-run ingestion). */
  getRecording(upstreamRecordingId: string): Promise<UpstreamRecording>;
}

/**
 * A failed call to the provider. `status` is the provider's HTTP status, or 502 (unreachable, malformed answer)
 * and 504 (timed out) when it gave none. `code` is the provider's error code when it sent one.
 */
export class UpstreamError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'UpstreamError';
    this.status = status;
    this.code = code;
    if (details) this.details = details;
  }

  /** Worth trying again later: the provider was down, slow, overloaded or rate limiting. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 408 || this.status === 429;
  }
}

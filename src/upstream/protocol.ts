// The wire format of the generic media-provider protocol (docs/media-provider.md): what a provider sends over
// HTTP, in snake_case. The HTTP adapter reads it; the development media server writes it.

import type { UpstreamRecordingStatus } from './media-provider.ts';

export const UPSTREAM_SIGNATURE_HEADER = 'X-Upstream-Signature';

export interface WireRecording {
  id: string;
  meeting_id: string;
  meeting_name: string | null;
  status: UpstreamRecordingStatus;
  /** `api` when started through POST /v1/recordings, `auto` when the provider started it on its own. */
  origin: 'api' | 'auto';
  started_at: string;
  stopped_at: string | null;
  duration_seconds: number | null;
  size_bytes: number | null;
  content_type: string | null;
  url: string | null;
  url_expires_at: string | null;
}

export interface WireRecordingList {
  recordings: WireRecording[];
}

/** Body of the `recording.ready` notification (spec: Events, incoming webhook). */
export interface RecordingReadyNotification {
  type: 'recording.ready';
  recording_id: string;
  meeting_id: string;
  url: string;
  duration_seconds: number;
  size_bytes: number;
  content_type: string;
}

export interface WireError {
  error: { message: string; code?: string; type?: string; details?: Record<string, unknown> };
}

// What the transcription and post-meeting workflows and their activities (src/activities/transcription.ts,
// src/activities/post-meeting.ts) agree on. Plain types and constants only: workflow code imports it at runtime.

/** Error types the transcription and post-meeting activities throw when no retry can help. */
export const TRANSCRIPTION_FAILURE = {
  /** The transcript row is gone (its room, recording or tenant was deleted). */
  transcriptGone: 'TranscriptGone',
  /** The recording's file is not stored (purged, failed) or cannot be read. */
  recordingUnavailable: 'RecordingUnavailable',
  /** The provider refused for good: 401/403 bad key, another 4xx, an unusable answer, an unconfigured provider. */
  providerRejected: 'ProviderRejected',
} as const;

/** What the plan step decided from the tenant's config (DECISIONS §9). */
export interface PostMeetingPlan {
  tenantId: string;
  roomId: string;
  /** Nothing left to do: the row is `completed` already (a repeated run). */
  alreadyCompleted: boolean;
  transcribe: boolean;
  summarise: boolean;
  deliver: boolean;
}

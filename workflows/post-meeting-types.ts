// What the transcription and post-meeting workflows and their activities (src/activities/transcription.ts,
// src/activities/post-meeting.ts) agree on: plain types (the failure types they share are in workflows/failure-types.ts).

/** What the plan step decided from the tenant's config (docs/decisions.md §9). */
export interface PostMeetingPlan {
  tenantId: string;
  roomId: string;
  /** Nothing left to do: the row is `completed` already (a repeated run), or a re-run found another run in progress. */
  alreadyCompleted: boolean;
  /** POST_MEETING_RETRY_WINDOW in seconds: bounds the transcription and AI steps (docs/decisions.md §9). */
  retryWindowSeconds?: number;
  transcribe: boolean;
  summarise: boolean;
  deliver: boolean;
  /**
   * Asked for with `withTranscript` (runs since the inline-transcription patch): the post-meeting transcript, created
   * by the plan step when `transcribe`; null when none can be made (an errors[] entry says why).
   */
  transcript?: PostMeetingTranscript | null;
}

/** The transcript post-meeting makes, once per recording; `completed` when a re-run found it done already. */
export interface PostMeetingTranscript {
  transcriptId: string;
  completed: boolean;
  /** Its provider's id: the provider call runs on that provider's task queue (workflows/shared.ts). */
  provider?: string;
}

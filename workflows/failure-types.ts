// Every failure type a workflow or an activity names, defined once (docs/architecture.md habit 16, "Where a new rule
// goes"). The activities (src/activities/) throw non-retryable ApplicationFailures of these types; the workflows list
// them as non-retryable and read them back (workflows/failures.ts); a run that fails ends with one of the run types.
// Plain constants, no import: workflow code and activities import this file alike, and neither imports the other's
// code for a name. The strings are recorded in workflow histories (a retry policy's non-retryable types, a failure's
// type), so a value never changes: test/workflows/replay.test.ts replays histories that carry them.

/** What the ingestion's activities (src/activities/recordings.ts) throw when no retry can fix it. */
export const INGESTION_FAILURE = {
  /** The recording row is gone (room or tenant deleted). */
  recordingGone: 'RecordingGone',
  /**
   * Retrying cannot help (docs/decisions.md §7): the provider or the link answers 404/410 (or another 4xx but 408/429), the
   * file is not audio/video, or it is over the size limit. The recording fails at once with this reason.
   */
  permanentIngestFailure: 'PermanentIngestFailure',
} as const;

/**
 * What the transcription and post-meeting activities (src/activities/transcription.ts, src/activities/post-meeting.ts)
 * throw when no retry can help; all of them are the provider and analyser calls' non-retryable types.
 */
export const TRANSCRIPTION_FAILURE = {
  /** The transcript row is gone (its room, recording or tenant was deleted). */
  transcriptGone: 'TranscriptGone',
  /** The recording's file is not stored (purged, failed) or cannot be read. */
  recordingUnavailable: 'RecordingUnavailable',
  /** The provider refused for good: 401/403 bad key, another 4xx, an unusable answer, an unconfigured provider. */
  providerRejected: 'ProviderRejected',
  /** Transient failures went on past POST_MEETING_RETRY_WINDOW (docs/decisions.md §9): the step is recorded as failed. */
  retryWindowEnded: 'RetryWindowEnded',
  /**
   * The post-meeting transcript had failed before this run; its stored reason stays. The same string as
   * RUN_FAILURE.transcriptionFailed: a transcription run that failed earlier fails with it again.
   */
  failedEarlier: 'TranscriptionFailed',
} as const;

/** Failures an activity throws for its workflow's policy to retry: named, never among the non-retryable types. */
export const RETRYABLE_FAILURE = {
  /**
   * A provider or analyser call met an outage (5xx, 429, a timeout): retried until the step's window ends, so never
   * among TRANSCRIPTION_FAILURE (whose values are those steps' non-retryable types).
   */
  providerUnavailable: 'ProviderUnavailable',
  /** A delivery attempt prepared past its heartbeat timeout is not sent (src/activities/deliveries.ts). */
  attemptSuperseded: 'AttemptSuperseded',
  /** A tenant's purge waits while the tenant's row still exists (src/activities/tenants.ts). */
  tenantStillExists: 'TenantStillExists',
} as const;

/** What the webhook delivery's activity (src/activities/deliveries.ts) throws when the delivery's row is gone. */
export const DELIVERY_FAILURE = {
  deliveryGone: 'DeliveryGone',
} as const;

/** The type a run itself fails with, so an operator sees it red in the Temporal UI (and a parent sees why). */
export const RUN_FAILURE = {
  /** workflows/recording-ingest.ts: the recording is marked `failed`. */
  ingestionFailed: 'IngestionFailed',
  /** workflows/transcription.ts: the transcript is marked `failed` (or had failed earlier). */
  transcriptionFailed: 'TranscriptionFailed',
} as const;

// What no retry can fix in a transcription or a post-meeting step (docs/decisions.md §9). The stages throw these plain
// errors and know nothing of Temporal; the activities (src/activities/transcription.ts, post-meeting.ts) turn them
// into non-retryable failures of the workflows' types (TRANSCRIPTION_FAILURE, workflows/failure-types.ts).

/** The transcript's row (or the recording it belongs to) is gone: its room, recording or tenant was deleted. */
export class TranscriptGone extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptGone';
  }
}

/** The recording's file is not stored (purged, failed) or cannot be read. */
export class RecordingUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingUnavailable';
  }
}

/** A provider that cannot serve this, for good: not configured, or it refused (401/403, another 4xx). */
export class ProviderRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderRejected';
  }
}

// What no retry can fix in a recording's ingestion (docs/decisions.md §7). The ingestion stages throw these plain errors
// and know nothing of Temporal; the activities (src/activities/recordings.ts) turn them into non-retryable failures of
// the workflow's error types (INGESTION_FAILURE, workflows/failure-types.ts). Any other error is transient: retried
// within INGEST_RETRY_WINDOW.

/** The recording's row is gone (its room or tenant was deleted): the run ends, nothing is marked. */
export class RecordingGone extends Error {
  constructor(recordingId: string, detail = '') {
    super(`recording ${recordingId} no longer exists${detail}`);
    this.name = 'RecordingGone';
  }
}

/**
 * The provider or the link answered 404/410 (or another 4xx but 408/429), the file is not audio/video or it is over the
 * size limit: the recording fails at once with this message as its reason.
 */
export class PermanentIngestFailure extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PermanentIngestFailure';
  }
}

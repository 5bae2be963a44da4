// One transcript: mark it `processing`, stream the recording from S3 to the provider, store the segments (all in the
// activity, so the transcript never travels through the history), or mark it `failed` with the reason.
// The id is transcription-<transcriptId> (workflows/shared.ts); started by Queue Transcription and by post-meeting.
import { ApplicationFailure, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TranscriptionActivities } from '../src/activities/transcription.ts';
import { RUN_FAILURE, TRANSCRIPTION_FAILURE } from './failure-types.ts';
import {
  databaseStep,
  DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS,
  outsideStepOverrides,
  retryWindowDeadlineMs,
  TRANSCRIBE_RETRY,
  transcriptionTaskQueue,
  type TranscriptionInput,
} from './shared.ts';
import { failureMessage, isFailureOfType } from './failures.ts';

// Database updates: they wait out the database (docs/decisions.md §15).
const bookkeeping = proxyActivities<TranscriptionActivities>(databaseStep([TRANSCRIPTION_FAILURE.transcriptGone]));

/** One attempt at most: a long recording sent in parts to a slow self-hosted server. */
export const TRANSCRIBE_ATTEMPT_SECONDS = 2 * 3600;

// The provider call. It heartbeats as bytes are sent and while the provider works, so a dead worker is noticed within
// the heartbeat timeout and the transcription starts over elsewhere. Transient provider failures (429, 5xx, timeouts,
// connection errors) retry per TRANSCRIBE_RETRY (workflows/shared.ts) until POST_MEETING_RETRY_WINDOW (30 min by
// default) has passed: the activity then makes its failure permanent (docs/decisions.md §9). A refusal (401/403, other
// 4xx, an unusable answer) fails at once. The input's outsideStepTimings (tests only) shorten its heartbeat timeout and
// retry delays; absent, these (workflows/shared.ts OutsideStepTimings).
const provider = proxyActivities<TranscriptionActivities>({
  startToCloseTimeout: `${TRANSCRIBE_ATTEMPT_SECONDS} seconds`,
  heartbeatTimeout: '15 seconds',
  retry: { ...TRANSCRIBE_RETRY, nonRetryableErrorTypes: Object.values(TRANSCRIPTION_FAILURE) },
});

export interface TranscriptionOutcome {
  status: 'completed';
  segments: number;
  wordCount: number;
  language: string | null;
}

/**
 * Runs started from here on call the provider on its own task queue (workflows/shared.ts transcriptionTaskQueue), where
 * the provider's concurrency limit makes the call wait in Temporal rather than in a worker's activity slot. Runs in
 * flight at the upgrade call it on the workflow's queue, as they did.
 */
export const PROVIDER_QUEUE_PATCH = 'transcription-provider-queue';

export async function transcriptionWorkflow({ transcriptId, outsideStepTimings }: TranscriptionInput): Promise<TranscriptionOutcome> {
  const marked = await bookkeeping.markTranscriptProcessing.executeWithOptions({ summary: 'mark transcript processing' }, [{ transcriptId }]);
  const { status } = marked;
  const retryWindowSeconds = marked.retryWindowSeconds ?? DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS;
  if (status === 'failed') {
    throw ApplicationFailure.nonRetryable(`transcript ${transcriptId} failed earlier`, RUN_FAILURE.transcriptionFailed);
  }
  try {
    const onProviderQueue = marked.provider && patched(PROVIDER_QUEUE_PATCH);
    // The window, plus one full attempt begun just before it ends: an attempt that stalls (a heartbeat or
    // start-to-close timeout) never reaches the activity's own window check, so this bounds it (as ingestion does).
    const result = await provider.transcribeRecording.executeWithOptions(
      {
        ...(onProviderQueue ? { taskQueue: transcriptionTaskQueue(workflowInfo().taskQueue, marked.provider) } : {}),
        summary: 'stream the recording to the provider, store the segments',
        scheduleToCloseTimeout: retryWindowDeadlineMs(retryWindowSeconds, TRANSCRIBE_ATTEMPT_SECONDS),
        ...outsideStepOverrides(outsideStepTimings, { heartbeats: true }),
      },
      [{ transcriptId }],
    );
    return { status: 'completed', ...result };
  } catch (err) {
    if (isFailureOfType(err, TRANSCRIPTION_FAILURE.transcriptGone)) throw err;
    const reason = failureMessage(err);
    await bookkeeping.markTranscriptFailed.executeWithOptions({ summary: 'mark transcript failed' }, [{ transcriptId, reason }]);
    // The run fails too, so the operator sees it red in the Temporal UI and a parent (post-meeting) sees why.
    throw ApplicationFailure.nonRetryable(`transcription ${transcriptId} failed: ${reason}`, RUN_FAILURE.transcriptionFailed);
  }
}

// One transcript: mark it `processing`, stream the recording from S3 to the provider, store the segments (all in the
// activity, so the transcript never travels through the history), or mark it `failed` with the reason.
// The id is transcription-<transcriptId> (workflows/shared.ts); started by Queue Transcription and by post-meeting.
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { TranscriptionActivities } from '../src/activities/transcription.ts';
import { TRANSCRIPTION_FAILURE } from './post-meeting-types.ts';
import { databaseStep, type TranscriptionInput } from './shared.ts';

// Database updates: they wait out the database (DECISIONS §15).
const bookkeeping = proxyActivities<TranscriptionActivities>(databaseStep([TRANSCRIPTION_FAILURE.transcriptGone]));

/**
 * The provider call. It heartbeats as bytes are sent and while the provider works, so a dead worker is noticed within
 * the heartbeat timeout and the transcription starts over elsewhere. Transient provider failures (429, 5xx, timeouts)
 * retry on a bounded exponential schedule: 10 s, 20 s, 40 s, 80 s, 160 s (5 retries, about 5 minutes in all); a
 * refusal (401/403, other 4xx, an unusable answer) fails at once.
 */
export const TRANSCRIBE_RETRY = {
  initialInterval: '10 seconds',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  maximumAttempts: 6,
  nonRetryableErrorTypes: Object.values(TRANSCRIPTION_FAILURE),
} as const;

const provider = proxyActivities<TranscriptionActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '15 seconds',
  retry: { ...TRANSCRIBE_RETRY, nonRetryableErrorTypes: [...TRANSCRIBE_RETRY.nonRetryableErrorTypes] },
});

export interface TranscriptionOutcome {
  status: 'completed';
  segments: number;
  wordCount: number;
  language: string | null;
}

export async function transcriptionWorkflow({ transcriptId }: TranscriptionInput): Promise<TranscriptionOutcome> {
  const { status } = await bookkeeping.markTranscriptProcessing.executeWithOptions({ summary: 'mark transcript processing' }, [{ transcriptId }]);
  if (status === 'failed') {
    throw ApplicationFailure.nonRetryable(`transcript ${transcriptId} failed earlier`, 'TranscriptionFailed');
  }
  try {
    const result = await provider.transcribeRecording.executeWithOptions({ summary: 'stream the recording to the provider, store the segments' }, [
      { transcriptId },
    ]);
    return { status: 'completed', ...result };
  } catch (err) {
    if (isFailureOfType(err, TRANSCRIPTION_FAILURE.transcriptGone)) throw err;
    const reason = describe(err);
    await bookkeeping.markTranscriptFailed.executeWithOptions({ summary: 'mark transcript failed' }, [{ transcriptId, reason }]);
    // The run fails too, so the operator sees it red in the Temporal UI and a parent (post-meeting) sees why.
    throw ApplicationFailure.nonRetryable(`transcription ${transcriptId} failed: ${reason}`, 'TranscriptionFailed');
  }
}

function isFailureOfType(err: unknown, type: string): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === type;
}

/** The innermost message: "transcription provider refused: HTTP 401 ..." rather than "Activity task failed". */
function describe(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(err);
}

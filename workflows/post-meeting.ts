// Post-meeting processing of one recording (docs/decisions.md §9): plan from the tenant's config (and create the
// transcript row), transcribe (activities of this run; runs begun before INLINE_TRANSCRIPTION_PATCH used a child
// transcription workflow), summarise, then complete the post_meeting_results row and hand over to the outgoing webhook
// (docs/decisions.md §10) in one activity, one transaction: the result's `completed`, its delivery row and the delivery workflow's
// hand-over commit together (docs/decisions.md §15). Each step fails alone: its failure becomes an errors[] entry and the next
// step goes on.
// The id is post-meeting-<recordingId>; the ingestion workflow starts it (abandoned) when the recording is ready.
// A re-run (POST /recordings/{id}/post-meeting, docs/decisions.md §9) is post-meeting-<recordingId>-<n> with `run: n`, handed over
// by the request that started the row over as run n (keeping a completed transcript unless told to transcribe again);
// it sends a delivery of its own.
// Transient provider failures are ridden out for POST_MEETING_RETRY_WINDOW before a step is recorded as failed.
import {
  executeChild,
  log,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { failureMessage, isFailureOfType } from './failures.ts';
import type { PostMeetingActivities } from '../src/activities/post-meeting.ts';
import type { TranscriptionActivities } from '../src/activities/transcription.ts';
import { TRANSCRIPTION_FAILURE } from './failure-types.ts';
import type { PostMeetingTranscript } from './post-meeting-types.ts';
import {
  ANALYSIS_RETRY,
  databaseStep,
  DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS,
  outsideStepOverrides,
  retryWindowDeadlineMs,
  searchAttributesFor,
  transcriptionTaskQueue,
  transcriptionWorkflowId,
  TRANSCRIBE_RETRY,
  type OutsideStepTimings,
  type PostMeetingInput,
  type StepTimings,
} from './shared.ts';
import { TRANSCRIBE_ATTEMPT_SECONDS, transcriptionWorkflow } from './transcription.ts';

/**
 * Runs started from here on plan and create the transcript row in one step and transcribe in this run's own
 * activities, where runs before took three steps and a child transcription workflow: one workflow, three activities
 * and about eight workflow tasks fewer per recording, the largest share of a burst's CPU (BENCHMARKS.md "Burst", third
 * pass). Runs in flight at the upgrade replay the old way (the replay test holds their histories).
 */
export const INLINE_TRANSCRIPTION_PATCH = 'post-meeting-inline-transcription';
// Database steps: they wait out the database (docs/decisions.md §15), however long it is away.
const bookkeeping = proxyActivities<PostMeetingActivities>(databaseStep([TRANSCRIPTION_FAILURE.transcriptGone]));
const transcriptBookkeeping = proxyActivities<TranscriptionActivities>(databaseStep([TRANSCRIPTION_FAILURE.transcriptGone]));
/** The options a run's input.stepTimings (fault tests only) lays over the database steps'; none when absent (the defaults). */
type StepOverrides = ReturnType<typeof databaseStep> | Record<string, never>;
const stepOverrides = (timings: StepTimings | undefined): StepOverrides => (timings ? databaseStep([TRANSCRIPTION_FAILURE.transcriptGone], timings) : {});

// The provider call, with the transcription workflow's policy (workflows/transcription.ts): heartbeats, transient
// failures retried until the retry window ends, refusals at once. The input's outsideStepTimings (tests only) shorten
// its heartbeat timeout and retry delays, and the analyser's retry delays; absent, these (workflows/shared.ts).
const provider = proxyActivities<TranscriptionActivities>({
  startToCloseTimeout: `${TRANSCRIBE_ATTEMPT_SECONDS} seconds`,
  heartbeatTimeout: '15 seconds',
  retry: { ...TRANSCRIBE_RETRY, nonRetryableErrorTypes: Object.values(TRANSCRIPTION_FAILURE) },
});

/** One analyser attempt at most. */
const ANALYSIS_ATTEMPT_SECONDS = 10 * 60;

// The AI analyser: a transient failure (429, 5xx, timeout, connection error) retries with backoff 2 s doubling, capped
// at 5 min, until POST_MEETING_RETRY_WINDOW has passed (the activity then makes it permanent); then the step is recorded
// as failed and the others go on (docs/decisions.md §9). A refusal (401, 400) fails at once.
const analysis = proxyActivities<PostMeetingActivities>({
  startToCloseTimeout: `${ANALYSIS_ATTEMPT_SECONDS} seconds`,
  retry: { ...ANALYSIS_RETRY, nonRetryableErrorTypes: Object.values(TRANSCRIPTION_FAILURE) },
});

export interface PostMeetingOutcome {
  status: 'completed' | 'skipped';
  transcriptId: string | null;
  summarised: boolean;
  errors: number;
  deliveryId: string | null;
}

export async function postMeetingWorkflow({ recordingId, run, stepTimings, outsideStepTimings }: PostMeetingInput): Promise<PostMeetingOutcome> {
  const steps = stepOverrides(stepTimings);
  // Run 1's inputs are exactly what they were before re-runs existed (replays of older histories stay identical).
  const rerun = run !== undefined && run > 1 ? { run } : {};
  const inline = patched(INLINE_TRANSCRIPTION_PATCH);
  const plan = await bookkeeping.planPostMeeting.executeWithOptions({ ...steps, summary: run && run > 1 ? `plan re-run ${run} from the tenant config` : 'plan from the tenant config' }, [
    { recordingId, ...rerun, ...(inline ? { withTranscript: true } : {}) },
  ]);
  if (plan.alreadyCompleted) return { status: 'skipped', transcriptId: null, summarised: false, errors: 0, deliveryId: null };
  const subject = { tenantId: plan.tenantId, roomId: plan.roomId, recordingId };
  const retryWindowSeconds = plan.retryWindowSeconds ?? DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS;

  let transcriptId: string | null = null;
  if (plan.transcribe) {
    const created: PostMeetingTranscript | null | undefined = inline
      ? plan.transcript
      : await bookkeeping.createPostMeetingTranscript.executeWithOptions({ ...steps, summary: 'create the transcript row' }, [{ recordingId }]);
    transcriptId = created?.transcriptId ?? null;
    // A re-run keeps a completed transcript (docs/decisions.md §9): nothing to transcribe again.
    if (transcriptId && !created?.completed) {
      try {
        if (inline) await transcribe(transcriptId, retryWindowSeconds, created?.provider, steps, outsideStepTimings);
        else {
          await executeChild(transcriptionWorkflow, {
            workflowId: transcriptionWorkflowId(transcriptId),
            args: [{ transcriptId }],
            typedSearchAttributes: searchAttributesFor(subject),
            staticSummary: `transcribe recording ${recordingId} (post-meeting transcript ${transcriptId})`,
          });
        }
      } catch (err) {
        await recordError({ recordingId, field: 'transcript', code: 'transcription_failed', message: failureMessage(err) }, steps);
      }
    }
  }

  let summarised = false;
  if (plan.summarise) {
    try {
      // The window, plus one full attempt begun just before it ends (a stalled attempt never reaches the window check).
      ({ summarised } = await analysis.summarisePostMeeting.executeWithOptions(
        {
          summary: 'summary and action items',
          scheduleToCloseTimeout: retryWindowDeadlineMs(retryWindowSeconds, ANALYSIS_ATTEMPT_SECONDS),
          ...outsideStepOverrides(outsideStepTimings, { heartbeats: false }),
        },
        [{ recordingId }],
      ));
    } catch (err) {
      const message = failureMessage(err);
      await recordError({ recordingId, field: 'summary', code: 'ai_processing_failed', message }, steps);
      await recordError({ recordingId, field: 'action_items', code: 'ai_processing_failed', message }, steps);
    }
  }

  // The delivery's workflow is started by the hand-over relay once this commits (src/handover/), not by this run. A
  // re-run's delivery is its own (one per recording and run, docs/decisions.md §9).
  const { errors, deliveryId } = await bookkeeping.completePostMeeting.executeWithOptions(
    { ...steps, summary: plan.deliver ? 'mark post-meeting completed, create and hand over its webhook delivery' : 'mark post-meeting completed' },
    [{ recordingId, deliver: plan.deliver, ...rerun }],
  );
  return { status: 'completed', transcriptId, summarised, errors, deliveryId };
}

/**
 * The transcript, as the transcription workflow makes it but in this run: `processing`, streamed to the provider,
 * stored; on failure `failed` with the reason, rethrown for the errors[] entry. A vanished transcript ends the step.
 * The call runs on its provider's task queue, where the provider's concurrency limit makes it wait in Temporal.
 */
async function transcribe(
  transcriptId: string,
  retryWindowSeconds: number,
  providerId: string | undefined,
  steps: StepOverrides,
  outsideStepTimings: OutsideStepTimings | undefined,
): Promise<void> {
  try {
    // The window, plus one full attempt begun just before it ends (as in workflows/transcription.ts).
    await provider.transcribePostMeetingRecording.executeWithOptions(
      {
        ...(providerId ? { taskQueue: transcriptionTaskQueue(workflowInfo().taskQueue, providerId) } : {}),
        summary: 'mark processing, stream the recording to the provider, store the segments',
        scheduleToCloseTimeout: retryWindowDeadlineMs(retryWindowSeconds, TRANSCRIBE_ATTEMPT_SECONDS),
        ...outsideStepOverrides(outsideStepTimings, { heartbeats: true }),
      },
      [{ transcriptId }],
    );
  } catch (err) {
    // Gone: nothing to mark. Failed earlier: its stored reason stays.
    if (isFailureOfType(err, TRANSCRIPTION_FAILURE.transcriptGone) || isFailureOfType(err, TRANSCRIPTION_FAILURE.failedEarlier)) throw err;
    await transcriptBookkeeping.markTranscriptFailed.executeWithOptions({ ...steps, summary: 'mark transcript failed' }, [{ transcriptId, reason: failureMessage(err) }]);
    throw err;
  }
}

async function recordError(
  entry: { recordingId: string; field: 'transcript' | 'summary' | 'action_items'; code: 'transcription_failed' | 'ai_processing_failed'; message: string },
  steps: StepOverrides,
) {
  const { recordingId, ...error } = entry;
  log.warn('post-meeting step failed', { recordingId, field: error.field, code: error.code });
  await bookkeeping.recordPostMeetingErrors.executeWithOptions({ ...steps, summary: `record ${error.code}` }, [{ recordingId, errors: [error] }]);
}

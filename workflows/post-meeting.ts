// Post-meeting processing of one recording (docs/decisions.md §9): plan from the tenant's config, transcribe (a child
// transcription workflow), summarise, then complete the post_meeting_results row and hand over to the outgoing webhook
// (issue 9) in one activity, one transaction: the result's `completed`, its delivery row and the delivery workflow's
// hand-over commit together (docs/decisions.md §15). Each step fails alone: its failure becomes an errors[] entry and the next
// step goes on.
// The id is post-meeting-<recordingId>; the ingestion workflow starts it (abandoned) when the recording is ready.
// A re-run (POST /recordings/{id}/post-meeting, docs/decisions.md §9) is post-meeting-<recordingId>-<n> with `run: n`, handed over
// by the request that started the row over as run n (keeping a completed transcript unless told to transcribe again);
// it sends a delivery of its own.
// Transient provider failures are ridden out for POST_MEETING_RETRY_WINDOW before a step is recorded as failed.
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import type { PostMeetingActivities } from '../src/activities/post-meeting.ts';
import { TRANSCRIPTION_FAILURE } from './post-meeting-types.ts';
import {
  databaseStep,
  DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS,
  searchAttributesFor,
  transcriptionWorkflowId,
  type PostMeetingInput,
} from './shared.ts';
import { transcriptionWorkflow } from './transcription.ts';

// Database steps: they wait out the database (docs/decisions.md §15), however long it is away.
const bookkeeping = proxyActivities<PostMeetingActivities>(databaseStep([TRANSCRIPTION_FAILURE.transcriptGone]));

/** One analyser attempt at most. */
const ANALYSIS_ATTEMPT_SECONDS = 10 * 60;

// The AI analyser: a transient failure (429, 5xx, timeout, connection error) retries with backoff 2 s doubling, capped
// at 5 min, until POST_MEETING_RETRY_WINDOW has passed (the activity then makes it permanent); then the step is recorded
// as failed and the others go on (docs/decisions.md §9). A refusal (401, 400) fails at once.
const analysis = proxyActivities<PostMeetingActivities>({
  startToCloseTimeout: `${ANALYSIS_ATTEMPT_SECONDS} seconds`,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: Object.values(TRANSCRIPTION_FAILURE),
  },
});

export interface PostMeetingOutcome {
  status: 'completed' | 'skipped';
  transcriptId: string | null;
  summarised: boolean;
  errors: number;
  deliveryId: string | null;
}

export async function postMeetingWorkflow({ recordingId, run }: PostMeetingInput): Promise<PostMeetingOutcome> {
  // Run 1's inputs are exactly what they were before re-runs existed (replays of older histories stay identical).
  const rerun = run !== undefined && run > 1 ? { run } : {};
  const plan = await bookkeeping.planPostMeeting.executeWithOptions({ summary: run && run > 1 ? `plan re-run ${run} from the tenant config` : 'plan from the tenant config' }, [
    { recordingId, ...rerun },
  ]);
  if (plan.alreadyCompleted) return { status: 'skipped', transcriptId: null, summarised: false, errors: 0, deliveryId: null };
  const subject = { tenantId: plan.tenantId, roomId: plan.roomId, recordingId };
  const retryWindowSeconds = plan.retryWindowSeconds ?? DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS;

  let transcriptId: string | null = null;
  if (plan.transcribe) {
    const created = await bookkeeping.createPostMeetingTranscript.executeWithOptions({ summary: 'create the transcript row' }, [{ recordingId }]);
    transcriptId = created?.transcriptId ?? null;
    // A re-run keeps a completed transcript (docs/decisions.md §9): nothing to transcribe again.
    if (transcriptId && !created?.completed) {
      try {
        await executeChild(transcriptionWorkflow, {
          workflowId: transcriptionWorkflowId(transcriptId),
          args: [{ transcriptId }],
          typedSearchAttributes: searchAttributesFor(subject),
          staticSummary: `transcribe recording ${recordingId} (post-meeting transcript ${transcriptId})`,
        });
      } catch (err) {
        await recordError({ recordingId, field: 'transcript', code: 'transcription_failed', message: describe(err) });
      }
    }
  }

  let summarised = false;
  if (plan.summarise) {
    try {
      // The window, plus one full attempt begun just before it ends (a stalled attempt never reaches the window check).
      ({ summarised } = await analysis.summarisePostMeeting.executeWithOptions(
        { summary: 'summary and action items', scheduleToCloseTimeout: (retryWindowSeconds + ANALYSIS_ATTEMPT_SECONDS) * 1000 },
        [{ recordingId }],
      ));
    } catch (err) {
      const message = describe(err);
      await recordError({ recordingId, field: 'summary', code: 'ai_processing_failed', message });
      await recordError({ recordingId, field: 'action_items', code: 'ai_processing_failed', message });
    }
  }

  // The delivery's workflow is started by the hand-over relay once this commits (src/handover/), not by this run. A
  // re-run's delivery is its own (one per recording and run, docs/decisions.md §9).
  const { errors, deliveryId } = await bookkeeping.completePostMeeting.executeWithOptions(
    { summary: plan.deliver ? 'mark post-meeting completed, create and hand over its webhook delivery' : 'mark post-meeting completed' },
    [{ recordingId, deliver: plan.deliver, ...rerun }],
  );
  return { status: 'completed', transcriptId, summarised, errors, deliveryId };
}

async function recordError(entry: { recordingId: string; field: 'transcript' | 'summary' | 'action_items'; code: 'transcription_failed' | 'ai_processing_failed'; message: string }) {
  const { recordingId, ...error } = entry;
  log.warn('post-meeting step failed', { recordingId, field: error.field, code: error.code });
  await bookkeeping.recordPostMeetingErrors.executeWithOptions({ summary: `record ${error.code}` }, [{ recordingId, errors: [error] }]);
}

/** The innermost reason: the transcription's or the analyser's own message. */
function describe(err: unknown): string {
  let cause: unknown = err;
  while ((cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) && cause.cause) cause = cause.cause;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(err);
}

// Ingestion of one recording: fetch the file from the provider, stream it into S3, mark `ready`.
// Deterministic code only: every side effect is an activity. The id is recording-ingest-<recordingId>.
// The input carries ids only: the transfer activity reads the notification's link sealed in the recording's row, or
// asks the provider for a fresh one (docs/decisions.md §7), so no link (a secret, docs/decisions.md §13) is ever in the history.
import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  patched,
  proxyActivities,
  startChild,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { recordingRetentionWorkflow } from './recording-retention.ts';
import {
  databaseStep,
  INGEST_TRANSFER_RETRY,
  outsideStepOverrides,
  postMeetingWorkflowId,
  recordingRetentionWorkflowId,
  retryWindowDeadlineMs,
  retryWindowEndedReason,
  searchAttributesFor,
  type IngestRecordingInput,
  type StepTimings,
} from './shared.ts';
import { INGESTION_FAILURE, RUN_FAILURE } from './failure-types.ts';
import { failureMessage, isFailureOfType } from './failures.ts';

// Database steps: they wait out the database (docs/decisions.md §15), however long it is away.
// The input's stepTimings (fault tests only) shorten them; absent, the defaults (workflows/shared.ts StepTimings).
const bookkeeping = (summary: string, timings?: StepTimings) =>
  proxyActivities<RecordingActivities>({ summary, ...databaseStep([INGESTION_FAILURE.recordingGone], timings) });

/** One transfer attempt at most (a 20 GiB file on a slow link). */
const TRANSFER_ATTEMPT_SECONDS = 4 * 3600;

// The transfer: long, but it heartbeats as bytes flow, so a dead worker is noticed within 15 s. Transient failures
// (provider or storage down, 429, timeouts) are retried with capped backoff until the retry window ends (docs/decisions.md §7);
// the recording stays `processing` meanwhile; the activity turns a failure after the window into a permanent one
// (it knows the first attempt's time). Permanent ones (404/410, not media, too large) fail at once.
// An attempt that ends in a heartbeat timeout (a stalled download or S3 call) never reaches that check, so each call
// also gets a scheduleToCloseTimeout derived from the window (retryWindowDeadlineMs, workflows/shared.ts): the window,
// plus one full attempt begun just before it ends. Without it, such stalls would be retried for ever with the recording
// in `processing`. The input's outsideStepTimings (tests only) shorten its heartbeat timeout and retry delays; absent,
// these (workflows/shared.ts OutsideStepTimings).
const transfer = proxyActivities<RecordingActivities>({
  summary: 'download from upstream, store in S3',
  startToCloseTimeout: `${TRANSFER_ATTEMPT_SECONDS} seconds`,
  heartbeatTimeout: '15 seconds',
  retry: { ...INGEST_TRANSFER_RETRY, nonRetryableErrorTypes: [INGESTION_FAILURE.recordingGone, INGESTION_FAILURE.permanentIngestFailure] },
});

export async function recordingIngestWorkflow(input: IngestRecordingInput): Promise<{ status: 'ready'; sizeBytes: number }> {
  const { recordingId } = input;
  try {
    const { retryWindowSeconds } = input;
    const stored = await transfer.storeRecordingFile.executeWithOptions(
      {
        scheduleToCloseTimeout: retryWindowDeadlineMs(retryWindowSeconds, TRANSFER_ATTEMPT_SECONDS),
        ...outsideStepOverrides(input.outsideStepTimings, { heartbeats: true }),
      },
      [{ recordingId, retryWindowSeconds }],
    );
    const { durationSeconds, ...file } = stored;
    const ready = await bookkeeping('mark the recording ready', input.stepTimings).markRecordingReady({ recordingId, stored: file, durationSeconds });
    if (patched(CHILDREN_TOGETHER_PATCH)) {
      await Promise.all([startRetention(input, ready.purgeAt), startPostMeeting(input)]);
    } else {
      await startRetention(input);
      await startPostMeeting(input);
    }
    return { status: 'ready', sizeBytes: stored.sizeBytes };
  } catch (err) {
    if (isFailureOfType(err, INGESTION_FAILURE.recordingGone)) throw err;
    const reason = failureReason(err, input.retryWindowSeconds);
    await bookkeeping('mark the recording failed', input.stepTimings).markRecordingFailed({ recordingId, reason });
    // Fail the run too, so the operator sees it red in the Temporal UI (and a later notification may start a new one).
    throw ApplicationFailure.nonRetryable(`ingestion of recording ${recordingId} failed: ${reason}`, RUN_FAILURE.ingestionFailed);
  }
}

/**
 * Runs started from here on start both children in one workflow task, the retention timer with its deadline (read
 * by markRecordingReady) so that it sleeps at once: two workflow tasks and an activity fewer per recording
 * (BENCHMARKS.md "Burst", third pass). Runs in flight at the upgrade replay the old way.
 */
export const CHILDREN_TOGETHER_PATCH = 'ingest-children-together';

/**
 * The retention timer runs on its own (abandoned by this run); one per recording, so a repeat start is ignored.
 * `purgeAt` (absent in runs before CHILDREN_TOGETHER_PATCH) lets it sleep without reading the deadline first.
 */
async function startRetention({ recordingId, tenantId, roomId }: IngestRecordingInput, purgeAt?: string | null): Promise<void> {
  try {
    await startChild(recordingRetentionWorkflow, {
      workflowId: recordingRetentionWorkflowId(recordingId),
      args: [{ recordingId, tenantId, roomId, ...(purgeAt === undefined ? {} : { purgeAt }) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributesFor({ tenantId, roomId, recordingId }),
      staticSummary: `purge recording ${recordingId} when the tenant's retention ends`,
    });
  } catch (err) {
    // WorkflowExecutionAlreadyStartedError (from @temporalio/common, not a dependency of ours): a retention timer runs.
    if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
  }
}

/** The reason stored on the recording. Activity messages are already free of secrets (src/activities/safe-failure.ts). */
function failureReason(err: unknown, retryWindowSeconds: number): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  // The transfer's deadline ended it (retryWindowDeadlineMs): stalls (heartbeat timeouts) get there, as the activity
  // makes any failure of its own after the window permanent first. Worded as the activity words the window's end.
  if (err instanceof ActivityFailure && err.retryState === 'TIMEOUT') return retryWindowEndedReason(retryWindowSeconds, innermost(cause));
  return failureMessage(err);
}

/** The innermost failure that says something: its message, or the kind of timeout (timeouts carry no message). */
function innermost(err: unknown): string {
  let said = 'the transfer did not finish';
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.message) said = e.message;
    else if (e instanceof TimeoutFailure && e.timeoutType) said = `the transfer did not finish (${e.timeoutType} timeout)`;
  }
  return said;
}

/**
 * Post-meeting processing (docs/decisions.md §9) runs on its own (abandoned by this run), one per recording: a repeat start
 * (an ingestion replayed after Recover) finds the first run and is ignored.
 */
async function startPostMeeting({ recordingId, tenantId, roomId, stepTimings, outsideStepTimings }: IngestRecordingInput): Promise<void> {
  try {
    await startChild('postMeetingWorkflow', {
      workflowId: postMeetingWorkflowId(recordingId),
      args: [{ recordingId, ...(stepTimings ? { stepTimings } : {}), ...(outsideStepTimings ? { outsideStepTimings } : {}) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributesFor({ tenantId, roomId, recordingId }),
      staticSummary: `post-meeting processing of recording ${recordingId}: transcribe, summarise, deliver`,
    });
  } catch (err) {
    if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
  }
}

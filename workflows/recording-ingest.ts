// Ingestion of one recording: download from the provider's temporary URL, stream into S3, mark `ready`.
// Deterministic code only: every side effect is an activity. The id is recording-ingest-<recordingId>.
import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  log,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { recordingRetentionWorkflow } from './recording-retention.ts';
import { NON_RETRYABLE, recordingRetentionWorkflowId, type IngestRecordingInput, type RecordingSource } from './shared.ts';
import { postMeetingWorkflowId, searchAttributesFor } from './shared.ts';

// Quick database and provider calls.
const bookkeeping = proxyActivities<RecordingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [NON_RETRYABLE.recordingGone, NON_RETRYABLE.providerGaveUp],
  },
});

// The transfer: long, but it heartbeats as bytes flow, so a dead worker is noticed within 15 s.
const transfer = proxyActivities<RecordingActivities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [NON_RETRYABLE.recordingGone, NON_RETRYABLE.sourceRefused],
  },
});

export async function recordingIngestWorkflow(input: IngestRecordingInput): Promise<{ status: 'ready'; sizeBytes: number }> {
  const { recordingId } = input;
  try {
    let source: RecordingSource = input.source ?? (await bookkeeping.fetchFreshSource({ recordingId }));
    let stored;
    try {
      stored = await transfer.storeRecordingFile({ recordingId, source });
    } catch (err) {
      // An expired or refused temporary URL: ask the provider for a fresh one, once.
      if (!isFailureOfType(err, NON_RETRYABLE.sourceRefused) || !input.source) throw err;
      log.info('temporary URL refused; fetching a fresh one from the provider', { recordingId });
      source = await bookkeeping.fetchFreshSource({ recordingId });
      stored = await transfer.storeRecordingFile({ recordingId, source });
    }
    const { tenantId } = await bookkeeping.markRecordingReady({ recordingId, stored, durationSeconds: source.durationSeconds });
    await startRetention(recordingId, tenantId);
    await startPostMeeting(recordingId, tenantId);
    return { status: 'ready', sizeBytes: stored.sizeBytes };
  } catch (err) {
    if (isFailureOfType(err, NON_RETRYABLE.recordingGone)) throw err;
    await bookkeeping.markRecordingFailed({ recordingId, reason: describe(err) });
    // Fail the run too, so the operator sees it red in the Temporal UI (and a later notification may start a new one).
    throw ApplicationFailure.nonRetryable(`ingestion of recording ${recordingId} failed: ${describe(err)}`, 'IngestionFailed');
  }
}

/** The retention timer runs on its own (abandoned by this run); one per recording, so a repeat start is ignored. */
async function startRetention(recordingId: string, tenantId: string): Promise<void> {
  try {
    await startChild(recordingRetentionWorkflow, {
      workflowId: recordingRetentionWorkflowId(recordingId),
      args: [{ recordingId, tenantId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    // WorkflowExecutionAlreadyStartedError (from @temporalio/common, not a dependency of ours): a retention timer runs.
    if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
  }
}

function isFailureOfType(err: unknown, type: string): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === type;
}

function describe(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(err);
}

/**
 * Post-meeting processing (DECISIONS §9) runs on its own (abandoned by this run), one per recording: a repeat start
 * (an ingestion replayed after Recover) finds the first run and is ignored.
 */
async function startPostMeeting(recordingId: string, tenantId: string): Promise<void> {
  try {
    await startChild('postMeetingWorkflow', {
      workflowId: postMeetingWorkflowId(recordingId),
      args: [{ recordingId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributesFor({ tenantId, recordingId }),
      staticSummary: `post-meeting processing of recording ${recordingId}`,
    });
  } catch (err) {
    if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
  }
}

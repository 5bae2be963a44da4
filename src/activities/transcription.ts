// Activities of the transcription workflow (workflows/transcription.ts), thin as in Temporal's samples: each forks
// the entity manager and calls a stage of src/modules/transcripts/transcription-stages.ts (mark processing;
// prepare → run → store; mark failed), heartbeats while the provider works, and turns the stages' failures into Temporal's: what no
// retry can fix becomes a non-retryable failure of TRANSCRIPTION_FAILURE's types; a transient provider failure is
// retried until POST_MEETING_RETRY_WINDOW ends (docs/decisions.md §9). Keys and tenant settings are resolved in the
// stages, never carried in workflow inputs (docs/decisions.md §13).
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from '../logger.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { ProviderRejected, RecordingUnavailable, TranscriptGone } from '../modules/transcripts/transcription-failures.ts';
import {
  markFailed,
  markProcessing,
  prepareTranscription,
  runTranscription,
  storeTranscription,
  type TranscriptionSummary,
} from '../modules/transcripts/transcription-stages.ts';
import type { Transcript } from '../modules/transcripts/transcript.entity.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { TRANSCRIPTION_FAILURE } from '../../workflows/failure-types.ts';
import { providerFailure } from './provider-failure.ts';
import { failureWithinWindow } from './retry-window.ts';
import { permanentFailures, withSafeFailures, type PermanentFailure } from './safe-failure.ts';

export interface TranscriptionActivityDeps {
  orm: MikroORM;
  store: ObjectStore;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  providers: ProviderRegistry;
  logger: Logger;
  /** POST_MEETING_RETRY_WINDOW (docs/decisions.md §9): how long transient provider failures are retried, seconds. */
  postMeetingRetryWindowSeconds: number;
}

/**
 * While the provider works on an uploaded file nothing flows: a heartbeat every few seconds says we are alive. Every
 * 5 s with the workflows' 15 s heartbeat timeout; a third of a shorter one (the tests' OutsideStepTimings).
 */
const HEARTBEAT_EVERY_MS = 5_000;

export function createTranscriptionActivities(deps: TranscriptionActivityDeps) {
  const { orm, store } = deps;

  /**
   * Streams the recording from S3 to the transcript's provider and stores the segments, text, word count and
   * language, marking the transcript `completed`. A provider's permanent refusal is a non-retryable failure with
   * the provider's reason; a transient one (429, 5xx, timeout) is thrown as retryable for the workflow's policy.
   */
  async function transcribe(transcriptId: string): Promise<TranscriptionSummary> {
    const em = orm.em.fork();
    const prepared = await transcriptionFailures.run(() => prepareTranscription(em, deps, transcriptId));
    if (prepared.kind === 'completed') return prepared.summary;
    const context = Context.current();
    let progress = { bytesDone: 0, bytesTotal: prepared.job.sizeBytes };
    const every = Math.min(HEARTBEAT_EVERY_MS, (context.info.heartbeatTimeoutMs || Infinity) / 3);
    const alive = setInterval(() => context.heartbeat(progress), every);
    let result;
    try {
      result = await runTranscription(store, prepared.job, {
        signal: context.cancellationSignal,
        logger: deps.logger,
        progress: (bytes) => {
          progress = bytes;
          context.heartbeat(progress);
        },
      });
    } catch (err) {
      // Transient failures are retried until the window ends (docs/decisions.md §9), then the transcript fails with the reason.
      throw failureWithinWindow(providerFailure(transcriptionFailures.map(err), 'transcription'), deps.postMeetingRetryWindowSeconds, TRANSCRIPTION_FAILURE.retryWindowEnded);
    } finally {
      clearInterval(alive);
    }
    return storeTranscription(em, prepared.job, result);
  }

  return withSafeFailures({
    /**
     * `processing` (a completed or failed transcript is left as it is and said so), with the retry window the
     * provider step is bounded by (POST_MEETING_RETRY_WINDOW, docs/decisions.md §9).
     */
    async markTranscriptProcessing({ transcriptId }: { transcriptId: string }): Promise<{ status: Transcript['status']; retryWindowSeconds: number; provider: string }> {
      const { status, provider } = await transcriptionFailures.run(() => markProcessing(orm.em.fork(), transcriptId));
      return { status, retryWindowSeconds: deps.postMeetingRetryWindowSeconds, provider };
    },

    /** The transcription workflow's provider step: see transcribe above. */
    async transcribeRecording({ transcriptId }: { transcriptId: string }): Promise<TranscriptionSummary> {
      return transcribe(transcriptId);
    },

    /**
     * Post-meeting's transcription in one step (workflows/post-meeting.ts since its inline-transcription patch):
     * `processing`, then as transcribeRecording. A transcript that failed earlier stays failed (non-retryable
     * `TranscriptionFailed`: the run records the step as failed and keeps the reason already stored).
     */
    async transcribePostMeetingRecording({ transcriptId }: { transcriptId: string }): Promise<TranscriptionSummary> {
      const { status } = await transcriptionFailures.run(() => markProcessing(orm.em.fork(), transcriptId));
      if (status === 'failed') throw ApplicationFailure.nonRetryable(`transcript ${transcriptId} failed earlier`, TRANSCRIPTION_FAILURE.failedEarlier);
      return transcribe(transcriptId);
    },

    /** `failed` with the (redacted) reason; a completed transcript stays. */
    async markTranscriptFailed({ transcriptId, reason }: { transcriptId: string; reason: string }): Promise<{ changed: boolean }> {
      return markFailed(orm.em.fork(), transcriptId, reason);
    },
  });
}

export type TranscriptionActivities = ReturnType<typeof createTranscriptionActivities>;

/**
 * The activities a transcription provider's task queue serves (workflows/shared.ts transcriptionTaskQueue): the
 * provider calls, and nothing else, so a provider's limit bounds exactly them.
 */
export const PROVIDER_CALL_ACTIVITIES = ['transcribeRecording', 'transcribePostMeetingRecording'] as const satisfies ReadonlyArray<keyof TranscriptionActivities>;

/** The stages' permanent failures and the workflow's non-retryable types for them (post-meeting maps them too). */
export const TRANSCRIPTION_PERMANENT_FAILURES: readonly PermanentFailure[] = [
  [TranscriptGone, TRANSCRIPTION_FAILURE.transcriptGone],
  [RecordingUnavailable, TRANSCRIPTION_FAILURE.recordingUnavailable],
  [ProviderRejected, TRANSCRIPTION_FAILURE.providerRejected],
];
const transcriptionFailures = permanentFailures(TRANSCRIPTION_PERMANENT_FAILURES);

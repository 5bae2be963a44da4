// Activities of the transcription workflow (workflows/transcription.ts): everything that touches the database, S3
// or the provider. Idempotent: a retry after a crash overwrites the same row, and a completed transcript is never
// transcribed again. Keys and tenant settings are resolved here, never carried in workflow inputs (docs/decisions.md §13).
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from '../logger.ts';
import { metrics } from '../metrics/metrics.ts';
import { tenantTranscriptionKey, type ProviderRegistry } from '../providers/registry.ts';
import { RecordingSchema, type Recording } from '../modules/recordings/recording.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { TranscriptSchema, type Transcript, type TranscriptSegment } from '../modules/transcripts/transcript.entity.ts';
import { ProviderError, type TranscriptSegmentOut } from '../providers/types.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { TRANSCRIPTION_FAILURE } from '../../workflows/post-meeting-types.ts';
import { failureWithinWindow } from './retry-window.ts';
import { redactSecrets, withSafeFailures } from './safe-failure.ts';

export interface TranscriptionActivityDeps {
  orm: MikroORM;
  store: ObjectStore;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  providers: ProviderRegistry;
  logger: Logger;
  /** POST_MEETING_RETRY_WINDOW (docs/decisions.md §9): how long transient provider failures are retried, seconds. */
  postMeetingRetryWindowSeconds: number;
}

/** While the provider works on an uploaded file nothing flows: a heartbeat every few seconds says we are alive. */
const HEARTBEAT_EVERY_MS = 5_000;
/** The contract's bounds on a segment (spec/openapi.yaml TranscriptSegment). */
const MAX_SEGMENT_TEXT = 10_000;
const MAX_SPEAKER = 100;
const MAX_SEGMENTS = 100_000;

export function createTranscriptionActivities(deps: TranscriptionActivityDeps) {
  const { orm, store, tenants, providers } = deps;

  const loadTranscript = async (transcriptId: string) => {
    const em = orm.em.fork();
    const transcript = await em.findOne(TranscriptSchema, { id: transcriptId });
    if (!transcript) throw ApplicationFailure.nonRetryable(`transcript ${transcriptId} no longer exists`, TRANSCRIPTION_FAILURE.transcriptGone);
    return { em, transcript };
  };

  return withSafeFailures({
    /**
     * `processing` (a completed or failed transcript is left as it is and said so), with the retry window the
     * provider step is bounded by (POST_MEETING_RETRY_WINDOW, docs/decisions.md §9).
     */
    async markTranscriptProcessing({ transcriptId }: { transcriptId: string }): Promise<{ status: Transcript['status']; retryWindowSeconds: number }> {
      const { em, transcript } = await loadTranscript(transcriptId);
      if (transcript.status === 'pending') {
        transcript.status = 'processing';
        transcript.startedAt ??= new Date();
        await em.flush();
      }
      return { status: transcript.status, retryWindowSeconds: deps.postMeetingRetryWindowSeconds };
    },

    /**
     * Streams the recording from S3 to the transcript's provider and stores the segments, text, word count and
     * language, marking the transcript `completed`. A provider's permanent refusal is a non-retryable failure with
     * the provider's reason; a transient one (429, 5xx, timeout) is thrown as retryable for the workflow's policy.
     */
    async transcribeRecording({ transcriptId }: { transcriptId: string }): Promise<{ segments: number; wordCount: number; language: string | null }> {
      const { em, transcript } = await loadTranscript(transcriptId);
      if (transcript.status === 'completed') {
        return { segments: transcript.content?.segments.length ?? 0, wordCount: transcript.wordCount ?? 0, language: transcript.language ?? null };
      }
      const recording = await em.findOne(RecordingSchema, { id: transcript.recording.id });
      const location = recording ? storedLocation(recording, store) : null;
      if (!recording || !location) {
        throw ApplicationFailure.nonRetryable('the recording file is not stored (purged or never ingested)', TRANSCRIPTION_FAILURE.recordingUnavailable);
      }
      const tenant = await em.findOneOrFail(TenantSchema, { id: transcript.tenant.id });
      const config = tenants.effectiveConfig(tenant);
      const own = config.post_meeting_webhook?.transcription;
      // The tenant's own key replaces the operator's for the provider the tenant chose (or any, when it chose none).
      const apiKey = tenantTranscriptionKey(own, transcript.provider);
      const provider = providers.transcription.forTenant(transcript.provider, apiKey);
      if (!provider) {
        throw ApplicationFailure.nonRetryable(`transcription provider "${transcript.provider}" is not configured`, TRANSCRIPTION_FAILURE.providerRejected);
      }

      const context = Context.current();
      // The adapters split by size: an older row without it asks the store (a HEAD, no download).
      const sizeBytes = recording.sizeBytes ?? (await store.head(location))?.sizeBytes;
      if (sizeBytes === undefined) {
        throw ApplicationFailure.nonRetryable('the recording file is missing from storage', TRANSCRIPTION_FAILURE.recordingUnavailable);
      }
      let progress = { bytesDone: 0, bytesTotal: sizeBytes };
      const alive = setInterval(() => context.heartbeat(progress), HEARTBEAT_EVERY_MS);
      let result;
      try {
        context.heartbeat(progress);
        // Timed whether it succeeds or throws: convene_transcription_duration_seconds (docs/decisions.md §12).
        const observe = (seconds: number, ok: boolean) => metrics.observeTranscription(transcript.provider, seconds, ok);
        result = await metrics.time(observe, () =>
          provider.transcribe({
            open: async (range) => {
              const stream = await store.open(location, range, context.cancellationSignal);
              if (!stream) throw ApplicationFailure.nonRetryable('the recording file is missing from storage', TRANSCRIPTION_FAILURE.recordingUnavailable);
              return stream;
            },
            contentType: recording.contentType ?? 'application/octet-stream',
            sizeBytes,
            language: config.transcription_language,
            keywords: config.transcription_keywords,
            profanityFilter: config.transcription_profanity_filter,
            ...(apiKey ? { apiKey } : {}),
            signal: context.cancellationSignal,
            progress: (done, total) => {
              progress = { bytesDone: done, bytesTotal: total };
              context.heartbeat(progress);
            },
          }),
        );
      } catch (err) {
        // Transient failures are retried until the window ends (docs/decisions.md §9), then the transcript fails with the reason.
        throw failureWithinWindow(classify(err), deps.postMeetingRetryWindowSeconds, TRANSCRIPTION_FAILURE.retryWindowEnded);
      } finally {
        clearInterval(alive);
      }

      const segments = result.segments.slice(0, MAX_SEGMENTS).map(bounded);
      const text = segments.map((s) => s.text.trim()).filter(Boolean).join(' ');
      const wordCount = text ? text.split(/\s+/u).length : 0;
      const language = result.language ?? config.transcription_language;
      // Conditional: a run that lost a race with another attempt never overwrites a completed transcript.
      await em.nativeUpdate(
        TranscriptSchema,
        { id: transcriptId, status: { $ne: 'completed' } },
        {
          status: 'completed',
          content: { segments },
          text,
          wordCount,
          language,
          failureReason: null,
          completedAt: new Date(),
          updatedAt: new Date(),
        },
      );
      return { segments: segments.length, wordCount, language };
    },

    /**
     * `failed` with the reason. The reason is shown by the API (`failure_reason`): redacted here once more, so no URL
     * with a signature or credential-looking pair reaches it whatever produced the message. A completed one stays.
     */
    async markTranscriptFailed({ transcriptId, reason }: { transcriptId: string; reason: string }): Promise<{ changed: boolean }> {
      const changed = await orm.em.fork().nativeUpdate(
        TranscriptSchema,
        { id: transcriptId, status: { $ne: 'completed' } },
        { status: 'failed', failureReason: redactSecrets(reason).slice(0, 2000), completedAt: new Date(), updatedAt: new Date() },
      );
      return { changed: changed > 0 };
    },
  });
}

export type TranscriptionActivities = ReturnType<typeof createTranscriptionActivities>;

/** Where the recording's file is: the primary or the archive bucket, per its storage tier. */
export function storedLocation(recording: Recording, store: Pick<ObjectStore, 'bucket' | 'archiveBucket'>) {
  if (!recording.objectKey || recording.purgedAt || (recording.status !== 'ready' && recording.status !== 'archived')) return null;
  const bucket = recording.storageTier === 'archive' ? store.archiveBucket : store.bucket;
  return { bucket, key: recording.objectKey };
}

/** ProviderError → what Temporal should do with it: retry (bounded, by the workflow's policy) or fail at once. */
function classify(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ProviderError) {
    if (!err.retryable) return ApplicationFailure.nonRetryable(`transcription provider refused: ${err.message}`, TRANSCRIPTION_FAILURE.providerRejected);
    return ApplicationFailure.retryable(`transcription provider unavailable: ${err.message}`, 'ProviderUnavailable');
  }
  return err;
}

function bounded(s: TranscriptSegmentOut): TranscriptSegment {
  const start = Math.max(0, Number.isFinite(s.start) ? s.start : 0);
  return {
    start,
    end: Math.max(start, Number.isFinite(s.end) ? s.end : start),
    text: s.text.slice(0, MAX_SEGMENT_TEXT),
    speaker: s.speaker.slice(0, MAX_SPEAKER),
  };
}

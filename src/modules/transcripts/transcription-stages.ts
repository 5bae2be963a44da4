// A transcript's transcription (docs/decisions.md §9) as stages with explicit dependencies: mark it processing;
// prepare (the stored file, the transcript's provider with the tenant's own key, the tenant's settings); run (the
// audio streamed from S3 to the provider); store (bounded segments, text, word count, language, `completed`); or
// mark it failed. The activities (src/activities/transcription.ts) fork the entity manager, heartbeat, and turn
// failures into Temporal's: only the provider call (run) is bounded by POST_MEETING_RETRY_WINDOW. Each stage is
// repeatable: a completed transcript is never transcribed again nor overwritten.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import { metrics } from '../../metrics/metrics.ts';
import { tenantTranscriptionKey, type ProviderRegistry } from '../../providers/registry.ts';
import type { TranscriptionProvider, TranscriptionResult, TranscriptSegmentOut } from '../../providers/types.ts';
import { withVoiceLabels } from '../../providers/voice-labels.ts';
import { redactSecrets } from '../../security/redact.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { storedLocation } from '../recordings/recording-location.ts';
import { RecordingSchema, type Recording } from '../recordings/recording.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { ProviderRejected, RecordingUnavailable, TranscriptGone } from './transcription-failures.ts';
import { TranscriptSchema, type Transcript, type TranscriptSegment } from './transcript.entity.ts';

/** The contract's bounds on a segment (spec/openapi.yaml TranscriptSegment). */
const MAX_SEGMENT_TEXT = 10_000;
const MAX_SPEAKER = 100;
const MAX_SEGMENTS = 100_000;
/** Stored failure reasons are cut to this many characters. */
const MAX_FAILURE_REASON_CHARS = 2000;

export interface TranscriptionDeps {
  store: ObjectStore;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  providers: ProviderRegistry;
}

export interface TranscriptionSummary {
  segments: number;
  wordCount: number;
  language: string | null;
}

/** Everything the provider call needs, resolved from the rows (the key stays in this process). */
export interface TranscriptionJob {
  transcriptId: string;
  recording: Recording;
  location: { bucket: string; key: string };
  sizeBytes: number;
  provider: TranscriptionProvider;
  providerId: string;
  apiKey: string | undefined;
  language: string;
  keywords: string[];
  profanityFilter: boolean;
}

async function loadTranscript(em: EntityManager, transcriptId: string): Promise<Transcript> {
  const transcript = await em.findOne(TranscriptSchema, { id: transcriptId });
  if (!transcript) throw new TranscriptGone(`transcript ${transcriptId} no longer exists`);
  return transcript;
}

/** `processing` (a completed or failed transcript is left as it is); its status after, and its provider. */
export async function markProcessing(
  em: EntityManager,
  transcriptId: string,
  now: Date = new Date(),
): Promise<{ status: Transcript['status']; provider: string }> {
  const transcript = await loadTranscript(em, transcriptId);
  if (transcript.status === 'pending') {
    transcript.status = 'processing';
    transcript.startedAt ??= now;
    await em.flush();
  }
  return { status: transcript.status, provider: transcript.provider };
}

/** prepare: a completed transcript is answered from its row; else the job for its provider. */
export async function prepareTranscription(
  em: EntityManager,
  deps: TranscriptionDeps,
  transcriptId: string,
): Promise<{ kind: 'completed'; summary: TranscriptionSummary } | { kind: 'transcribe'; job: TranscriptionJob }> {
  const transcript = await loadTranscript(em, transcriptId);
  if (transcript.status === 'completed') {
    return {
      kind: 'completed',
      summary: { segments: transcript.content?.segments.length ?? 0, wordCount: transcript.wordCount ?? 0, language: transcript.language ?? null },
    };
  }
  const recording = await em.findOne(RecordingSchema, { id: transcript.recording.id });
  const location = recording ? storedLocation(recording, deps.store) : null;
  if (!recording || !location) throw new RecordingUnavailable('the recording file is not stored (purged or never ingested)');
  const tenant = await em.findOneOrFail(TenantSchema, { id: transcript.tenant.id });
  const config = deps.tenants.effectiveConfig(tenant);
  // The tenant's own key replaces the operator's for the provider the tenant chose (or any, when it chose none).
  const apiKey = tenantTranscriptionKey(config.post_meeting_webhook?.transcription, transcript.provider);
  const provider = deps.providers.transcription.forTenant(transcript.provider, apiKey);
  if (!provider) throw new ProviderRejected(`transcription provider "${transcript.provider}" is not configured`);
  // The adapters split by size: an older row without it asks the store (a HEAD, no download).
  const sizeBytes = recording.sizeBytes ?? (await deps.store.head(location))?.sizeBytes;
  if (sizeBytes === undefined) throw new RecordingUnavailable('the recording file is missing from storage');
  return {
    kind: 'transcribe',
    job: {
      transcriptId,
      recording,
      location,
      sizeBytes,
      provider,
      providerId: transcript.provider,
      apiKey,
      language: config.transcription_language,
      keywords: config.transcription_keywords,
      profanityFilter: config.transcription_profanity_filter,
    },
  };
}

/**
 * run: the audio streamed from S3 to the provider, timed whether it succeeds or throws (docs/decisions.md §12); then,
 * when the provider labelled no speakers, the recording read once more to tell them apart by voice (docs/decisions.md
 * §9, "Speakers told apart by voice"), counted by outcome; a failure to read the voices keeps the provider's segments
 * and is logged as a warning, so an operator sees why a transcript has one speaker.
 */
export async function runTranscription(
  store: Pick<ObjectStore, 'open'>,
  job: TranscriptionJob,
  watch: { signal: AbortSignal; progress(bytes: { bytesDone: number; bytesTotal: number }): void; logger: Pick<Logger, 'warn'> },
): Promise<TranscriptionResult> {
  watch.progress({ bytesDone: 0, bytesTotal: job.sizeBytes });
  const open = async (range?: { start: number; end: number }) => {
    const stream = await store.open(job.location, range, watch.signal);
    if (!stream) throw new RecordingUnavailable('the recording file is missing from storage');
    return stream;
  };
  const observe = (seconds: number, ok: boolean) => metrics.observeTranscription(job.providerId, seconds, ok);
  const result = await metrics.time(observe, () =>
    job.provider.transcribe({
      open,
      contentType: job.recording.contentType ?? 'application/octet-stream',
      sizeBytes: job.sizeBytes,
      language: job.language,
      keywords: job.keywords,
      profanityFilter: job.profanityFilter,
      ...(job.apiKey ? { apiKey: job.apiKey } : {}),
      signal: watch.signal,
      progress: (done, total) => watch.progress({ bytesDone: done, bytesTotal: total }),
    }),
  );
  const voices = await withVoiceLabels(result, open, watch.signal);
  metrics.voiceLabels(voices.outcome);
  if (voices.outcome === 'failed') {
    const reason = redactSecrets(voices.error instanceof Error ? voices.error.message : String(voices.error));
    watch.logger.warn({ transcriptId: job.transcriptId, reason }, "speakers not told apart by voice: the recording could not be read again; the provider's labels are kept");
  }
  return voices.result;
}

/** store: the bounded segments, their text and word count, and `completed`; never over a completed transcript. */
export async function storeTranscription(
  em: EntityManager,
  job: Pick<TranscriptionJob, 'transcriptId' | 'language'>,
  result: TranscriptionResult,
  now: Date = new Date(),
): Promise<TranscriptionSummary> {
  const segments = result.segments.slice(0, MAX_SEGMENTS).map(bounded);
  const text = segments.map((s) => s.text.trim()).filter(Boolean).join(' ');
  const wordCount = text ? text.split(/\s+/u).length : 0;
  const language = result.language ?? job.language;
  // Conditional: a run that lost a race with another attempt never overwrites a completed transcript.
  await em.nativeUpdate(
    TranscriptSchema,
    { id: job.transcriptId, status: { $ne: 'completed' } },
    { status: 'completed', content: { segments }, text, wordCount, language, failureReason: null, completedAt: now, updatedAt: now },
  );
  return { segments: segments.length, wordCount, language };
}

/**
 * `failed` with the reason. The reason is shown by the API (`failure_reason`): redacted here once more, so no URL
 * with a signature or credential-looking pair reaches it whatever produced the message. A completed one stays.
 */
export async function markFailed(em: EntityManager, transcriptId: string, reason: string, now: Date = new Date()): Promise<{ changed: boolean }> {
  const changed = await em.nativeUpdate(
    TranscriptSchema,
    { id: transcriptId, status: { $ne: 'completed' } },
    { status: 'failed', failureReason: redactSecrets(reason).slice(0, MAX_FAILURE_REASON_CHARS), completedAt: now, updatedAt: now },
  );
  return { changed: changed > 0 };
}

/** A provider's segment within the contract's bounds. */
export function bounded(s: TranscriptSegmentOut): TranscriptSegment {
  const start = Math.max(0, Number.isFinite(s.start) ? s.start : 0);
  return {
    start,
    end: Math.max(start, Number.isFinite(s.end) ? s.end : start),
    text: s.text.slice(0, MAX_SEGMENT_TEXT),
    speaker: s.speaker.slice(0, MAX_SPEAKER),
  };
}

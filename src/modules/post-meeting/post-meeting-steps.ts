// The steps of post-meeting processing (docs/decisions.md §9) as stages with explicit dependencies: plan from the
// tenant's config; the transcript post-meeting makes; the summary (prepare → analyse → store); `errors[]` entries;
// completion with this run's delivery. The activities (src/activities/post-meeting.ts) fork the entity manager (or
// open the hand-over transaction), call a stage, and turn failures into Temporal's: only the analyser's call is
// bounded by POST_MEETING_RETRY_WINDOW. All keyed by the recording; each one repeatable.
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Handovers } from '../../handover/handover.ts';
import type { Logger } from '../../logger.ts';
import { metrics } from '../../metrics/metrics.ts';
import { postMeetingTranscriptionProvider, type ProviderRegistry } from '../../providers/registry.ts';
import type { AiAnalyzer, AnalysisRequest, MeetingInsights } from '../../providers/types.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { createDelivery, deliveryStart } from '../deliveries/delivery.service.ts';
import { webhookAccepts } from '../deliveries/webhook-target.ts';
import type { RetrySchedule } from '../deliveries/delivery-schedule.ts';
import { RecordingGone } from '../recordings/ingestion-failures.ts';
import { storedLocation } from '../recordings/recording-location.ts';
import { RecordingSchema } from '../recordings/recording.entity.ts';
import type { TenantConfig } from '../tenants/tenant-config.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { ProviderRejected } from '../transcripts/transcription-failures.ts';
import { createPendingTranscript } from '../transcripts/transcript.entity.ts';
import { meetingParticipants } from './meeting-participants.ts';
import { PostMeetingResultSchema, type PostMeetingError, type PostMeetingResult } from './post-meeting-result.entity.ts';

/** Stored `errors[]` messages are cut to this many characters. */
const MAX_ERROR_MESSAGE_CHARS = 1000;

type Tenants = Pick<TenantService, 'effectiveConfig'>;

async function loadRecording(em: EntityManager, tenants: Tenants, recordingId: string) {
  const recording = await em.findOne(RecordingSchema, { id: recordingId });
  if (!recording) throw new RecordingGone(recordingId);
  const tenant = await em.findOneOrFail(TenantSchema, { id: recording.tenant.id });
  return { recording, config: tenants.effectiveConfig(tenant) };
}

/** Which steps a run takes. */
export interface PostMeetingSteps {
  transcribe: boolean;
  summarise: boolean;
  deliver: boolean;
}

/** What planPostMeeting answers (the workflow's PostMeetingPlan, workflows/post-meeting-types.ts). */
export interface PlannedRun extends PostMeetingSteps {
  tenantId: string;
  roomId: string;
  /** Nothing left to do: the row is `completed` already (a repeated run), or another run holds it. */
  alreadyCompleted: boolean;
  /** POST_MEETING_RETRY_WINDOW in seconds: bounds the transcription and AI steps. */
  retryWindowSeconds: number;
}

/**
 * Which steps a run takes, from the tenant's effective config (docs/decisions.md §9, see planPostMeeting). Whether the
 * result is delivered is the rule every delivery follows (webhookAccepts, src/modules/deliveries/webhook-target.ts).
 */
export function stepsFor(config: Pick<TenantConfig, 'transcription_enabled' | 'post_meeting_webhook'>): PostMeetingSteps {
  const hook = config.post_meeting_webhook;
  const summarise = Boolean(hook && (hook.include_summary || hook.include_action_items));
  return {
    transcribe: config.transcription_enabled || Boolean(hook?.include_transcript) || summarise,
    summarise,
    deliver: webhookAccepts(hook, 'meeting.recording_ready'),
  };
}

/**
 * docs/decisions.md §9: transcribe when `transcription_enabled` or the webhook asks for a transcript, summary or action
 * items; summarise when it asks for a summary or action items; deliver when the webhook is enabled. Run 1 creates
 * the `post_meeting_results` row (`running`); a completed row means a repeated run with nothing left to do.
 * A re-run (`run` ≥ 2, docs/decisions.md §9 "Outages and re-runs") finds the row already started over as its run by the
 * request that handed it over (post-meeting-rerun.ts); a run that finds another run holding the row does nothing.
 */
export async function planPostMeeting(
  em: EntityManager,
  deps: { tenants: Tenants; logger: Logger; retryWindowSeconds: number },
  { recordingId, run = 1 }: { recordingId: string; run?: number },
): Promise<PlannedRun> {
  const { recording, config } = await loadRecording(em, deps.tenants, recordingId);
  const plan = { tenantId: recording.tenant.id, roomId: recording.room.id, ...stepsFor(config), retryWindowSeconds: deps.retryWindowSeconds };
  const row = await em.findOne(PostMeetingResultSchema, { recording: recordingId });
  if (!row) {
    em.create(PostMeetingResultSchema, { recording, tenant: recording.tenant, roomId: recording.room.id, status: 'running', run, errors: [] });
    await em.flush();
    return { ...plan, alreadyCompleted: false };
  }
  if (row.run === run) return { ...plan, alreadyCompleted: row.status === 'completed' };
  deps.logger.warn({ recordingId, run, current: row.run, status: row.status }, 'post-meeting run skipped: another run holds the result');
  return { ...plan, alreadyCompleted: true };
}

/**
 * The transcript post-meeting makes (`origin: post_meeting`), created once per recording: a repeat returns the
 * same one. Null with an `errors[]` entry when there is nothing to transcribe or no provider to do it.
 */
export async function createPostMeetingTranscript(
  em: EntityManager,
  deps: { store: Pick<ObjectStore, 'bucket' | 'archiveBucket'>; tenants: Tenants; providers: ProviderRegistry },
  recordingId: string,
): Promise<{ transcriptId: string; completed: boolean; provider: string } | null> {
  const { recording, config } = await loadRecording(em, deps.tenants, recordingId);
  const row = await em.findOneOrFail(PostMeetingResultSchema, { recording: recordingId }, { populate: ['transcript'] });
  if (row.transcript) return { transcriptId: row.transcript.id, completed: row.transcript.status === 'completed', provider: row.transcript.provider };
  if (!storedLocation(recording, deps.store)) {
    await appendErrors(em, recordingId, [
      { field: 'recording', code: 'recording_unavailable', message: `the recording file is not available (status ${recording.status})` },
    ]);
    return null;
  }
  // The tenant's provider (its own key counts), else the deployment's default; never another (docs/decisions.md §9).
  const choice = postMeetingTranscriptionProvider(deps.providers, config.post_meeting_webhook?.transcription);
  if ('failure' in choice) {
    await appendErrors(em, recordingId, [{ field: 'transcript', code: 'transcription_failed', message: choice.failure }]);
    return null;
  }
  const transcript = createPendingTranscript(em, recording, 'post_meeting', choice.provider);
  row.transcript = transcript;
  await em.flush();
  return { transcriptId: transcript.id, completed: false, provider: transcript.provider };
}

/** What the summary step has to do. */
export type SummaryWork =
  | { kind: 'done'; summarised: boolean }
  | { kind: 'analyse'; row: PostMeetingResult; analyzerId: string; analyzer: AiAnalyzer; request: AnalysisRequest };

/**
 * prepare the summary and action items: a summary already there is done; no completed transcript is an `errors[]`
 * entry for both; else the tenant's analyser (builtin by default; its `ai.model` and own `ai.api_key` when given).
 */
export async function prepareSummary(
  em: EntityManager,
  deps: { tenants: Tenants; providers: ProviderRegistry },
  recordingId: string,
): Promise<SummaryWork> {
  const { recording, config } = await loadRecording(em, deps.tenants, recordingId);
  const row = await em.findOneOrFail(PostMeetingResultSchema, { recording: recordingId }, { populate: ['transcript'] });
  if (row.summary !== null && row.summary !== undefined) return { kind: 'done', summarised: true };
  const transcript = row.transcript;
  if (!transcript || transcript.status !== 'completed' || !transcript.content) {
    const message = 'no completed transcript to summarise';
    await appendErrors(em, recordingId, [
      { field: 'summary', code: 'transcription_failed', message },
      { field: 'action_items', code: 'transcription_failed', message },
    ]);
    return { kind: 'done', summarised: false };
  }
  const ai = config.post_meeting_webhook?.ai;
  // The tenant's analyser, else the operator's default (builtin unless AI_DEFAULT_PROVIDER says otherwise).
  const analyzerId = ai?.provider ?? deps.providers.ai.defaultId;
  const analyzer = deps.providers.ai.get(analyzerId);
  if (!analyzer) throw new ProviderRejected(`AI provider "${analyzerId}" is not configured`);
  const participants = await meetingParticipants(em, recording);
  const request: AnalysisRequest = {
    text: transcript.text ?? '',
    segments: transcript.content.segments,
    language: transcript.language ?? null,
    ...(participants ? { participants } : {}),
    ...(ai?.api_key ? { apiKey: ai.api_key } : {}),
    ...(ai?.model ? { model: ai.model } : {}),
  };
  return { kind: 'analyse', row, analyzerId, analyzer, request };
}

/** analyse: the analyser's call, timed whether it succeeds or throws (convene_ai_duration_seconds, docs/decisions.md §12). */
export async function analyse(work: Extract<SummaryWork, { kind: 'analyse' }>): Promise<MeetingInsights> {
  return metrics.time(
    (seconds, ok) => metrics.observeAi(work.analyzerId, seconds, ok),
    () => work.analyzer.analyze(work.request),
  );
}

/** store the summary and action items on the result row prepared with them. */
export async function storeSummary(em: EntityManager, work: Extract<SummaryWork, { kind: 'analyse' }>, insights: MeetingInsights): Promise<void> {
  work.row.summary = insights.summary;
  work.row.actionItems = insights.actionItems;
  await em.flush();
}

/** Appends `errors[]` entries (docs/decisions.md §9); an entry already there (same field and code) is not repeated. */
export async function appendErrors(em: EntityManager, recordingId: string, errors: PostMeetingError[]): Promise<void> {
  const row = await em.findOne(PostMeetingResultSchema, { recording: recordingId });
  if (!row) return;
  const known = new Set(row.errors.map((e) => `${e.field}/${e.code}`));
  const fresh = errors
    .filter((e) => !known.has(`${e.field}/${e.code}`))
    .map((e) => ({ ...e, message: e.message.slice(0, MAX_ERROR_MESSAGE_CHARS) }));
  if (fresh.length === 0) return;
  row.errors = [...row.errors, ...fresh];
  await em.flush();
}

/**
 * Inside the hand-over transaction `tx` (the activity opens it): the result becomes `completed` and, when `deliver`,
 * its webhook delivery row and the delivery workflow's hand-over are recorded with it (docs/decisions.md §15): never
 * a completed result without its delivery, nor a delivery nothing sends. The delivery is this run's (one per recording
 * and post-meeting run, docs/decisions.md §9: a re-run sends its own), its schedule the configured one. Repeatable: a
 * repeat finds the same delivery and records its start again, which the relay collapses into the one run. A repeat
 * that finds a later run holding the row (a re-run started meanwhile) leaves it alone.
 */
export async function completePostMeeting(
  tx: EntityManager,
  deps: { tenants: Tenants; logger: Logger; handovers: Pick<Handovers, 'record'>; schedule: RetrySchedule },
  { recordingId, deliver = false, run = 1 }: { recordingId: string; deliver?: boolean; run?: number },
  now: Date = new Date(),
): Promise<{ errors: number; deliveryId: string | null }> {
  const row = await tx.findOne(PostMeetingResultSchema, { recording: recordingId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!row) return { errors: 0, deliveryId: null };
  if (row.run !== run) {
    deps.logger.warn({ recordingId, run, current: row.run }, 'post-meeting completion skipped: another run holds the result');
    return { errors: row.errors.length, deliveryId: null };
  }
  if (row.status !== 'completed') {
    row.status = 'completed';
    row.completedAt = now;
    await tx.flush();
  }
  if (!deliver) return { errors: row.errors.length, deliveryId: null };
  const delivery = await createDelivery(tx, deps.tenants, { tenantId: row.tenant.id, roomId: row.roomId, recordingId, postMeetingRun: run });
  if (delivery) await deps.handovers.record(tx, deliveryStart(delivery, [...deps.schedule]));
  return { errors: row.errors.length, deliveryId: delivery?.id ?? null };
}

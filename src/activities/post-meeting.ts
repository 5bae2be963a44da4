// Activities of the post-meeting workflow (workflows/post-meeting.ts): plan from the tenant's config, make the
// transcript row, summarise, record failures, complete. All keyed by the recording; each one repeatable.
import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { Handovers } from '../handover/handover.ts';
import type { Logger } from '../logger.ts';
import { createDelivery, deliveryStart } from '../modules/deliveries/delivery.service.ts';
import { metrics } from '../metrics/metrics.ts';
import { postMeetingTranscriptionProvider, type ProviderRegistry } from '../providers/registry.ts';
import { PostMeetingResultSchema, type PostMeetingError } from '../modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../modules/recordings/recording.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { createPendingTranscript } from '../modules/transcripts/transcript.entity.ts';
import { ProviderError } from '../providers/types.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { TRANSCRIPTION_FAILURE, type PostMeetingPlan } from '../../workflows/post-meeting-types.ts';
import { storedLocation } from './transcription.ts';
import { failureWithinWindow } from './retry-window.ts';
import { withSafeFailures } from './safe-failure.ts';

export interface PostMeetingActivityDeps {
  orm: MikroORM;
  store: Pick<ObjectStore, 'bucket' | 'archiveBucket'>;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  providers: ProviderRegistry;
  logger: Logger;
  handovers: Pick<Handovers, 'transaction' | 'record'>;
  /** WEBHOOK_RETRY_DELAYS, fixed in the delivery's input at creation. */
  webhooks: { retryDelaysSeconds: number[] };
  /** POST_MEETING_RETRY_WINDOW (docs/decisions.md §9): how long transient AI provider failures are retried, seconds. */
  postMeetingRetryWindowSeconds: number;
}

export function createPostMeetingActivities(deps: PostMeetingActivityDeps) {
  const { orm, tenants, providers } = deps;

  const load = async (recordingId: string) => {
    const em = orm.em.fork();
    const recording = await em.findOne(RecordingSchema, { id: recordingId });
    if (!recording) throw ApplicationFailure.nonRetryable(`recording ${recordingId} no longer exists`, TRANSCRIPTION_FAILURE.transcriptGone);
    const tenant = await em.findOneOrFail(TenantSchema, { id: recording.tenant.id });
    return { em, recording, config: tenants.effectiveConfig(tenant) };
  };

  return withSafeFailures({
    /**
     * docs/decisions.md §9: transcribe when `transcription_enabled` or the webhook asks for a transcript, summary or action
     * items; summarise when it asks for a summary or action items; deliver when the webhook is enabled. Run 1 creates
     * the `post_meeting_results` row (`running`); a completed row means a repeated run with nothing left to do.
     * A re-run (`run` ≥ 2, docs/decisions.md §9 "Outages and re-runs") finds the row already started over as its run by the
     * request that handed it over (src/modules/post-meeting/post-meeting-rerun.ts); a run that finds another run
     * holding the row does nothing.
     */
    async planPostMeeting({ recordingId, run = 1 }: { recordingId: string; run?: number }): Promise<PostMeetingPlan> {
      const { em, recording, config } = await load(recordingId);
      const hook = config.post_meeting_webhook;
      const summarise = Boolean(hook && (hook.include_summary || hook.include_action_items));
      const plan = {
        tenantId: recording.tenant.id,
        roomId: recording.room.id,
        transcribe: config.transcription_enabled || Boolean(hook?.include_transcript) || summarise,
        summarise,
        deliver: Boolean(hook?.enabled),
        retryWindowSeconds: deps.postMeetingRetryWindowSeconds,
      };
      const row = await em.findOne(PostMeetingResultSchema, { recording: recordingId });
      if (!row) {
        em.create(PostMeetingResultSchema, {
          recording,
          tenant: recording.tenant,
          roomId: recording.room.id,
          status: 'running',
          run,
          errors: [],
        });
        await em.flush();
        return { ...plan, alreadyCompleted: false };
      }
      if (row.run === run) return { ...plan, alreadyCompleted: row.status === 'completed' };
      deps.logger.warn({ recordingId, run, current: row.run, status: row.status }, 'post-meeting run skipped: another run holds the result');
      return { ...plan, alreadyCompleted: true };
    },

    /**
     * The transcript post-meeting makes (`origin: post_meeting`), created once per recording: a repeat returns the
     * same one. Null with an `errors[]` entry when there is nothing to transcribe or no provider to do it.
     */
    async createPostMeetingTranscript({ recordingId }: { recordingId: string }): Promise<{ transcriptId: string; completed: boolean } | null> {
      const { em, recording, config } = await load(recordingId);
      const row = await em.findOneOrFail(PostMeetingResultSchema, { recording: recordingId }, { populate: ['transcript'] });
      if (row.transcript) return { transcriptId: row.transcript.id, completed: row.transcript.status === 'completed' };
      if (!storedLocation(recording, deps.store)) {
        await appendErrors(em, recordingId, [
          { field: 'recording', code: 'recording_unavailable', message: `the recording file is not available (status ${recording.status})` },
        ]);
        return null;
      }
      // The tenant's provider (its own key counts), else the deployment's default; never another (docs/decisions.md §9).
      const choice = postMeetingTranscriptionProvider(providers, config.post_meeting_webhook?.transcription);
      if ('failure' in choice) {
        await appendErrors(em, recordingId, [{ field: 'transcript', code: 'transcription_failed', message: choice.failure }]);
        return null;
      }
      const transcript = createPendingTranscript(em, recording, 'post_meeting', choice.provider);
      row.transcript = transcript;
      await em.flush();
      return { transcriptId: transcript.id, completed: false };
    },

    /**
     * Summary and action items of the post-meeting transcript, by the tenant's analyser (builtin by default; its
     * `ai.model` and own `ai.api_key` when given), stored on the row. A transient analyser failure is retried by the
     * workflow's policy until POST_MEETING_RETRY_WINDOW ends (docs/decisions.md §9); after that, or at once for a refusal, the
     * workflow records `ai_processing_failed`.
     */
    async summarisePostMeeting({ recordingId }: { recordingId: string }): Promise<{ summarised: boolean }> {
      const { em, config } = await load(recordingId);
      const row = await em.findOneOrFail(PostMeetingResultSchema, { recording: recordingId }, { populate: ['transcript'] });
      if (row.summary !== null && row.summary !== undefined) return { summarised: true };
      const transcript = row.transcript;
      if (!transcript || transcript.status !== 'completed' || !transcript.content) {
        const message = 'no completed transcript to summarise';
        await appendErrors(em, recordingId, [
          { field: 'summary', code: 'transcription_failed', message },
          { field: 'action_items', code: 'transcription_failed', message },
        ]);
        return { summarised: false };
      }
      const ai = config.post_meeting_webhook?.ai;
      // The tenant's analyser, else the operator's default (builtin unless AI_DEFAULT_PROVIDER says otherwise).
      const analyzerId = ai?.provider ?? providers.ai.defaultId;
      const analyzer = providers.ai.get(analyzerId);
      if (!analyzer) throw ApplicationFailure.nonRetryable(`AI provider "${analyzerId}" is not configured`, TRANSCRIPTION_FAILURE.providerRejected);
      let insights;
      try {
        const content = transcript.content;
        // Timed whether it succeeds or throws: convene_ai_duration_seconds, by analyser (docs/decisions.md §12).
        insights = await metrics.time(
          (seconds, ok) => metrics.observeAi(analyzerId, seconds, ok),
          () =>
            analyzer.analyze({
              text: transcript.text ?? '',
              segments: content.segments,
              language: transcript.language ?? null,
              ...(ai?.api_key ? { apiKey: ai.api_key } : {}),
              ...(ai?.model ? { model: ai.model } : {}),
            }),
        );
      } catch (err) {
        throw failureWithinWindow(classifyAi(err), deps.postMeetingRetryWindowSeconds, TRANSCRIPTION_FAILURE.retryWindowEnded);
      }
      row.summary = insights.summary;
      row.actionItems = insights.actionItems;
      await em.flush();
      return { summarised: true };
    },

    /** Appends `errors[]` entries (docs/decisions.md §9); an entry already there (same field and code) is not repeated. */
    async recordPostMeetingErrors({ recordingId, errors }: { recordingId: string; errors: PostMeetingError[] }): Promise<void> {
      await appendErrors(orm.em.fork(), recordingId, errors);
    },

    /**
     * Every step has finished, well or not: the result becomes `completed` and, when `deliver`, its webhook delivery
     * row and the delivery workflow's hand-over are created, all in one transaction (docs/decisions.md §15): never a completed
     * result without its delivery, nor a delivery nothing sends. The delivery is this run's (one per recording and
     * post-meeting run, docs/decisions.md §9: a re-run sends its own). Repeatable: a repeat finds the same delivery and records
     * its start again, which the relay collapses into the one run. A repeat that finds a later run holding the row
     * (a re-run started meanwhile) leaves it alone.
     */
    async completePostMeeting({ recordingId, deliver = false, run = 1 }: { recordingId: string; deliver?: boolean; run?: number }): Promise<{ errors: number; deliveryId: string | null }> {
      return deps.handovers.transaction(orm.em.fork(), async (tx) => {
        const row = await tx.findOne(PostMeetingResultSchema, { recording: recordingId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!row) return { errors: 0, deliveryId: null };
        if (row.run !== run) {
          deps.logger.warn({ recordingId, run, current: row.run }, 'post-meeting completion skipped: another run holds the result');
          return { errors: row.errors.length, deliveryId: null };
        }
        if (row.status !== 'completed') {
          row.status = 'completed';
          row.completedAt = new Date();
          await tx.flush();
        }
        if (!deliver) return { errors: row.errors.length, deliveryId: null };
        const delivery = await createDelivery(tx, tenants, { tenantId: row.tenant.id, roomId: row.roomId, recordingId, postMeetingRun: run });
        if (delivery) await deps.handovers.record(tx, deliveryStart(delivery, deps.webhooks.retryDelaysSeconds));
        return { errors: row.errors.length, deliveryId: delivery?.id ?? null };
      });
    },
  });
}

export type PostMeetingActivities = ReturnType<typeof createPostMeetingActivities>;

/** ProviderError → a refusal (fails the step at once) or an outage (retried within the window). */
function classifyAi(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  if (!err.retryable) return ApplicationFailure.nonRetryable(`AI provider refused: ${err.message}`, TRANSCRIPTION_FAILURE.providerRejected);
  return ApplicationFailure.retryable(`AI provider unavailable: ${err.message}`, 'ProviderUnavailable');
}

async function appendErrors(em: ReturnType<MikroORM['em']['fork']>, recordingId: string, errors: PostMeetingError[]): Promise<void> {
  const row = await em.findOne(PostMeetingResultSchema, { recording: recordingId });
  if (!row) return;
  const known = new Set(row.errors.map((e) => `${e.field}/${e.code}`));
  const fresh = errors.filter((e) => !known.has(`${e.field}/${e.code}`)).map((e) => ({ ...e, message: e.message.slice(0, 1000) }));
  if (fresh.length === 0) return;
  row.errors = [...row.errors, ...fresh];
  await em.flush();
}

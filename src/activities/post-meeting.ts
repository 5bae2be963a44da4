// Activities of the post-meeting workflow (workflows/post-meeting.ts), thin as in Temporal's samples: each forks the
// entity manager (or opens the hand-over transaction) and calls a stage of
// src/modules/post-meeting/post-meeting-steps.ts, turning its failures into Temporal's: what no retry can fix becomes a
// non-retryable failure of TRANSCRIPTION_FAILURE's types; a transient analyser failure is retried until
// POST_MEETING_RETRY_WINDOW ends (docs/decisions.md §9). All keyed by the recording; each one repeatable.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Handovers } from '../handover/handover.ts';
import type { Logger } from '../logger.ts';
import {
  analyse,
  appendErrors,
  completePostMeeting,
  createPostMeetingTranscript,
  planPostMeeting,
  prepareSummary,
  storeSummary,
} from '../modules/post-meeting/post-meeting-steps.ts';
import type { PostMeetingError } from '../modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingGone } from '../modules/recordings/ingestion-failures.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { TRANSCRIPTION_FAILURE } from '../../workflows/failure-types.ts';
import type { PostMeetingPlan, PostMeetingTranscript } from '../../workflows/post-meeting-types.ts';
import { providerFailure } from './provider-failure.ts';
import { failureWithinWindow } from './retry-window.ts';
import { permanentFailures, withSafeFailures } from './safe-failure.ts';
import { TRANSCRIPTION_PERMANENT_FAILURES } from './transcription.ts';

export interface PostMeetingActivityDeps {
  orm: MikroORM;
  store: Pick<ObjectStore, 'bucket' | 'archiveBucket'>;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  providers: ProviderRegistry;
  logger: Logger;
  handovers: Pick<Handovers, 'transaction' | 'record'>;
  /** The configured delivery schedule (src/modules/deliveries/delivery-schedule.ts), fixed in the delivery's input. */
  webhooks: { retryDelaysSeconds: number[] };
  /** POST_MEETING_RETRY_WINDOW (docs/decisions.md §9): how long transient AI provider failures are retried, seconds. */
  postMeetingRetryWindowSeconds: number;
}

export function createPostMeetingActivities(deps: PostMeetingActivityDeps) {
  const { orm } = deps;

  return withSafeFailures({
    /**
     * What this run does, from the tenant's config; run 1 creates the result row (planPostMeeting). With
     * `withTranscript` (runs since the inline-transcription patch), also the transcript when the plan transcribes:
     * the two steps in one activity, each repeatable.
     */
    async planPostMeeting({ withTranscript, ...input }: { recordingId: string; run?: number; withTranscript?: boolean }): Promise<PostMeetingPlan> {
      const stageDeps = { tenants: deps.tenants, logger: deps.logger, retryWindowSeconds: deps.postMeetingRetryWindowSeconds };
      return postMeetingFailures.run(async () => {
        // One entity manager for both stages: the transcript step finds the recording, tenant and result row the plan loaded.
        const em = orm.em.fork();
        const plan = await planPostMeeting(em, stageDeps, input);
        if (!withTranscript) return plan;
        const transcript = plan.transcribe && !plan.alreadyCompleted ? await createPostMeetingTranscript(em, deps, input.recordingId) : null;
        return { ...plan, transcript };
      });
    },

    /** The transcript post-meeting makes, once per recording; null with an `errors[]` entry when none can be made. */
    async createPostMeetingTranscript({ recordingId }: { recordingId: string }): Promise<PostMeetingTranscript | null> {
      return postMeetingFailures.run(() => createPostMeetingTranscript(orm.em.fork(), deps, recordingId));
    },

    /**
     * Summary and action items of the post-meeting transcript, stored on the row. A transient analyser failure is
     * retried by the workflow's policy until POST_MEETING_RETRY_WINDOW ends (docs/decisions.md §9); after that, or at
     * once for a refusal, the workflow records `ai_processing_failed`.
     */
    async summarisePostMeeting({ recordingId }: { recordingId: string }): Promise<{ summarised: boolean }> {
      const em = orm.em.fork();
      const work = await postMeetingFailures.run(() => prepareSummary(em, deps, recordingId));
      if (work.kind === 'done') return { summarised: work.summarised };
      let insights;
      try {
        insights = await analyse(work);
      } catch (err) {
        throw failureWithinWindow(providerFailure(err, 'AI'), deps.postMeetingRetryWindowSeconds, TRANSCRIPTION_FAILURE.retryWindowEnded);
      }
      await storeSummary(em, work, insights);
      return { summarised: true };
    },

    /** Appends `errors[]` entries (docs/decisions.md §9); an entry already there (same field and code) is not repeated. */
    async recordPostMeetingErrors({ recordingId, errors }: { recordingId: string; errors: PostMeetingError[] }): Promise<void> {
      await appendErrors(orm.em.fork(), recordingId, errors);
    },

    /**
     * The result `completed` and, when `deliver`, this run's delivery and its workflow's hand-over, in one transaction
     * (docs/decisions.md §15; completePostMeeting in post-meeting-steps.ts).
     */
    async completePostMeeting(input: { recordingId: string; deliver?: boolean; run?: number }): Promise<{ errors: number; deliveryId: string | null }> {
      const stageDeps = { tenants: deps.tenants, logger: deps.logger, handovers: deps.handovers, schedule: deps.webhooks.retryDelaysSeconds };
      return deps.handovers.transaction(orm.em.fork(), (tx) => completePostMeeting(tx, stageDeps, input));
    },
  });
}

export type PostMeetingActivities = ReturnType<typeof createPostMeetingActivities>;

/** A vanished recording ends the run as a vanished transcript does; the rest as the transcription stages map them. */
const postMeetingFailures = permanentFailures([[RecordingGone, TRANSCRIPTION_FAILURE.transcriptGone], ...TRANSCRIPTION_PERMANENT_FAILURES]);

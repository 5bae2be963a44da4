// Activities of the recording workflows, thin as in Temporal's samples: each forks the entity manager, calls a stage
// of src/modules/recordings/ (ingestion-transfer.ts, ingestion.ts, retention.ts, recording-stop.ts), heartbeats, and
// turns the stage's failures into Temporal's: what no retry can fix (RecordingGone, PermanentIngestFailure) becomes a
// non-retryable ApplicationFailure of the workflow's error types; anything else is retried by the workflow's policy.
// Every failure leaves through withSafeFailures (no secret in a history, docs/decisions.md §13).
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { DomainEventPublisher } from '../events/domain-events.ts';
import type { Logger } from '../logger.ts';
import { markFailed, markReady } from '../modules/recordings/ingestion.ts';
import { PermanentIngestFailure, RecordingGone } from '../modules/recordings/ingestion-failures.ts';
import { transferRecording, type StoredRecording, type TransferredRecording } from '../modules/recordings/ingestion-transfer.ts';
import { purgeRecording, retentionDeadline } from '../modules/recordings/retention.ts';
import { stopClosedRoomRecording, stopRecording } from '../modules/recordings/recording-stop.ts';
import { RecordingSchema } from '../modules/recordings/recording.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { SsrfPolicy } from '../security/ssrf-guard.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import type { MediaProvider } from '../upstream/media-provider.ts';
import { INGESTION_FAILURE } from '../../workflows/failure-types.ts';
import { failureWithinWindow } from './retry-window.ts';
import { permanentFailures, withSafeFailures } from './safe-failure.ts';

export type { StoredRecording };

export interface RecordingActivityDeps {
  orm: MikroORM;
  store: ObjectStore;
  provider: MediaProvider;
  events: DomainEventPublisher;
  logger: Logger;
  /** The tenant's effective config (retention days): the same function every service and activity reads it through. */
  tenants: Pick<TenantService, 'effectiveConfig'>;
  /** Opens the notification's download link kept sealed with the recording (docs/decisions.md §7). */
  secretBox: SecretBox;
  /** What the download links may reach: the address guard of outgoing webhooks (docs/decisions.md §7). */
  ssrfPolicy: SsrfPolicy;
}

/** How long the link may take to answer when the activity has no heartbeat timeout (the workflow sets 15 s). */
const DEFAULT_ANSWER_WITHIN_MS = 7_500;

export function createRecordingActivities(deps: RecordingActivityDeps) {
  const { orm, store } = deps;

  return withSafeFailures({
    /**
     * One transfer attempt (src/modules/recordings/ingestion-transfer.ts), heartbeating `{ bytesDone, bytesTotal }` as
     * bytes flow: a worker that dies mid-way is noticed within the heartbeat timeout and the transfer starts over.
     * Input and result carry ids, keys of our bucket and sizes only (docs/decisions.md §13).
     */
    async storeRecordingFile(input: {
      recordingId: string;
      /** docs/decisions.md §7: transient failures are retried (by the activity's retry policy) until this has passed. */
      retryWindowSeconds: number;
    }): Promise<TransferredRecording> {
      const context = Context.current();
      // Half the heartbeat timeout: a link that never answers fails the attempt with an error of ours, which the window
      // check below sees, before a heartbeat timeout (which it never sees) could end it.
      const answerWithinMs = context.info.heartbeatTimeoutMs ? context.info.heartbeatTimeoutMs / 2 : DEFAULT_ANSWER_WITHIN_MS;
      try {
        return await transferRecording(orm.em.fork(), deps, input.recordingId, {
          signal: context.cancellationSignal,
          answerWithinMs,
          progress: (bytes) => context.heartbeat(bytes),
        });
      } catch (err) {
        throw failureWithinWindow(ingestionFailures.map(err), input.retryWindowSeconds, INGESTION_FAILURE.permanentIngestFailure);
      }
    },

    /**
     * `ready` with size and duration (src/modules/recordings/ingestion.ts markReady), and when its retention ends
     * (`purgeAt`, ISO 8601; null: nothing to purge), which the retention timer then starts from without a step of
     * its own.
     */
    async markRecordingReady(input: {
      recordingId: string;
      stored: StoredRecording;
      durationSeconds: number | null;
    }): Promise<{ changed: boolean; tenantId: string; purgeAt: string | null }> {
      // One entity manager: the deadline reads the recording markReady just loaded from its identity map, not again.
      const em = orm.em.fork();
      const marked = await ingestionFailures.run(() => markReady(em, store, input));
      const purgeAt = await retentionDeadline(em, deps.tenants, { recordingId: input.recordingId, tenantId: marked.tenantId });
      return { ...marked, purgeAt: purgeAt?.toISOString() ?? null };
    },

    /** `failed`, after the ingestion's retries are spent. Only a recording still waiting for its file changes. */
    async markRecordingFailed({ recordingId, reason }: { recordingId: string; reason: string }): Promise<{ changed: boolean }> {
      return markFailed(orm.em.fork(), recordingId, reason);
    },

    /** The auto-stop timer fired: stop the recording if it is still recording. */
    async autoStopRecording({ recordingId }: { recordingId: string }): Promise<{ stopped: boolean }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: recordingId });
      if (!recording || recording.status !== 'recording') return { stopped: false };
      // A provider that is down throws: retried by the activity's policy.
      await stopRecording(em, deps, recording);
      return { stopped: true };
    },

    /** A room ended or was deleted (workflows/room-recording-stop.ts): stop what still records it. Repeatable. */
    async stopClosedRoomRecording({ roomId }: { roomId: string }): Promise<{ stoppedRecordingId: string | null }> {
      // A provider that is down throws (an UpstreamError, never an HTTP error): retried by the activity's policy.
      const stopped = await stopClosedRoomRecording(orm.em.fork(), deps, roomId);
      return { stoppedRecordingId: stopped?.id ?? null };
    },

    /** When the recording's retention ends; null: nothing to purge (src/modules/recordings/retention.ts). */
    async retentionDeadline(input: { recordingId: string; tenantId?: string }): Promise<{ purgeAt: string | null }> {
      const purgeAt = await retentionDeadline(orm.em.fork(), deps.tenants, input);
      return { purgeAt: purgeAt?.toISOString() ?? null };
    },

    /** Retention ended: the stored file is removed (both tiers) and the recording marked deleted. Repeatable. */
    async purgeRecording(input: { recordingId: string; tenantId?: string }): Promise<{ purged: boolean }> {
      return purgeRecording(orm.em.fork(), store, input);
    },
  });
}

export type RecordingActivities = ReturnType<typeof createRecordingActivities>;

/** The ingestion stages' permanent failures as the workflow's non-retryable types; anything else as it is. */
const ingestionFailures = permanentFailures([
  [RecordingGone, INGESTION_FAILURE.recordingGone],
  [PermanentIngestFailure, INGESTION_FAILURE.permanentIngestFailure],
]);

// The provider's notifications (its signature already verified on the raw bytes, src/http/upstream-signature.ts):
// `recording.ready` imports the recording or moves it on, and hands its ingestion over (docs/decisions.md §7, §15).
// The recording's own lifecycle, as the API drives it, is recording.service.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import type { Logger } from '../../logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { RecordingReadyNotification } from '../../upstream/protocol.ts';
import { RoomSchema } from '../rooms/room.entity.ts';
import { importRecording } from './recording-import.ts';
import type { RecordingOrchestrator } from './recording.ports.ts';
import { signalStopped } from './recording-stop.ts';
import { sealNotifiedSource } from './recording-source.ts';
import { RecordingSchema, type Recording } from './recording.entity.ts';

export interface RecordingNotificationDeps {
  handovers: Handovers;
  /** INGEST_RETRY_WINDOW (docs/decisions.md §7), in seconds: part of every ingestion's input. */
  ingestRetryWindowSeconds: number;
  /** Seals the notification's download link kept with the recording (docs/decisions.md §7). */
  secretBox: SecretBox;
  /** Only the best-effort "stopped" signal to the auto-stop timer. */
  orchestrator: RecordingOrchestrator;
  logger: Logger;
}

export class RecordingNotifications {
  private readonly deps: RecordingNotificationDeps;

  constructor(deps: RecordingNotificationDeps) {
    this.deps = deps;
  }

  /**
   * The provider's `recording.ready` (signature already verified): import the recording when unknown, keep the
   * notification's download link sealed with it, and hand its ingestion over. A duplicate notification starts nothing new
   * (the workflow id is the recording's); its link, the newest, replaces the one kept.
   */
  async acceptReady(em: EntityManager, notification: RecordingReadyNotification): Promise<Recording> {
    const room = await em.findOne(RoomSchema, { id: notification.meeting_id });
    if (!room) throw notFound('Room');
    let stoppedByProvider = false;
    // The row (imported or moved to processing) and its ingestion's hand-over commit together (docs/decisions.md §15): the
    // caller answers 202 once they have, whether or not Temporal is reachable right now; the relay starts the run.
    const recording = await this.deps.handovers.transaction(em, async (tx) => {
      let found = await tx.findOne(RecordingSchema, { upstreamRecordingId: notification.recording_id });
      if (!found) {
        found = (
          await importRecording(tx, room, notification.recording_id, {
            status: 'processing',
            startedAt: null,
            stoppedAt: null,
            durationSeconds: notification.duration_seconds,
          })
        ).recording;
      } else if (found.room.id !== room.id) {
        throw notFound('Recording');
      }
      if (found.status === 'recording') {
        // The provider stopped it on its own (e.g. a limit of its own): it is processing now.
        found.status = 'processing';
        found.stoppedAt = new Date();
        await tx.flush();
        stoppedByProvider = true;
      }
      if (found.status === 'ready' || found.status === 'archived' || found.purgedAt) return found;
      // docs/decisions.md §7: the notification's link is where the file comes from. Sealed in the row (bound to this recording),
      // in the same transaction as the ingestion's hand-over, and read by the transfer activity: the workflow gets ids
      // only, so the link never lands in a workflow history (docs/decisions.md §13).
      found.sourceSealed = sealNotifiedSource(this.deps.secretBox, found.id, notification);
      // The provider's final figure, as its REST API would give it to the transfer (our stop time is only an estimate).
      found.durationSeconds = notification.duration_seconds;
      await tx.flush();
      const start = starts.ingestion({
        recordingId: found.id,
        tenantId: room.tenant.id,
        room,
        upstreamRecordingId: notification.recording_id,
        retryWindowSeconds: this.deps.ingestRetryWindowSeconds,
      });
      await this.deps.handovers.record(tx, start);
      return found;
    });
    if (stoppedByProvider) void signalStopped(this.deps, recording.id);
    return recording;
  }
}

// Every workflow start a request or an activity hands over (docs/decisions.md §15), in one table: id (workflows/shared.ts),
// ids-only input, search attributes and summary (docs/decisions.md §13), and what a run already using the id means.
import {
  emptyRoomWorkflowId,
  postMeetingWorkflowId,
  presenceSignal,
  recordingAutoStopWorkflowId,
  recordingIngestWorkflowId,
  roomLabel,
  roomRecordingStopWorkflowId,
  tenantPurgeWorkflowId,
  transcriptionWorkflowId,
  webhookDeliveryWorkflowId,
} from '../../workflows/shared.ts';
import type { HandoverStart } from './handover.ts';

type RoomRef = { id: string; name?: string | null };

export const starts = {
  /**
   * Ingestion of a recording (docs/decisions.md §7). A running one is reused (a duplicate notification starts nothing new), a
   * completed one is not repeated, a failed one may run again; `restart` (Recover) replaces a running one.
   */
  ingestion(s: { recordingId: string; tenantId: string; room: RoomRef; upstreamRecordingId: string; retryWindowSeconds: number; restart?: boolean }): HandoverStart {
    return {
      workflowType: 'recordingIngestWorkflow',
      workflowId: recordingIngestWorkflowId(s.recordingId),
      args: [{ recordingId: s.recordingId, tenantId: s.tenantId, roomId: s.room.id, upstreamRecordingId: s.upstreamRecordingId, retryWindowSeconds: s.retryWindowSeconds }],
      subject: { tenantId: s.tenantId, roomId: s.room.id, recordingId: s.recordingId },
      summary: `ingest recording ${s.recordingId} of room ${roomLabel(s.room)}`,
      details: `upstream recording ${s.upstreamRecordingId}; transient failures retried for ${s.retryWindowSeconds} s (INGEST_RETRY_WINDOW)`,
      ...(s.restart ? { conflict: 'TERMINATE_EXISTING', reuse: 'ALLOW_DUPLICATE' } : { conflict: 'USE_EXISTING', reuse: 'ALLOW_DUPLICATE_FAILED_ONLY' }),
    };
  },

  /** The durable timer that stops a recording at the tenant's max_recording_duration_minutes. */
  autoStop(s: { recordingId: string; tenantId: string; room: RoomRef; maxDurationMinutes: number }): HandoverStart {
    return {
      workflowType: 'recordingAutoStopWorkflow',
      workflowId: recordingAutoStopWorkflowId(s.recordingId),
      args: [{ recordingId: s.recordingId, maxDurationMinutes: s.maxDurationMinutes, tenantId: s.tenantId, roomId: s.room.id }],
      subject: { tenantId: s.tenantId, roomId: s.room.id, recordingId: s.recordingId },
      summary: `stop recording ${s.recordingId} of room ${roomLabel(s.room)} after ${s.maxDurationMinutes} min`,
    };
  },

  /** A room ended or was deleted: stop what still records it (docs/decisions.md §6). */
  roomRecordingStop(s: { tenantId: string; room: RoomRef; how: 'ended' | 'deleted' }): HandoverStart {
    return {
      workflowType: 'roomRecordingStopWorkflow',
      workflowId: roomRecordingStopWorkflowId(s.room.id),
      args: [{ tenantId: s.tenantId, roomId: s.room.id }],
      subject: { tenantId: s.tenantId, roomId: s.room.id },
      summary: `stop the recording of ${s.how} room ${roomLabel(s.room)}`,
      // An ended room is not re-opened, so one run per room; a closed run did the work.
    };
  },

  /**
   * A new room's empty-room timer (docs/decisions.md §6): it counts from creation. Signal-with-start with seq 0, which never
   * overrides a real presence change (workflows/empty-room.ts orders them by seq).
   */
  emptyRoomTimer(s: { tenantId: string; roomId: string }): HandoverStart {
    return {
      workflowType: 'emptyRoomWorkflow',
      workflowId: emptyRoomWorkflowId(s.roomId),
      args: [{ tenantId: s.tenantId, roomId: s.roomId }],
      subject: { tenantId: s.tenantId, roomId: s.roomId },
      summary: `end room ${s.roomId} once it has been empty for the tenant's empty_room_timeout_minutes`,
      signal: { name: presenceSignal.name, args: [{ present: false, seq: 0 }] },
    };
  },

  /** The stored files of a deleted tenant (docs/decisions.md §5, §15: the purge refuses while the tenant's row exists). */
  tenantPurge(s: { tenantId: string }): HandoverStart {
    return {
      workflowType: 'tenantPurgeWorkflow',
      workflowId: tenantPurgeWorkflowId(s.tenantId),
      args: [{ tenantId: s.tenantId }],
      subject: { tenantId: s.tenantId },
      summary: `delete the stored files of deleted tenant ${s.tenantId}`,
    };
  },

  /**
   * Post-meeting re-run `run` (≥ 2) of a recording (POST /recordings/{id}/post-meeting, docs/decisions.md §9): recorded in the
   * transaction that starts the result row over as this run. `post-meeting-<recording>-<run>`: one run per n, so a start
   * relayed twice finds the run (USE_EXISTING) or its closed run (REJECT_DUPLICATE) and never processes twice.
   */
  postMeetingRerun(s: { recordingId: string; tenantId: string; room: RoomRef; run: number; retranscribe: boolean }): HandoverStart {
    return {
      workflowType: 'postMeetingWorkflow',
      workflowId: postMeetingWorkflowId(s.recordingId, s.run),
      args: [{ recordingId: s.recordingId, run: s.run }],
      subject: { tenantId: s.tenantId, roomId: s.room.id, recordingId: s.recordingId },
      summary: `post-meeting re-run ${s.run} of recording ${s.recordingId} of room ${roomLabel(s.room)}${s.retranscribe ? ' (transcribe again)' : ''}`,
      conflict: 'USE_EXISTING',
      reuse: 'REJECT_DUPLICATE',
    };
  },

  /** One transcript (Queue Transcription, docs/decisions.md §9). */
  transcription(s: { transcriptId: string; tenantId: string; roomId: string; recordingId: string }): HandoverStart {
    return {
      workflowType: 'transcriptionWorkflow',
      workflowId: transcriptionWorkflowId(s.transcriptId),
      args: [{ transcriptId: s.transcriptId }],
      subject: { tenantId: s.tenantId, roomId: s.roomId, recordingId: s.recordingId },
      summary: `transcribe recording ${s.recordingId} (transcript ${s.transcriptId})`,
    };
  },

  /**
   * One webhook delivery (docs/decisions.md §10): post-meeting's, or a re-send. The schedule is fixed at creation, in the input:
   * a run is deterministic whatever the config becomes.
   */
  webhookDelivery(s: {
    deliveryId: string;
    event: string;
    tenantId: string;
    roomId: string | null;
    recordingId: string | null;
    resentFrom?: string | null;
    retryDelaysSeconds: number[];
  }): HandoverStart {
    return {
      workflowType: 'webhookDeliveryWorkflow',
      workflowId: webhookDeliveryWorkflowId(s.deliveryId),
      args: [{ deliveryId: s.deliveryId, retryDelaysSeconds: s.retryDelaysSeconds }],
      subject: { tenantId: s.tenantId, roomId: s.roomId, recordingId: s.recordingId, deliveryId: s.deliveryId },
      summary: `deliver ${s.event} ${s.deliveryId}${s.resentFrom ? ` (re-send of ${s.resentFrom})` : s.recordingId ? ` of recording ${s.recordingId}` : ''}`,
    };
  },
};

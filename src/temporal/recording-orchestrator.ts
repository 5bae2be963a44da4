// The API side of the recording workflows: starts and signals them through the Temporal client. Workflow ids come
// from workflows/shared.ts, derived from the recording, so a repeated start finds the first run instead of a second.
// Every start carries the recording's search attributes and a one-line summary (DECISIONS §13), and ids only.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { metrics } from '../metrics/metrics.ts';
import type { postMeetingWorkflow } from '../../workflows/post-meeting.ts';
import type { recordingAutoStopWorkflow } from '../../workflows/recording-autostop.ts';
import type { recordingIngestWorkflow } from '../../workflows/recording-ingest.ts';
import type { roomRecordingStopWorkflow } from '../../workflows/room-recording-stop.ts';
import {
  postMeetingWorkflowId,
  recordingAutoStopWorkflowId,
  recordingIngestWorkflowId,
  recordingStoppedSignal,
  roomLabel,
  roomRecordingStopWorkflowId,
  searchAttributesFor,
} from '../../workflows/shared.ts';

/** The recording a workflow acts on, with what its search attributes and summary name. */
export interface RecordingSubject {
  recordingId: string;
  tenantId: string;
  room: { id: string; name?: string | null };
}

export interface RecordingOrchestrator {
  /**
   * Starts ingestion of a recording. A run already in progress is reused (a duplicate notification starts nothing
   * new), and a recording ingested successfully is not ingested again; with `restart` (Recover) a running ingestion
   * is replaced by a fresh one. The workflow asks the provider for the file's link itself (DECISIONS §13).
   */
  startIngestion(subject: RecordingSubject & { upstreamRecordingId: string }, options?: { restart?: boolean }): Promise<void>;
  /** Starts the durable timer that stops the recording at the tenant's maximum duration. */
  startAutoStop(subject: RecordingSubject, maxDurationMinutes: number): Promise<void>;
  /** Tells the auto-stop timer the recording has been stopped (it then ends quietly). Best effort. */
  recordingStopped(recordingId: string): Promise<void>;
  /**
   * Starts the run that stops what records a room that is ending or being deleted. Called inside that transaction:
   * the run waits for its outcome. A run already in progress for the room is reused.
   */
  startRoomRecordingStop(subject: { tenantId: string; room: { id: string; name?: string | null } }): Promise<void>;
  /**
   * Starts post-meeting re-run `run` (≥ 2) of a recording, `post-meeting-<recording>-<run>` (DECISIONS §9). A run with
   * that id already in progress is reused (a repeated request). Resolves once the start is durable.
   */
  startPostMeetingRerun(subject: RecordingSubject, rerun: { run: number; retranscribe: boolean }): Promise<{ workflowId: string }>;
}

const ROOM_STOP_START_DEADLINE_MS = 5000;

export interface RecordingOrchestratorOptions {
  /** INGEST_RETRY_WINDOW (DECISIONS §7): how long ingestion retries transient failures, in seconds. */
  ingestRetryWindowSeconds: number;
}

export class TemporalRecordingOrchestrator implements RecordingOrchestrator {
  readonly #client: Client;
  readonly #taskQueue: string;
  readonly #options: RecordingOrchestratorOptions;

  constructor(client: Client, taskQueue: string, options: RecordingOrchestratorOptions) {
    this.#client = client;
    this.#taskQueue = taskQueue;
    this.#options = options;
  }

  async startIngestion(
    subject: RecordingSubject & { upstreamRecordingId: string },
    options: { restart?: boolean } = {},
  ): Promise<void> {
    const { recordingId, tenantId, room, upstreamRecordingId } = subject;
    try {
      await this.#client.workflow.start<typeof recordingIngestWorkflow>('recordingIngestWorkflow', {
        taskQueue: this.#taskQueue,
        workflowId: recordingIngestWorkflowId(recordingId),
        args: [{ recordingId, tenantId, roomId: room.id, upstreamRecordingId, retryWindowSeconds: this.#options.ingestRetryWindowSeconds }],
        typedSearchAttributes: searchAttributesFor({ tenantId, roomId: room.id, recordingId }),
        staticSummary: `ingest recording ${recordingId} of room ${roomLabel(room)}`,
        staticDetails: `upstream recording ${upstreamRecordingId}; transient failures retried for ${this.#options.ingestRetryWindowSeconds} s (INGEST_RETRY_WINDOW)`,
        ...(options.restart
          ? { workflowIdConflictPolicy: 'TERMINATE_EXISTING', workflowIdReusePolicy: 'ALLOW_DUPLICATE' }
          : { workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' }),
      } as const);
      metrics.workflowStarted('recordingIngestWorkflow');
    } catch (err) {
      // The last run completed: the recording is stored already, nothing to start.
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      throw err;
    }
  }

  async startAutoStop({ recordingId, tenantId, room }: RecordingSubject, maxDurationMinutes: number): Promise<void> {
    await this.#client.workflow.start<typeof recordingAutoStopWorkflow>('recordingAutoStopWorkflow', {
      taskQueue: this.#taskQueue,
      workflowId: recordingAutoStopWorkflowId(recordingId),
      args: [{ recordingId, maxDurationMinutes, tenantId, roomId: room.id }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: searchAttributesFor({ tenantId, roomId: room.id, recordingId }),
      staticSummary: `stop recording ${recordingId} of room ${roomLabel(room)} after ${maxDurationMinutes} min`,
    });
    metrics.workflowStarted('recordingAutoStopWorkflow');
  }

  async startRoomRecordingStop({ tenantId, room }: { tenantId: string; room: { id: string; name?: string | null } }): Promise<void> {
    // Bounded: the caller holds the room's row lock meanwhile (an unreachable server fails the end, it does not hang it).
    await this.#client.withDeadline(Date.now() + ROOM_STOP_START_DEADLINE_MS, () =>
      this.#client.workflow.start<typeof roomRecordingStopWorkflow>('roomRecordingStopWorkflow', {
        taskQueue: this.#taskQueue,
        workflowId: roomRecordingStopWorkflowId(room.id),
        args: [{ tenantId, roomId: room.id }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: searchAttributesFor({ tenantId, roomId: room.id }),
        staticSummary: `stop the recording of ended room ${roomLabel(room)}`,
      }),
    );
    metrics.workflowStarted('roomRecordingStopWorkflow');
  }

  // HANDOVER: the one place a post-meeting re-run is started (POST /recordings/{id}/post-meeting). It writes no row
  // first: the run's plan step takes the result row over (conditionally), so there is nothing to lose between a commit
  // and this start; route it through the outbox at merge if every start must go that way (DECISIONS §15).
  async startPostMeetingRerun({ recordingId, tenantId, room }: RecordingSubject, rerun: { run: number; retranscribe: boolean }): Promise<{ workflowId: string }> {
    const workflowId = postMeetingWorkflowId(recordingId, rerun.run);
    await this.#client.workflow.start<typeof postMeetingWorkflow>('postMeetingWorkflow', {
      taskQueue: this.#taskQueue,
      workflowId,
      args: [{ recordingId, run: rerun.run, retranscribe: rerun.retranscribe }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: searchAttributesFor({ tenantId, roomId: room.id, recordingId }),
      staticSummary: `post-meeting re-run ${rerun.run} of recording ${recordingId} of room ${roomLabel(room)}${rerun.retranscribe ? ' (transcribe again)' : ''}`,
    });
    metrics.workflowStarted('postMeetingWorkflow');
    return { workflowId };
  }

  async recordingStopped(recordingId: string): Promise<void> {
    await this.#client.workflow.getHandle(recordingAutoStopWorkflowId(recordingId)).signal(recordingStoppedSignal);
  }
}

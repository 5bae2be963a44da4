// The API side of the recording workflows: starts and signals them through the Temporal client. Workflow ids come
// from workflows/shared.ts, derived from the recording, so a repeated start finds the first run instead of a second.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { metrics } from '../../metrics/metrics.ts';
import type { recordingAutoStopWorkflow } from '../../../workflows/recording-autostop.ts';
import type { recordingIngestWorkflow } from '../../../workflows/recording-ingest.ts';
import {
  recordingAutoStopWorkflowId,
  recordingIngestWorkflowId,
  recordingStoppedSignal,
  type RecordingSource,
} from '../../../workflows/shared.ts';

export interface RecordingOrchestrator {
  /**
   * Starts ingestion of a recording. A run already in progress is reused (a duplicate notification starts nothing
   * new), and a recording ingested successfully is not ingested again; with `restart` (Recover) a running ingestion
   * is replaced by a fresh one.
   */
  startIngestion(recordingId: string, source: RecordingSource | undefined, options?: { restart?: boolean }): Promise<void>;
  /** Starts the durable timer that stops the recording at the tenant's maximum duration. */
  startAutoStop(recordingId: string, maxDurationMinutes: number): Promise<void>;
  /** Tells the auto-stop timer the recording has been stopped (it then ends quietly). Best effort. */
  recordingStopped(recordingId: string): Promise<void>;
}

export class TemporalRecordingOrchestrator implements RecordingOrchestrator {
  readonly #client: Client;
  readonly #taskQueue: string;

  constructor(client: Client, taskQueue: string) {
    this.#client = client;
    this.#taskQueue = taskQueue;
  }

  async startIngestion(recordingId: string, source: RecordingSource | undefined, options: { restart?: boolean } = {}): Promise<void> {
    try {
      await this.#client.workflow.start<typeof recordingIngestWorkflow>('recordingIngestWorkflow', {
        taskQueue: this.#taskQueue,
        workflowId: recordingIngestWorkflowId(recordingId),
        args: [{ recordingId, ...(source ? { source } : {}) }],
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

  async startAutoStop(recordingId: string, maxDurationMinutes: number): Promise<void> {
    await this.#client.workflow.start<typeof recordingAutoStopWorkflow>('recordingAutoStopWorkflow', {
      taskQueue: this.#taskQueue,
      workflowId: recordingAutoStopWorkflowId(recordingId),
      args: [{ recordingId, maxDurationMinutes }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    metrics.workflowStarted('recordingAutoStopWorkflow');
  }

  async recordingStopped(recordingId: string): Promise<void> {
    await this.#client.workflow.getHandle(recordingAutoStopWorkflowId(recordingId)).signal(recordingStoppedSignal);
  }
}

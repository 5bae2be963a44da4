// The API side of the transcription workflow: starts one run per transcript through the Temporal client. The id comes
// from workflows/shared.ts (derived from the transcript), with the search attributes and the one-line summary every
// start carries (DECISIONS §13). Ids only in the input: the activities resolve keys and settings themselves.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { metrics } from '../metrics/metrics.ts';
import type { transcriptionWorkflow } from '../../workflows/transcription.ts';
import { searchAttributesFor, transcriptionWorkflowId } from '../../workflows/shared.ts';

export interface TranscriptionStart {
  transcriptId: string;
  tenantId: string;
  roomId: string;
  recordingId: string;
}

export interface TranscriptionOrchestrator {
  /** Starts the transcript's workflow; resolves once the start is durable. A repeated start finds the first run. */
  startTranscription(start: TranscriptionStart): Promise<void>;
}

export class TemporalTranscriptionOrchestrator implements TranscriptionOrchestrator {
  readonly #client: Client;
  readonly #taskQueue: string;

  constructor(client: Client, taskQueue: string) {
    this.#client = client;
    this.#taskQueue = taskQueue;
  }

  async startTranscription({ transcriptId, tenantId, roomId, recordingId }: TranscriptionStart): Promise<void> {
    try {
      await this.#client.workflow.start<typeof transcriptionWorkflow>('transcriptionWorkflow', {
        taskQueue: this.#taskQueue,
        workflowId: transcriptionWorkflowId(transcriptId),
        args: [{ transcriptId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: searchAttributesFor({ tenantId, roomId, recordingId }),
        staticSummary: `transcribe recording ${recordingId} (transcript ${transcriptId})`,
      });
      metrics.workflowStarted('transcriptionWorkflow');
    } catch (err) {
      // The transcript's run finished already: nothing to start.
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      throw err;
    }
  }
}

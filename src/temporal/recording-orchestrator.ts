// The API side's signal to the recording workflows. Starts are not made here: every workflow a request implies is
// recorded with its change and relayed (src/handover/, docs/decisions.md §15). What remains is news for a running workflow,
// best effort by design: the auto-stop timer re-reads the recording before it stops anything.
import type { Client } from '@temporalio/client';
import type { RecordingOrchestrator } from '../modules/recordings/recording.ports.ts';
import { recordingAutoStopWorkflowId, recordingStoppedSignal } from '../../workflows/shared.ts';

export class TemporalRecordingOrchestrator implements RecordingOrchestrator {
  private readonly client: Client;

  constructor(client: Client) {
    this.client = client;
  }

  async recordingStopped(recordingId: string): Promise<void> {
    await this.client.workflow.getHandle(recordingAutoStopWorkflowId(recordingId)).signal(recordingStoppedSignal);
  }
}

// Ending or deleting a room stops its recording (docs/decisions.md §6), durably. The ending or deleting transaction records
// this run's hand-over (src/handover/, docs/decisions.md §15), so it starts once that transaction has committed, even after a
// crash; its activity re-reads the room (under its row lock) and stops nothing while the room is active.
// Id: room-recording-stop-<roomId>.
import { getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { OUTSIDE_SERVICE_STEP_RETRY, recordingAutoStopWorkflowId, recordingStoppedSignal, type RoomRecordingStopInput } from './shared.ts';

// The database and the provider: retried until both answer (docs/decisions.md §15), a recording is never left running.
const { stopClosedRoomRecording } = proxyActivities<RecordingActivities>({
  summary: 'stop what still records the room, at the provider',
  startToCloseTimeout: '1 minute',
  retry: OUTSIDE_SERVICE_STEP_RETRY,
});

export async function roomRecordingStopWorkflow(input: RoomRecordingStopInput): Promise<{ stoppedRecordingId: string | null }> {
  const { stoppedRecordingId } = await stopClosedRoomRecording({ roomId: input.roomId });
  if (stoppedRecordingId) {
    // The recording's auto-stop timer has nothing left to do (were the signal lost, it would find it stopped anyway).
    await getExternalWorkflowHandle(recordingAutoStopWorkflowId(stoppedRecordingId))
      .signal(recordingStoppedSignal)
      .catch(() => undefined);
  }
  return { stoppedRecordingId };
}

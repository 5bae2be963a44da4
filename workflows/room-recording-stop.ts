// Ending or deleting a room stops its recording (DECISIONS §6), durably. RoomService starts this run inside the
// transaction that ends or deletes the room; its activity first waits for that transaction to finish (the room row's
// lock) and stops nothing if it rolled back. A crash after the commit therefore cannot leave a recording running.
// Id: room-recording-stop-<roomId>.
import { getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { recordingAutoStopWorkflowId, recordingStoppedSignal, type RoomRecordingStopInput } from './shared.ts';

const { stopClosedRoomRecording } = proxyActivities<RecordingActivities>({
  summary: 'stop what still records the room, at the provider',
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
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

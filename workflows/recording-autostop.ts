// Stops a recording at the tenant's max_recording_duration_minutes: a durable timer that survives restarts of
// every process. Stop Recording signals it, and it ends without doing anything. Id: recording-autostop-<recordingId>.
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { recordingStoppedSignal, type AutoStopInput } from './shared.ts';

const { autoStopRecording } = proxyActivities<RecordingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

export async function recordingAutoStopWorkflow(input: AutoStopInput): Promise<{ autoStopped: boolean }> {
  let stopped = false;
  setHandler(recordingStoppedSignal, () => {
    stopped = true;
  });
  if (await condition(() => stopped, input.maxDurationMinutes * 60_000)) return { autoStopped: false };
  // The activity checks the recording is still recording: a lost signal stops nothing twice.
  return { autoStopped: (await autoStopRecording({ recordingId: input.recordingId })).stopped };
}

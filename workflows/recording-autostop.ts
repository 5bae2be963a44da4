// Stops a recording at the tenant's max_recording_duration_minutes: a durable timer that survives restarts of
// every process. Stop Recording signals it, and it ends without doing anything. Id: recording-autostop-<recordingId>.
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { OUTSIDE_SERVICE_STEP_RETRY, recordingStoppedSignal, type AutoStopInput } from './shared.ts';

// The database and the provider: retried until both answer (docs/decisions.md §15).
const { autoStopRecording } = proxyActivities<RecordingActivities>({
  summary: 'stop the recording at the provider',
  startToCloseTimeout: '30 seconds',
  retry: OUTSIDE_SERVICE_STEP_RETRY,
});

export async function recordingAutoStopWorkflow(input: AutoStopInput): Promise<{ autoStopped: boolean }> {
  let stopped = false;
  setHandler(recordingStoppedSignal, () => {
    stopped = true;
  });
  const limit = input.maxDurationMinutes * 60_000;
  // Workflow time: deterministic. The summary names the moment, so the UI's timer is not an anonymous countdown.
  const at = new Date(Date.now() + limit).toISOString();
  if (await condition(() => stopped, limit, { summary: `auto-stop at ${at} (max ${input.maxDurationMinutes} min)` })) {
    return { autoStopped: false };
  }
  // The activity checks the recording is still recording: a lost signal stops nothing twice.
  return { autoStopped: (await autoStopRecording({ recordingId: input.recordingId })).stopped };
}

// Purges a recording's stored file when the tenant's recording_retention_days have passed since it was created.
// The deadline is re-read after each sleep, so a tenant that lengthens its retention keeps its files longer.
// Id: recording-retention-<recordingId>.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import type { RetentionInput } from './shared.ts';

const { retentionDeadline, purgeRecording } = proxyActivities<RecordingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 50 },
});

export async function recordingRetentionWorkflow(input: RetentionInput): Promise<{ purged: boolean }> {
  for (;;) {
    const { purgeAt } = await retentionDeadline(input);
    if (purgeAt === null) return { purged: false };
    const wait = purgeAt - Date.now(); // workflow time: deterministic, and skipped by the time-skipping test server
    if (wait > 0) {
      await sleep(wait);
      continue;
    }
    return purgeRecording(input);
  }
}

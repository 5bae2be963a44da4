// Purges a recording's stored file when the tenant's recording_retention_days have passed since it was created.
// The deadline is re-read after each sleep, so a tenant that lengthens its retention keeps its files longer. The first
// one comes in the input (ingestion read it when it marked the recording ready); runs started before that read it first.
// Id: recording-retention-<recordingId>.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { RecordingActivities } from '../src/activities/recordings.ts';
import { DATABASE_STEP_RETRY, type RetentionInput } from './shared.ts';

// The database and S3: retried until both answer (docs/decisions.md §15); a purge is an obligation, not an attempt.
const options = { startToCloseTimeout: '1 minute', retry: { ...DATABASE_STEP_RETRY, maximumInterval: '10 minutes' } } as const;
const { retentionDeadline } = proxyActivities<RecordingActivities>({ ...options, summary: "read the tenant's retention deadline" });
const { purgeRecording } = proxyActivities<RecordingActivities>({ ...options, summary: 'purge the stored file (both tiers)' });

export async function recordingRetentionWorkflow(input: RetentionInput): Promise<{ purged: boolean }> {
  // The deadline the ingestion read when it marked the recording ready, if it passed one: the first sleep needs no step.
  let given = input.purgeAt;
  for (;;) {
    const { purgeAt } = given !== undefined ? { purgeAt: given } : await retentionDeadline({ recordingId: input.recordingId, tenantId: input.tenantId });
    given = undefined;
    if (purgeAt === null) return { purged: false };
    // Runs started before purgeAt became ISO 8601 replay an epoch number from their history: read both.
    const at = typeof purgeAt === 'number' ? purgeAt : Date.parse(purgeAt);
    const wait = at - Date.now(); // workflow time: deterministic, and skipped by the time-skipping test server
    if (wait > 0) {
      await sleep(wait, { summary: `retention until ${new Date(at).toISOString()}` });
      continue;
    }
    return purgeRecording({ recordingId: input.recordingId, tenantId: input.tenantId });
  }
}

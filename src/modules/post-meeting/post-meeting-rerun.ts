// A post-meeting re-run's start (docs/decisions.md §9 "Outages and re-runs"): the result row is started over as run n in the
// same transaction that records the run's hand-over (docs/decisions.md §15), so a row that says "run n, running" always has
// run n on its way, and the re-run's workflow only finds its row ready (workflows/post-meeting.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { TranscriptSchema } from '../transcripts/transcript.entity.ts';
import { PostMeetingResultSchema } from './post-meeting-result.entity.ts';

/**
 * Starts the completed result of `recordingId` over as run `run` (the row's run + 1): no summary, no errors, and the
 * transcript kept only when it is completed (its own, else the newest completed one of the recording) and
 * `retranscribe` is not set. Conditional on the row still being the completed run before `run`, so two requests racing
 * for the same n start it over once. False when the row was not in that state (another request won, or a run is
 * in progress).
 */
export async function startPostMeetingOver(tx: EntityManager, recordingId: string, run: number, retranscribe: boolean): Promise<boolean> {
  const row = await tx.findOne(PostMeetingResultSchema, { recording: recordingId }, { populate: ['transcript'] });
  if (!row || row.status !== 'completed' || row.run !== run - 1) return false;
  const kept = retranscribe ? null : await completedTranscriptOf(tx, recordingId, row.transcript ?? null);
  const changed = await tx.nativeUpdate(
    PostMeetingResultSchema,
    { recording: recordingId, run: run - 1, status: 'completed' },
    { run, status: 'running', transcript: kept?.id ?? null, summary: null, actionItems: null, errors: [], completedAt: null, updatedAt: new Date() },
  );
  return changed === 1;
}

/** The transcript a re-run keeps: the row's own when completed, else the newest completed one of the recording. */
async function completedTranscriptOf(tx: EntityManager, recordingId: string, own: { id: string; status: string } | null): Promise<{ id: string } | null> {
  if (own?.status === 'completed') return own;
  return tx.findOne(TranscriptSchema, { recording: recordingId, status: 'completed' }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

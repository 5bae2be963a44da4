import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { RecordingSchema } from '../recordings/recording.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import { TranscriptSchema } from '../transcripts/transcript.entity.ts';

/** docs/decisions.md §9: a failed step is recorded, never stops the others. */
export type PostMeetingErrorCode = 'transcription_failed' | 'ai_processing_failed' | 'recording_unavailable';
export interface PostMeetingError {
  field: 'recording' | 'transcript' | 'summary' | 'action_items';
  code: PostMeetingErrorCode;
  message: string;
}

/**
 * What post-meeting processing produced for one recording: the transcript it made, the summary and action items,
 * and the steps that failed. The outgoing webhook (deliveries) builds its payload from this row.
 */
export const PostMeetingResultSchema = defineEntity({
  name: 'PostMeetingResult',
  tableName: 'post_meeting_results',
  properties: {
    recording: () => p.oneToOne(RecordingSchema).primary().deleteRule('cascade'),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    roomId: p.uuid(),
    /** `running` while the workflow works, `completed` once every step has finished (well or not). */
    status: p.string().length(16).$type<'running' | 'completed'>(),
    /**
     * Which run of post-meeting processing the row holds: 1 for the run ingestion started, n for the re-run
     * `post-meeting-<recording>-<n>` (docs/decisions.md §9 "Outages and re-runs"). A re-run starts the row over.
     */
    run: p.integer().default(1),
    transcript: () => p.manyToOne(TranscriptSchema).nullable().deleteRule('set null'),
    summary: p.text().nullable(),
    actionItems: p.json<string[]>().nullable(),
    errors: p.json<PostMeetingError[]>().default('[]'),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type PostMeetingResult = InferEntity<typeof PostMeetingResultSchema>;

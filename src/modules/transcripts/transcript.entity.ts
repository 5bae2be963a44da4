import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7 } from 'uuid';
import { RecordingSchema, type Recording } from '../recordings/recording.entity.ts';
import { RoomSchema } from '../rooms/room.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';

/** docs/decisions.md §9: pending → processing → completed | failed (with a reason). */
export type TranscriptStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** Who asked for it: Queue Transcription (`request`) or the post-meeting workflow (`post_meeting`). */
export type TranscriptOrigin = 'request' | 'post_meeting';

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  /** The provider's label, or `speaker_0` when it gives none (docs/decisions.md §9). */
  speaker: string;
}

export const TranscriptSchema = defineEntity({
  name: 'Transcript',
  tableName: 'transcripts',
  indexes: [
    {
      name: 'transcripts_recording_index',
      expression: 'create index "transcripts_recording_index" on "transcripts" ("recording_id", "created_at" desc)',
    },
    {
      name: 'transcripts_room_index',
      expression: `create index "transcripts_room_index" on "transcripts" ("room_id", "created_at" desc) where "origin" = 'post_meeting'`,
    },
  ],
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    room: () => p.manyToOne(RoomSchema).deleteRule('cascade'),
    recording: () => p.manyToOne(RecordingSchema).deleteRule('cascade'),
    origin: p.string().length(16).$type<TranscriptOrigin>(),
    status: p.string().length(16).$type<TranscriptStatus>(),
    /** Provider id from the registry (`openai`, `deepgram`). */
    provider: p.string().length(64),
    /** BCP 47 tag sent to (or detected by) the provider. */
    language: p.string().length(35).nullable(),
    /** `{ segments: [{start, end, text, speaker}] }`; null until completed. */
    content: p.json<{ segments: TranscriptSegment[] }>().nullable(),
    /** The segments' text joined, for the webhook payload. */
    text: p.text().nullable(),
    wordCount: p.integer().nullable(),
    /** Why it failed (shown to operators and in the webhook's errors[]; never a secret). */
    failureReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type Transcript = InferEntity<typeof TranscriptSchema>;

/**
 * A queued transcript of a recording (docs/decisions.md §9: it starts `pending`, nothing produced yet). The one way a transcript
 * row is made, by Queue Transcription and by post-meeting processing alike; the caller flushes.
 */
export function createPendingTranscript(em: EntityManager, recording: Recording, origin: TranscriptOrigin, provider: string): Transcript {
  return em.create(TranscriptSchema, {
    id: uuidv7(),
    tenant: recording.tenant,
    room: recording.room,
    recording,
    origin,
    status: 'pending',
    provider,
    language: null,
    content: null,
    text: null,
    wordCount: null,
    failureReason: null,
  });
}

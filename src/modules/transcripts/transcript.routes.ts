import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { handler, type Handlers } from '../../http/handler.ts';
import { redactSecrets } from '../../security/redact.ts';
import type { Transcript } from './transcript.entity.ts';
import type { TranscriptService } from './transcript.service.ts';

type Schemas = components['schemas'];

export function transcriptView(t: Transcript): Schemas['Transcript'] {
  return {
    id: t.id,
    recording_id: t.recording.id,
    room_id: t.room.id,
    status: t.status,
    provider: t.provider,
    content: t.status === 'completed' && t.content ? { segments: t.content.segments } : null,
    failure_reason: failureReasonOf(t),
    created_at: t.createdAt.toISOString(),
    completed_at: t.completedAt ? t.completedAt.toISOString() : null,
  };
}

/**
 * Why a failed transcript failed (docs/decisions.md §9), null otherwise. Stored reasons are redacted when written; redacted
 * again here, so no row written before that (or by another path) can show a signed URL or a key.
 */
export function failureReasonOf(t: Transcript): string | null {
  if (t.status !== 'failed') return null;
  return redactSecrets(t.failureReason ?? 'the transcription failed (no reason was recorded)').slice(0, 2000);
}

// Thin handlers: read the typed input, call the service (which checks access), shape the answer as the spec says.
export function transcriptRoutes(deps: { transcripts: TranscriptService; em: () => EntityManager }): Handlers {
  const { transcripts, em } = deps;

  return {
    queueTranscription: handler<'queueTranscription'>(async ({ params, body }, principal) => {
      const t = await transcripts.queue(em(), principal, params.id, body ?? {});
      return { status: 202, body: { transcript_id: t.id, status: 'pending' } };
    }),
    getTranscript: handler<'getTranscript'>(async ({ params }, principal) => ({
      status: 200,
      body: { data: transcriptView(await transcripts.get(em(), principal, params.id)) },
    })),
    getRecordingTranscript: handler<'getRecordingTranscript'>(async ({ params }, principal) => ({
      status: 200,
      body: { data: transcriptView(await transcripts.forRecording(em(), principal, params.id)) },
    })),
    listTranscriptionProviders: handler<'listTranscriptionProviders'>(() => ({ status: 200, body: transcripts.listProviders() })),
    listPostMeetingTranscripts: handler<'listPostMeetingTranscripts'>(async ({ params }, principal) => {
      const list = await transcripts.postMeetingOfRoom(em(), principal, params.id);
      return {
        status: 200,
        body: {
          data: list.map((t) => ({
            id: t.id,
            recording_id: t.recording.id,
            status: t.status,
            provider: t.provider,
            failure_reason: failureReasonOf(t),
            created_at: t.createdAt.toISOString(),
          })),
        },
      };
    }),
  };
}

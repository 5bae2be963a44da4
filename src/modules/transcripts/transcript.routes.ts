import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { ApiError } from '../../domain/errors.ts';
import type { OperationHandlers } from '../../http/router.ts';
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
    created_at: t.createdAt.toISOString(),
    completed_at: t.completedAt ? t.completedAt.toISOString() : null,
  };
}

// Thin handlers: read the request, call the service, shape the answer exactly as spec/openapi.yaml says.
export function transcriptRoutes(deps: { transcripts: TranscriptService; em: () => EntityManager }): OperationHandlers {
  const { transcripts, em } = deps;
  const id = (params: Record<string, unknown>) => params.id as string;

  return {
    queueTranscription: async (req, res) => {
      const t = await transcripts.queue(em(), req.principal!, id(req.params), req.body as { room_id: string; provider?: string });
      res.status(202).json({ transcript_id: t.id, status: 'pending' });
    },
    getTranscript: async (req, res) => {
      res.json({ data: transcriptView(await transcripts.get(em(), req.principal!, id(req.params))) });
    },
    getRecordingTranscript: async (req, res) => {
      res.json({ data: transcriptView(await transcripts.forRecording(em(), req.principal!, id(req.params))) });
    },
    listTranscriptionProviders: async (_req, res) => {
      const list = transcripts.listProviders();
      if (!list.default_provider) throw new ApiError('SERVICE_UNAVAILABLE', 'No transcription provider is configured on this deployment', { headers: { 'Retry-After': '60' } });
      res.json({ providers: list.providers, default_provider: list.default_provider });
    },
    listPostMeetingTranscripts: async (req, res) => {
      const list = await transcripts.postMeetingOfRoom(em(), req.principal!, id(req.params));
      res.json({
        data: list.map((t) => ({
          id: t.id,
          recording_id: t.recording.id,
          status: t.status,
          provider: t.provider,
          created_at: t.createdAt.toISOString(),
        })),
      });
    },
  };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import type { OperationHandlers } from '../../http/router.ts';
import type { RecordingReadyNotification } from '../../upstream/protocol.ts';
import type { Recording } from './recording.entity.ts';
import type { RecordingService } from './recording.service.ts';

type Schemas = components['schemas'];
const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export function recordingListItem(r: Recording): Schemas['RecordingListItem'] {
  return {
    id: r.id,
    room_id: r.room.id,
    status: r.status,
    duration_seconds: r.durationSeconds ?? null,
    size_bytes: r.sizeBytes ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

export function recordingView(r: Recording): Schemas['Recording'] {
  return {
    id: r.id,
    room_id: r.room.id,
    room: { id: r.room.id, name: r.room.name },
    status: r.status,
    duration_seconds: r.durationSeconds ?? null,
    size_bytes: r.sizeBytes ?? null,
    started_at: iso(r.startedAt),
    stopped_at: iso(r.stoppedAt),
  };
}

// Thin handlers: read the request, call the service, shape the answer exactly as spec/openapi.yaml says.
export function recordingRoutes(deps: { recordings: RecordingService; em: () => EntityManager }): OperationHandlers {
  const { recordings, em } = deps;
  const id = (params: Record<string, unknown>) => params.id as string;

  return {
    startRecording: async (req, res) => {
      const r = await recordings.start(em(), req.principal!, id(req.params));
      res.status(201).json({ data: { id: r.id, room_id: r.room.id, status: 'recording', started_at: r.startedAt!.toISOString() } });
    },
    stopRecording: async (req, res) => {
      const r = await recordings.stop(em(), req.principal!, id(req.params));
      res.json({ data: { id: r.id, room_id: r.room.id, status: 'processing', stopped_at: r.stoppedAt!.toISOString() } });
    },
    syncRecordings: async (req, res) => {
      const imported = await recordings.sync(em(), req.principal!, id(req.params));
      res.json({ data: { synced_count: imported.length, recordings: imported.map((r) => ({ id: r.id, status: r.status })) } });
    },
    listRecordings: async (req, res) => {
      const page = { limit: Number(req.query.limit ?? 20), offset: Number(req.query.offset ?? 0) };
      const { items, total } = await recordings.list(em(), req.principal!, page);
      res.json({ data: items.map(recordingListItem), meta: { total, ...page } });
    },
    getRecording: async (req, res) => {
      res.json({ data: recordingView(await recordings.get(em(), req.principal!, id(req.params))) });
    },
    downloadRecording: async (req, res) => {
      const answer = await recordings.download(em(), req.principal!, id(req.params));
      const r = answer.recording;
      if (!answer.ready) {
        res.status(202).set('Retry-After', String(answer.retryAfterSeconds)).json({
          recording_id: r.id,
          status: r.status,
          message:
            r.status === 'recording'
              ? 'The recording is still in progress. Retry after it is stopped and processed.'
              : 'The recording is still being processed. Retry later.',
        });
        return;
      }
      res.json({
        recording_id: r.id,
        download_url: answer.url,
        status: r.status,
        duration: r.durationSeconds ?? null,
        file_size: r.sizeBytes ?? null,
        provider: answer.provider,
      });
    },
    archiveRecording: async (req, res) => {
      const r = await recordings.archive(em(), req.principal!, id(req.params));
      res.json({ data: { id: r.id, status: 'archived', archived_at: r.archivedAt!.toISOString() } });
    },
    recoverRecording: async (req, res) => {
      const r = await recordings.recover(em(), req.principal!, id(req.params));
      res.json({ data: { id: r.id, status: 'processing', message: 'Reprocessing initiated' } });
    },
    deleteRecording: async (req, res) => {
      const r = await recordings.softDelete(em(), req.principal!, id(req.params));
      res.json({ data: { id: r.id, deleted: true, deleted_at: r.deletedAt!.toISOString() } });
    },
    receiveUpstreamRecordingReady: async (req, res) => {
      // The signature was verified on the raw bytes before the body was parsed (upstreamSignatureGuard in app.ts).
      await recordings.acceptReady(em(), req.body as RecordingReadyNotification);
      res.status(202).json({ received: true });
    },
  };
}

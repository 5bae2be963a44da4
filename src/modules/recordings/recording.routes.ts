import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { handler, publicHandler, type Handlers } from '../../http/handler.ts';
import { pageOf } from '../../http/page.ts';
import type { Recording } from './recording.entity.ts';
import type { RecordingNotifications } from './recording-notifications.ts';
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

// Thin handlers: read the typed input, call the service (which checks access), shape the answer as the spec says.
export function recordingRoutes(deps: { recordings: RecordingService; notifications: RecordingNotifications; em: () => EntityManager }): Handlers {
  const { recordings, notifications, em } = deps;

  return {
    startRecording: handler<'startRecording'>(async ({ params }, principal) => {
      const r = await recordings.start(em(), principal, params.id);
      return { status: 201, body: { data: { id: r.id, room_id: r.room.id, status: 'recording', started_at: r.startedAt!.toISOString() } } };
    }),
    stopRecording: handler<'stopRecording'>(async ({ params }, principal) => {
      const r = await recordings.stop(em(), principal, params.id);
      return { status: 200, body: { data: { id: r.id, room_id: r.room.id, status: 'processing', stopped_at: r.stoppedAt!.toISOString() } } };
    }),
    syncRecordings: handler<'syncRecordings'>(async ({ params }, principal) => {
      const imported = await recordings.sync(em(), principal, params.id);
      return { status: 200, body: { data: { synced_count: imported.length, recordings: imported.map((r) => ({ id: r.id, status: r.status })) } } };
    }),
    listRecordings: handler<'listRecordings'>(async ({ query }, principal) => {
      const page = pageOf(query);
      const { items, total } = await recordings.list(em(), principal, page);
      return { status: 200, body: { data: items.map(recordingListItem), meta: { total, ...page } } };
    }),
    getRecording: handler<'getRecording'>(async ({ params }, principal) => ({
      status: 200,
      body: { data: recordingView(await recordings.get(em(), principal, params.id)) },
    })),
    downloadRecording: handler<'downloadRecording'>(async ({ params }, principal) => {
      const answer = await recordings.download(em(), principal, params.id);
      const r = answer.recording;
      if (!answer.ready) {
        const message =
          answer.status === 'recording'
            ? 'The recording is still in progress. Retry after it is stopped and processed.'
            : 'The recording is still being processed. Retry later.';
        return { status: 202, headers: { 'Retry-After': String(answer.retryAfterSeconds) }, body: { recording_id: r.id, status: answer.status, message } };
      }
      const body = {
        recording_id: r.id,
        download_url: answer.url,
        status: answer.status,
        duration: r.durationSeconds ?? null,
        file_size: r.sizeBytes ?? null,
        provider: answer.provider,
      };
      return { status: 200, body };
    }),
    archiveRecording: handler<'archiveRecording'>(async ({ params }, principal) => {
      const r = await recordings.archive(em(), principal, params.id);
      return { status: 200, body: { data: { id: r.id, status: 'archived', archived_at: r.archivedAt!.toISOString() } } };
    }),
    recoverRecording: handler<'recoverRecording'>(async ({ params }, principal) => {
      const r = await recordings.recover(em(), principal, params.id);
      return { status: 200, body: { data: { id: r.id, status: 'processing', message: 'Reprocessing initiated' } } };
    }),
    deleteRecording: handler<'deleteRecording'>(async ({ params }, principal) => {
      const r = await recordings.softDelete(em(), principal, params.id);
      return { status: 200, body: { data: { id: r.id, deleted: true, deleted_at: r.deletedAt!.toISOString() } } };
    }),
    // The provider's webhook: its signature was verified on the raw bytes before the body was parsed
    // (upstreamSignatureGuard in app.ts), so there is no principal.
    receiveUpstreamRecordingReady: publicHandler<'receiveUpstreamRecordingReady'>(async ({ body }) => {
      await notifications.acceptReady(em(), body);
      return { status: 202, body: { received: true } };
    }),
  };
}

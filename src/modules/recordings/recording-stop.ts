// Stopping a recording, shared by Stop Recording (API), the auto-stop timer (worker) and room end/delete.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm.ts';
import type { DomainEvent, DomainEventPublisher } from '../../events/domain-events.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Logger } from '../../logger.ts';
import { UpstreamError, type MediaProvider } from '../../upstream/media-provider.ts';
import { RecordingSchema, type Recording } from './recording.entity.ts';

export interface StopDeps {
  provider: MediaProvider;
  events: DomainEventPublisher;
}

/**
 * Stops `recording` at the provider (a repeated stop is harmless: the provider answers with the first stop) and moves
 * it to `processing`. The provider not knowing the recording any more is taken as stopped now.
 */
export async function stopRecording(em: EntityManager, deps: StopDeps, recording: Recording): Promise<Recording> {
  let stoppedAt = new Date();
  if (recording.upstreamRecordingId) {
    try {
      stoppedAt = new Date((await deps.provider.stopRecording(recording.upstreamRecordingId)).stoppedAt);
    } catch (err) {
      if (!(err instanceof UpstreamError) || err.status !== 404) throw providerFailure(err);
    }
  }
  const durationSeconds = recording.startedAt
    ? Math.max(0, Math.round((stoppedAt.getTime() - recording.startedAt.getTime()) / 1000))
    : recording.durationSeconds;
  // Conditional: the provider's notification (or another stop) may have moved the recording on meanwhile, and a
  // plain flush would put a `ready` recording back to `processing`.
  const changed = await em.nativeUpdate(
    RecordingSchema,
    { id: recording.id, status: 'recording' },
    { status: 'processing', stoppedAt, durationSeconds, updatedAt: new Date() },
  );
  await em.refresh(recording);
  if (changed === 0) return recording;
  await deps.events.publish({
    type: 'recording.stopped',
    tenantId: recording.tenant.id,
    roomId: recording.room.id,
    recordingId: recording.id,
  });
  return recording;
}

/** A provider failure as the client sees it: the provider is the dependency that is down (503), never a 500. */
export function providerFailure(err: unknown): Error {
  if (err instanceof UpstreamError) {
    return new ApiError('SERVICE_UNAVAILABLE', `The media provider failed: ${err.message}`, { headers: { 'Retry-After': '5' } });
  }
  return err as Error;
}

/**
 * Room ended or deleted (DECISIONS §6): stops what records it. A deleted room took its rows with it (cascade), so
 * then only the provider still knows: its recordings of the room that are still recording are stopped there.
 * Returns the Convene recording that was stopped, if any.
 */
export async function stopRoomRecording(em: EntityManager, deps: StopDeps, roomId: string, roomDeleted: boolean): Promise<Recording | null> {
  const active = await em.findOne(RecordingSchema, { room: roomId, status: 'recording' });
  if (active) return stopRecording(em, deps, active);
  if (roomDeleted) {
    for (const remote of (await deps.provider.listRecordings(roomId)).filter((r) => r.status === 'recording')) {
      await deps.provider.stopRecording(remote.id);
    }
  }
  return null;
}

/**
 * Subscribes to room.ended / room.deleted in this process (the API's requests, the worker's empty-room timer) and
 * stops the room's recording; `stopped` tells the auto-stop timer. Failures are logged: the room change is done.
 */
export function stopRecordingsOfEndedRooms(
  bus: { subscribe(listener: (event: DomainEvent) => void): () => void },
  deps: StopDeps & { orm: Orm; logger: Logger; stopped?: (recordingId: string) => Promise<void> },
): () => void {
  return bus.subscribe((event) => {
    if (event.type !== 'room.ended' && event.type !== 'room.deleted') return;
    stopRoomRecording(deps.orm.em.fork(), deps, event.roomId, event.type === 'room.deleted')
      .then((stopped) => (stopped && deps.stopped ? deps.stopped(stopped.id) : undefined))
      .catch((err: unknown) => deps.logger.warn({ err, roomId: event.roomId }, 'could not stop the recording of an ended room'));
  });
}

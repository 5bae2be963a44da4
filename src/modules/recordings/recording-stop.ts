// Stopping a recording, shared by Stop Recording (API), the auto-stop timer (worker) and room end/delete (worker, via
// workflows/room-recording-stop.ts). Nothing here speaks HTTP: a provider failure is thrown as the UpstreamError it
// is (Stop Recording turns it into a 503 in recording.service.ts; an activity's retry policy retries it).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEventPublisher } from '../../events/domain-events.ts';
import { UpstreamError, type MediaProvider } from '../../upstream/media-provider.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import type { Logger } from '../../logger.ts';
import type { ClosingRoom, RoomRecordingStop } from '../rooms/room.ports.ts';
import type { RecordingOrchestrator } from './recording.ports.ts';
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
      if (!(err instanceof UpstreamError) || err.status !== 404) throw err;
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

/**
 * Tells the recording's auto-stop timer it has been stopped (Stop Recording, or the provider's `recording.ready` for a
 * recording it stopped on its own). Best effort: the timer also checks the recording's state before stopping anything.
 */
export async function signalStopped(deps: { orchestrator: RecordingOrchestrator; logger: Logger }, recordingId: string): Promise<void> {
  await deps.orchestrator.recordingStopped(recordingId).catch((err: unknown) => {
    deps.logger.warn({ err, recordingId }, 'could not signal the auto-stop timer');
  });
}

/**
 * Room ended or deleted (docs/decisions.md §6): stops what records it. A deleted room took its rows with it (cascade), so
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
 * Called inside the transaction that ends or deletes a room (RoomService, and Delete Tenant for each of its active
 * rooms; docs/decisions.md §6, §15): records the durable run that stops the room's recording, started once that transaction
 * has committed. An ended room without a recording in progress needs none; a deleted one always does, since the
 * provider may be recording it without our knowing.
 */
export async function stopRecordingWhenRoomCloses(
  tx: EntityManager,
  handovers: Pick<Handovers, 'record'>,
  room: ClosingRoom,
  how: 'ended' | 'deleted',
): Promise<void> {
  if (how === 'ended' && (await tx.count(RecordingSchema, { room: room.id, status: 'recording' })) === 0) return;
  await handovers.record(tx, starts.roomRecordingStop({ tenantId: room.tenantId, room: { id: room.id, name: room.name }, how }));
}

/** The rooms module's port (src/modules/rooms/room.ports.ts), recording through `handovers`. */
export function roomRecordingStop(handovers: Pick<Handovers, 'record'>): RoomRecordingStop {
  return { whenRoomCloses: (tx, room, how) => stopRecordingWhenRoomCloses(tx, handovers, room, how) };
}

/**
 * The worker's half of the above (activity stopClosedRoomRecording). The run starts after the room's transaction
 * committed (a hand-over); `for share` still waits for any transaction holding the room's row lock, then reads its
 * outcome. A room still active stops nothing; a room gone was deleted. Repeatable.
 */
export async function stopClosedRoomRecording(em: EntityManager, deps: StopDeps, roomId: string): Promise<Recording | null> {
  const rows = await em.execute<Array<{ status: string }>>('select status from rooms where id = ? for share', [roomId]);
  if (rows[0]?.status === 'active') return null;
  return stopRoomRecording(em, deps, roomId, rows.length === 0);
}

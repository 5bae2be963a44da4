// A provider's recording that Convene does not know yet becomes a row: Sync Recordings (recording.service.ts) and the
// provider's `recording.ready` (recording-notifications.ts), which may race each other for the same recording.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7 } from 'uuid';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import type { UpstreamRecording } from '../../upstream/media-provider.ts';
import type { Room } from '../rooms/room.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import { RecordingSchema, type Recording, type RecordingStatus } from './recording.entity.ts';

/**
 * Sync Recordings' import: of the provider's recordings of `room`, those Convene does not know yet become rows, each
 * with the run it implies (an ingestion for a ready one, the auto-stop timer for one still recording). Returns those.
 */
export async function importUnknown(
  em: EntityManager,
  deps: { handovers: Handovers; ingestRetryWindowSeconds: number },
  room: Room,
  upstream: UpstreamRecording[],
): Promise<Recording[]> {
  const known = new Set(
    (await em.find(RecordingSchema, { upstreamRecordingId: { $in: upstream.map((u) => u.id) } }, { fields: ['upstreamRecordingId'] })).map(
      (r) => r.upstreamRecordingId,
    ),
  );
  const imported: Recording[] = [];
  const tenant = await em.findOneOrFail(TenantSchema, { id: room.tenant.id });
  for (const remote of upstream.filter((u) => !known.has(u.id))) {
    if (remote.status === 'recording' && (await em.findOne(RecordingSchema, { room: room.id, status: 'recording' }))) continue; // one active recording per room
    // Each import commits with its workflow's hand-over (docs/decisions.md §15): Temporal being down delays the ingestion,
    // it never leaves an imported recording `processing` with nothing to process it.
    const recording = await deps.handovers.transaction(em, async (tx) => {
      const found = await importRecording(tx, room, remote.id, {
        status: remote.status === 'ready' ? 'processing' : remote.status,
        startedAt: new Date(remote.startedAt),
        stoppedAt: remote.stoppedAt ? new Date(remote.stoppedAt) : null,
        durationSeconds: remote.durationSeconds ?? null,
      });
      if (!found.imported) return null;
      const subject = { recordingId: found.recording.id, tenantId: room.tenant.id, room };
      if (remote.status === 'ready') {
        // The workflow asks the provider for the file's link itself (docs/decisions.md §13: the link is a secret).
        const ingestion = { ...subject, upstreamRecordingId: remote.id, retryWindowSeconds: deps.ingestRetryWindowSeconds };
        await deps.handovers.record(tx, starts.ingestion(ingestion));
      } else if (remote.status === 'recording') {
        // Still recording at the provider: the tenant's duration limit applies to it as to one started here.
        await deps.handovers.record(tx, starts.autoStop({ ...subject, maxDurationMinutes: tenant.maxRecordingDurationMinutes }));
      }
      return found.recording;
    });
    if (recording) imported.push(recording);
  }
  return imported;
}

/** Creates a row for a provider recording; when a concurrent request imported it first, returns that one. */
export async function importRecording(
  em: EntityManager,
  room: Room,
  upstreamRecordingId: string,
  fields: { status: RecordingStatus; startedAt: Date | null; stoppedAt: Date | null; durationSeconds: number | null },
): Promise<{ recording: Recording; imported: boolean }> {
  // In a savepoint (a nested transaction): losing the race rolls back this insert only, not the caller's transaction.
  try {
    const recording = await em.transactional(async (inner) => {
      const created = inner.create(RecordingSchema, { id: uuidv7(), tenant: room.tenant, room, upstreamRecordingId, ...fields });
      await inner.flush();
      return created;
    });
    return { recording, imported: true };
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const existing = await em.findOne(RecordingSchema, { upstreamRecordingId }, { refresh: true });
    if (!existing) throw err;
    return { recording: existing, imported: false };
  }
}

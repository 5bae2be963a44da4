// The rules of recordings (spec "States and transitions", docs/decisions.md §7): who may do what in which state. No req/res.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7 } from 'uuid';
import type { DomainEventPublisher } from '../../events/domain-events.ts';
import { ApiError, notFound, serviceUnavailable } from '../../domain/errors.ts';
import { tenantOf, type Principal } from '../../domain/principal.ts';
import type { Logger } from '../../logger.ts';
import { downloadFileName } from '../../storage/keys.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import type { RecordingOrchestrator } from './recording.ports.ts';
import { UpstreamError, type MediaProvider } from '../../upstream/media-provider.ts';
import { roomForPrincipal } from '../rooms/room-access.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { importUnknown } from './recording-import.ts';
import { signalStopped, stopRecording } from './recording-stop.ts';
import { RecordingSchema, type Recording } from './recording.entity.ts';

export interface RecordingServiceDeps {
  provider: MediaProvider;
  store: ObjectStore;
  /** Only the best-effort "stopped" signal to the auto-stop timer: starts are hand-overs (docs/decisions.md §15). */
  orchestrator: RecordingOrchestrator;
  handovers: Handovers;
  /** INGEST_RETRY_WINDOW (docs/decisions.md §7), in seconds: part of every ingestion's input. */
  ingestRetryWindowSeconds: number;
  events: DomainEventPublisher;
  tenants: TenantService;
  logger: Logger;
}

/** A download answer; `status` is the recording's, narrowed to what each answer can have. */
export type DownloadAnswer =
  | { ready: true; recording: Recording; status: 'ready' | 'archived'; url: string; provider: string }
  | { ready: false; recording: Recording; status: 'recording' | 'processing'; retryAfterSeconds: number };

const HOST_ONLY = ['host'] as const;

export class RecordingService {
  private readonly deps: RecordingServiceDeps;

  constructor(deps: RecordingServiceDeps) {
    this.deps = deps;
  }

  /** Whether the room has a recording in progress (for Add Participant's should_start_recording). */
  async isRecording(em: EntityManager, roomId: string): Promise<boolean> {
    return Boolean(await this.active(em, roomId));
  }

  async start(em: EntityManager, principal: Principal, roomRef: string): Promise<Recording> {
    const room = await roomForPrincipal(em, principal, roomRef, HOST_ONLY);
    if (room.status === 'ended') throw new ApiError('ROOM_ENDED', 'The room has ended');
    const tenant = await em.findOneOrFail(TenantSchema, { id: room.tenant.id });
    if (!room.recordingEnabled && !this.deps.tenants.effectiveConfig(tenant).force_recording) {
      throw new ApiError('INVALID_STATE', 'Recording is not enabled for this room (config.recording_enabled is false)');
    }
    if (await this.active(em, room.id)) throw inProgress();

    const id = uuidv7();
    // The provider first (the row needs its recording id), then the row and its auto-stop timer in one transaction
    // (docs/decisions.md §15): no timer exists for a recording that does not. Should this process die between the provider's
    // start and the commit, the provider's recording is not lost: its `recording.ready` imports it
    // (recording-notifications.ts), as Sync does while it still records.
    let upstream: { upstreamRecordingId: string; startedAt: string };
    try {
      upstream = await this.deps.provider.startRecording({ roomId: room.id, roomName: room.name });
    } catch (err) {
      if (err instanceof UpstreamError && err.status === 409) throw inProgress();
      throw mediaProviderFailure(err);
    }
    let recording: Recording;
    try {
      recording = await this.deps.handovers.transaction(em, async (tx) => {
        const created = tx.create(RecordingSchema, {
          id,
          tenant: room.tenant,
          room,
          status: 'recording',
          upstreamRecordingId: upstream.upstreamRecordingId,
          startedAt: new Date(upstream.startedAt),
        });
        await tx.flush();
        await this.deps.handovers.record(tx, starts.autoStop({ recordingId: id, tenantId: tenant.id, room, maxDurationMinutes: tenant.maxRecordingDurationMinutes }));
        return created;
      });
    } catch (err) {
      // Nothing was stored: undo ours at the provider (another start won the race, or the database failed).
      await this.deps.provider.stopRecording(upstream.upstreamRecordingId).catch(() => {});
      if (err instanceof UniqueConstraintViolationException) throw inProgress();
      throw err;
    }
    await this.deps.events.publish({
      type: 'recording.started',
      tenantId: recording.tenant.id,
      roomId: room.id,
      recordingId: id,
      startedAt: recording.startedAt!.toISOString(),
    });
    return recording;
  }

  async stop(em: EntityManager, principal: Principal, roomRef: string): Promise<Recording> {
    const room = await roomForPrincipal(em, principal, roomRef, HOST_ONLY);
    const active = await this.active(em, room.id);
    if (!active) throw new ApiError('NO_ACTIVE_RECORDING', 'The room has no active recording');
    const stopped = await stopRecording(em, this.deps, active).catch((err: unknown) => {
      throw mediaProviderFailure(err);
    });
    void signalStopped(this.deps, stopped.id);
    return stopped;
  }

  /** Imports the provider's recordings of the room that Convene does not know yet (e.g. auto-recorded ones). */
  async sync(em: EntityManager, principal: Principal, roomRef: string): Promise<Recording[]> {
    const room = await roomForPrincipal(em, principal, roomRef);
    const upstream = await this.deps.provider.listRecordings(room.id).catch((err: unknown) => {
      throw mediaProviderFailure(err);
    });
    return importUnknown(em, this.deps, room, upstream);
  }

  async list(em: EntityManager, principal: Principal, page: { limit: number; offset: number }) {
    const [items, total] = await em.findAndCount(
      RecordingSchema,
      { tenant: tenantOf(principal), deleted: false },
      { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: page.limit, offset: page.offset },
    );
    return { items, total };
  }

  async get(em: EntityManager, principal: Principal, id: string): Promise<Recording> {
    const recording = await em.findOne(RecordingSchema, { id, tenant: tenantOf(principal), deleted: false }, { populate: ['room'] });
    if (!recording) throw notFound('Recording');
    return recording;
  }

  async download(em: EntityManager, principal: Principal, id: string): Promise<DownloadAnswer> {
    const recording = await this.get(em, principal, id);
    const { status } = recording;
    if (status === 'recording' || status === 'processing') {
      return { ready: false, recording, status, retryAfterSeconds: status === 'recording' ? 30 : 10 };
    }
    if (status === 'failed' || !recording.objectKey || !recording.storageBucket) {
      throw new ApiError('INVALID_STATE', 'The recording failed to process; there is nothing to download');
    }
    const url = await this.deps.store.presignGet(
      { bucket: recording.storageBucket, key: recording.objectKey },
      { expiresInSeconds: 3600, fileName: downloadFileName(recording.objectKey) },
    );
    return { ready: true, recording, status, url, provider: this.deps.store.provider };
  }

  async archive(em: EntityManager, principal: Principal, id: string): Promise<Recording> {
    const recording = await this.get(em, principal, id);
    if (recording.status !== 'ready' || recording.storageTier !== 'primary' || !recording.objectKey) {
      throw new ApiError('INVALID_STATE', `Only a ready recording in primary storage can be archived (this one is ${recording.status})`);
    }
    // docs/decisions.md §15: copy, then the row, then the primary copy's removal. A failure after the copy leaves the row
    // pointing at the primary copy, still there (archive can be retried); a failure after the row leaves an extra
    // primary copy (retention purges both buckets), never a row pointing at nothing.
    const key = recording.objectKey;
    let location;
    try {
      location = await this.deps.store.copyToArchive(key);
    } catch (err) {
      this.deps.logger.error({ err, recordingId: id }, 'archive failed');
      throw serviceUnavailable('The object store failed to archive the recording; retry later');
    }
    recording.status = 'archived';
    recording.storageTier = 'archive';
    recording.storageBucket = location.bucket;
    recording.archivedAt = new Date();
    await em.flush();
    await this.deps.store.delete({ bucket: this.deps.store.bucket, key }).catch((err: unknown) => {
      this.deps.logger.warn({ err, recordingId: id }, 'archived; the primary copy could not be removed yet');
    });
    return recording;
  }

  async recover(em: EntityManager, principal: Principal, id: string): Promise<Recording> {
    const recording = await this.get(em, principal, id);
    if (recording.status !== 'processing' || !recording.upstreamRecordingId) {
      throw new ApiError(
        'INVALID_STATE',
        recording.status !== 'processing'
          ? `Only a processing recording can be recovered (this one is ${recording.status})`
          : 'The recording has no upstream recording id to recover from',
      );
    }
    // The workflow asks the provider for a fresh download URL (as always). A stuck run, or one waiting out an outage
    // (docs/decisions.md §7), is replaced by one that tries at once.
    const upstreamRecordingId = recording.upstreamRecordingId;
    const subject = { recordingId: recording.id, tenantId: recording.tenant.id, room: recording.room, upstreamRecordingId };
    const start = starts.ingestion({ ...subject, retryWindowSeconds: this.deps.ingestRetryWindowSeconds, restart: true });
    await this.deps.handovers.transaction(em, (tx) => this.deps.handovers.record(tx, start));
    return recording;
  }

  async softDelete(em: EntityManager, principal: Principal, id: string): Promise<Recording> {
    const recording = await this.get(em, principal, id);
    recording.deleted = true;
    recording.deletedAt = new Date();
    await em.flush();
    return recording;
  }

  private active(em: EntityManager, roomId: string): Promise<Recording | null> {
    return em.findOne(RecordingSchema, { room: roomId, status: 'recording' });
  }
}

/**
 * A media provider failure as the API's client sees it: the provider is the dependency that is down (503), never a 500.
 * Not src/providers/failure.ts: that one tells a workflow whether a transcription or AI provider's failure is worth a
 * retry; this one answers an HTTP request about the media provider (src/upstream/), which a request never retries.
 */
function mediaProviderFailure(err: unknown): Error {
  if (err instanceof UpstreamError) {
    return serviceUnavailable(`The media provider failed: ${err.message}`);
  }
  return err as Error;
}

const inProgress = () => new ApiError('RECORDING_IN_PROGRESS', 'The room is already being recorded');

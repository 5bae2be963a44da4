// The rules of recordings (spec "States and transitions", docs/decisions.md §7): who may do what in which state. No req/res.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7 } from 'uuid';
import type { DomainEventPublisher } from '../../events/domain-events.ts';
import { ApiError, notFound, serviceUnavailable } from '../../domain/errors.ts';
import { tenantOf, type Principal } from '../../domain/principal.ts';
import type { Logger } from '../../logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { downloadFileName } from '../../storage/keys.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import type { RecordingOrchestrator } from './recording.ports.ts';
import { UpstreamError, type MediaProvider, type UpstreamRecording } from '../../upstream/media-provider.ts';
import type { RecordingReadyNotification } from '../../upstream/protocol.ts';
import { startPostMeetingOver } from '../post-meeting/post-meeting-rerun.ts';
import { PostMeetingResultSchema } from '../post-meeting/post-meeting-result.entity.ts';
import { roomForPrincipal } from '../rooms/room-access.ts';
import { RoomSchema, type Room } from '../rooms/room.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { stopRecording } from './recording-stop.ts';
import { sealNotifiedSource } from './recording-source.ts';
import { RecordingSchema, type Recording, type RecordingStatus } from './recording.entity.ts';

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
  /** Seals the notification's download link kept with the recording (docs/decisions.md §7). */
  secretBox: SecretBox;
}

/** A download answer; `status` is the recording's, narrowed to what each answer can have. */
export type DownloadAnswer =
  | { ready: true; recording: Recording; status: 'ready' | 'archived'; url: string; provider: string }
  | { ready: false; recording: Recording; status: 'recording' | 'processing'; retryAfterSeconds: number };

const HOST_ONLY = ['host'] as const;

export class RecordingService {
  readonly #deps: RecordingServiceDeps;

  constructor(deps: RecordingServiceDeps) {
    this.#deps = deps;
  }

  /** Whether the room has a recording in progress (for Add Participant's should_start_recording). */
  async isRecording(em: EntityManager, roomId: string): Promise<boolean> {
    return Boolean(await this.#active(em, roomId));
  }

  async start(em: EntityManager, principal: Principal, roomRef: string): Promise<Recording> {
    const room = await roomForPrincipal(em, principal, roomRef, HOST_ONLY);
    if (room.status === 'ended') throw new ApiError('ROOM_ENDED', 'The room has ended');
    const tenant = await em.findOneOrFail(TenantSchema, { id: room.tenant.id });
    if (!room.recordingEnabled && !this.#deps.tenants.effectiveConfig(tenant).force_recording) {
      throw new ApiError('INVALID_STATE', 'Recording is not enabled for this room (config.recording_enabled is false)');
    }
    if (await this.#active(em, room.id)) throw inProgress();

    const id = uuidv7();
    // The provider first (the row needs its recording id), then the row and its auto-stop timer in one transaction
    // (docs/decisions.md §15): no timer exists for a recording that does not. Should this process die between the provider's
    // start and the commit, the provider's recording is not lost: its `recording.ready` imports it (acceptReady), as
    // Sync does while it still records.
    let upstream: { upstreamRecordingId: string; startedAt: string };
    try {
      upstream = await this.#deps.provider.startRecording({ roomId: room.id, roomName: room.name });
    } catch (err) {
      if (err instanceof UpstreamError && err.status === 409) throw inProgress();
      throw providerFailure(err);
    }
    let recording: Recording;
    try {
      recording = await this.#deps.handovers.transaction(em, async (tx) => {
        const created = tx.create(RecordingSchema, {
          id,
          tenant: room.tenant,
          room,
          status: 'recording',
          upstreamRecordingId: upstream.upstreamRecordingId,
          startedAt: new Date(upstream.startedAt),
        });
        await tx.flush();
        await this.#deps.handovers.record(tx, starts.autoStop({ recordingId: id, tenantId: tenant.id, room, maxDurationMinutes: tenant.maxRecordingDurationMinutes }));
        return created;
      });
    } catch (err) {
      // Nothing was stored: undo ours at the provider (another start won the race, or the database failed).
      await this.#deps.provider.stopRecording(upstream.upstreamRecordingId).catch(() => {});
      if (err instanceof UniqueConstraintViolationException) throw inProgress();
      throw err;
    }
    await this.#deps.events.publish({
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
    const active = await this.#active(em, room.id);
    if (!active) throw new ApiError('NO_ACTIVE_RECORDING', 'The room has no active recording');
    const stopped = await stopRecording(em, this.#deps, active).catch((err: unknown) => {
      throw providerFailure(err);
    });
    void this.#signalStopped(stopped.id);
    return stopped;
  }

  /** Imports the provider's recordings of the room that Convene does not know yet (e.g. auto-recorded ones). */
  async sync(em: EntityManager, principal: Principal, roomRef: string): Promise<Recording[]> {
    const room = await roomForPrincipal(em, principal, roomRef);
    let upstream: UpstreamRecording[];
    try {
      upstream = await this.#deps.provider.listRecordings(room.id);
    } catch (err) {
      throw providerFailure(err);
    }
    const known = new Set(
      (await em.find(RecordingSchema, { upstreamRecordingId: { $in: upstream.map((u) => u.id) } }, { fields: ['upstreamRecordingId'] })).map(
        (r) => r.upstreamRecordingId,
      ),
    );
    const imported: Recording[] = [];
    const tenant = await em.findOneOrFail(TenantSchema, { id: room.tenant.id });
    for (const remote of upstream.filter((u) => !known.has(u.id))) {
      if (remote.status === 'recording' && (await this.#active(em, room.id))) continue; // one active recording per room
      // Each import commits with its workflow's hand-over (docs/decisions.md §15): Temporal being down delays the ingestion,
      // it never leaves an imported recording `processing` with nothing to process it.
      const recording = await this.#deps.handovers.transaction(em, async (tx) => {
        const found = await this.#import(tx, room, remote.id, {
          status: remote.status === 'ready' ? 'processing' : remote.status,
          startedAt: new Date(remote.startedAt),
          stoppedAt: remote.stoppedAt ? new Date(remote.stoppedAt) : null,
          durationSeconds: remote.durationSeconds ?? null,
        });
        if (!found.imported) return null;
        const subject = { recordingId: found.recording.id, tenantId: room.tenant.id, room };
        if (remote.status === 'ready') {
          // The workflow asks the provider for the file's link itself (docs/decisions.md §13: the link is a secret).
          await this.#deps.handovers.record(tx, this.#ingestion({ ...subject, upstreamRecordingId: remote.id }));
        } else if (remote.status === 'recording') {
          // Still recording at the provider: the tenant's duration limit applies to it as to one started here.
          await this.#deps.handovers.record(tx, starts.autoStop({ ...subject, maxDurationMinutes: tenant.maxRecordingDurationMinutes }));
        }
        return found.recording;
      });
      if (recording) imported.push(recording);
    }
    return imported;
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
    const url = await this.#deps.store.presignGet(
      { bucket: recording.storageBucket, key: recording.objectKey },
      { expiresInSeconds: 3600, fileName: downloadFileName(recording.objectKey) },
    );
    return { ready: true, recording, status, url, provider: this.#deps.store.provider };
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
      location = await this.#deps.store.copyToArchive(key);
    } catch (err) {
      this.#deps.logger.error({ err, recordingId: id }, 'archive failed');
      throw serviceUnavailable('The object store failed to archive the recording; retry later');
    }
    recording.status = 'archived';
    recording.storageTier = 'archive';
    recording.storageBucket = location.bucket;
    recording.archivedAt = new Date();
    await em.flush();
    await this.#deps.store.delete({ bucket: this.#deps.store.bucket, key }).catch((err: unknown) => {
      this.#deps.logger.warn({ err, recordingId: id }, 'archived; the primary copy could not be removed yet');
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
    const start = this.#ingestion({ recordingId: recording.id, tenantId: recording.tenant.id, room: recording.room, upstreamRecordingId }, { restart: true });
    await this.#deps.handovers.transaction(em, (tx) => this.#deps.handovers.record(tx, start));
    return recording;
  }

  /**
   * POST /recordings/{id}/post-meeting (docs/decisions.md §9 "Outages and re-runs"): a new post-meeting run, n = the result's
   * run + 1. Only a recording whose file is stored (`ready`, `archived`) and whose last run has finished. The result row
   * is started over as run n and the run's hand-over recorded in one transaction (docs/decisions.md §15): the answer comes once
   * both have committed, whether or not Temporal is reachable. A second request for the same n (sent before it could see
   * the first's run) gets the same run: its id is derived from n.
   */
  async rerunPostMeeting(
    em: EntityManager,
    principal: Principal,
    id: string,
    options: { retranscribe?: boolean } = {},
  ): Promise<{ recording: Recording; run: number; workflowId: string }> {
    const recording = await this.get(em, principal, id);
    if ((recording.status !== 'ready' && recording.status !== 'archived') || !recording.objectKey) {
      throw new ApiError('INVALID_STATE', `Only a ready or archived recording can be processed again (this one is ${recording.status})`);
    }
    const result = await em.findOne(PostMeetingResultSchema, { recording: recording.id, tenant: recording.tenant.id });
    if (!result || result.status !== 'completed') throw stillRunning();
    const run = result.run + 1;
    const retranscribe = options.retranscribe ?? false;
    const start = starts.postMeetingRerun({ recordingId: recording.id, tenantId: recording.tenant.id, room: recording.room, run, retranscribe });
    await this.#deps.handovers.transaction(em, async (tx) => {
      if (!(await startPostMeetingOver(tx, recording.id, run, retranscribe))) {
        // Another request started run n first (same run, same id: recording it again starts nothing new), or a later one.
        const now = await tx.findOne(PostMeetingResultSchema, { recording: recording.id }, { refresh: true });
        if (now?.run !== run) throw stillRunning();
      }
      await this.#deps.handovers.record(tx, start);
    });
    return { recording, run, workflowId: start.workflowId };
  }

  async softDelete(em: EntityManager, principal: Principal, id: string): Promise<Recording> {
    const recording = await this.get(em, principal, id);
    recording.deleted = true;
    recording.deletedAt = new Date();
    await em.flush();
    return recording;
  }

  /**
   * The provider's `recording.ready` (signature already verified): import the recording when unknown, keep the
   * notification's download link sealed with it, and hand its ingestion over. A duplicate notification starts nothing new
   * (the workflow id is the recording's); its link, the newest, replaces the one kept.
   */
  async acceptReady(em: EntityManager, notification: RecordingReadyNotification): Promise<Recording> {
    const room = await em.findOne(RoomSchema, { id: notification.meeting_id });
    if (!room) throw notFound('Room');
    let stoppedByProvider = false;
    // The row (imported or moved to processing) and its ingestion's hand-over commit together (docs/decisions.md §15): the
    // caller answers 202 once they have, whether or not Temporal is reachable right now; the relay starts the run.
    const recording = await this.#deps.handovers.transaction(em, async (tx) => {
      let found = await tx.findOne(RecordingSchema, { upstreamRecordingId: notification.recording_id });
      if (!found) {
        found = (
          await this.#import(tx, room, notification.recording_id, {
            status: 'processing',
            startedAt: null,
            stoppedAt: null,
            durationSeconds: notification.duration_seconds,
          })
        ).recording;
      } else if (found.room.id !== room.id) {
        throw notFound('Recording');
      }
      if (found.status === 'recording') {
        // The provider stopped it on its own (e.g. a limit of its own): it is processing now.
        found.status = 'processing';
        found.stoppedAt = new Date();
        await tx.flush();
        stoppedByProvider = true;
      }
      if (found.status === 'ready' || found.status === 'archived' || found.purgedAt) return found;
      // docs/decisions.md §7: the notification's link is where the file comes from. Sealed in the row (bound to this recording),
      // in the same transaction as the ingestion's hand-over, and read by the transfer activity: the workflow gets ids
      // only, so the link never lands in a workflow history (docs/decisions.md §13).
      found.sourceSealed = sealNotifiedSource(this.#deps.secretBox, found.id, notification);
      // The provider's final figure, as its REST API would give it to the transfer (our stop time is only an estimate).
      found.durationSeconds = notification.duration_seconds;
      await tx.flush();
      const subject = { recordingId: found.id, tenantId: room.tenant.id, room, upstreamRecordingId: notification.recording_id };
      await this.#deps.handovers.record(tx, this.#ingestion(subject));
      return found;
    });
    if (stoppedByProvider) void this.#signalStopped(recording.id);
    return recording;
  }

  #ingestion(subject: { recordingId: string; tenantId: string; room: { id: string; name?: string | null }; upstreamRecordingId: string }, options: { restart?: boolean } = {}) {
    return starts.ingestion({ ...subject, retryWindowSeconds: this.#deps.ingestRetryWindowSeconds, ...options });
  }

  #active(em: EntityManager, roomId: string): Promise<Recording | null> {
    return em.findOne(RecordingSchema, { room: roomId, status: 'recording' });
  }

  /** Creates a row for a provider recording; when a concurrent request imported it first, returns that one. */
  async #import(
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

  /** Best effort: the auto-stop timer also checks the recording's state before stopping anything. */
  async #signalStopped(recordingId: string): Promise<void> {
    await this.#deps.orchestrator.recordingStopped(recordingId).catch((err: unknown) => {
      this.#deps.logger.warn({ err, recordingId }, 'could not signal the auto-stop timer');
    });
  }
}

/** A provider failure as the client sees it: the provider is the dependency that is down (503), never a 500. */
function providerFailure(err: unknown): Error {
  if (err instanceof UpstreamError) {
    return serviceUnavailable(`The media provider failed: ${err.message}`);
  }
  return err as Error;
}

const inProgress = () => new ApiError('RECORDING_IN_PROGRESS', 'The room is already being recorded');
const stillRunning = () =>
  new ApiError('INVALID_STATE', 'Post-meeting processing of this recording is still running; re-run it once it has finished');

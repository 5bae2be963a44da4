// Activities of the recording workflows: everything that touches the database, the media provider or S3.
// Each is idempotent (a retry after a crash repeats it harmlessly) and throws a non-retryable ApplicationFailure
// only for what no retry can fix.
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { DomainEventPublisher } from '../events/domain-events.ts';
import type { Logger } from '../logger.ts';
import { stopRecording } from '../modules/recordings/recording-stop.ts';
import { RecordingSchema, type Recording } from '../modules/recordings/recording.entity.ts';
import { withDefaults } from '../modules/tenants/tenant-config.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { UpstreamError, type MediaProvider } from '../upstream/media-provider.ts';
import { NON_RETRYABLE, type RecordingSource } from '../../workflows/shared.ts';

export interface RecordingActivityDeps {
  orm: MikroORM;
  store: ObjectStore;
  provider: MediaProvider;
  events: DomainEventPublisher;
  logger: Logger;
}

export interface StoredRecording {
  bucket: string;
  key: string;
  sizeBytes: number;
  contentType: string;
}

const DAY_MS = 86_400_000;

export function createRecordingActivities(deps: RecordingActivityDeps) {
  const { orm, store, provider } = deps;

  const load = async (recordingId: string): Promise<{ em: ReturnType<MikroORM['em']['fork']>; recording: Recording }> => {
    const em = orm.em.fork();
    const recording = await em.findOne(RecordingSchema, { id: recordingId });
    if (!recording) throw ApplicationFailure.nonRetryable(`recording ${recordingId} no longer exists`, NON_RETRYABLE.recordingGone);
    return { em, recording };
  };

  return {
    /** Recover: a fresh download URL for the recording from the provider (the old one may have expired). */
    async fetchFreshSource({ recordingId }: { recordingId: string }): Promise<RecordingSource> {
      const { recording } = await load(recordingId);
      if (!recording.upstreamRecordingId) {
        throw ApplicationFailure.nonRetryable('recording has no upstream recording id', NON_RETRYABLE.providerGaveUp);
      }
      let remote;
      try {
        remote = await provider.getRecording(recording.upstreamRecordingId);
      } catch (err) {
        if (err instanceof UpstreamError && !err.retryable) {
          throw ApplicationFailure.nonRetryable(`provider: ${err.message}`, NON_RETRYABLE.providerGaveUp);
        }
        throw err;
      }
      if (remote.status === 'failed') throw ApplicationFailure.nonRetryable('the provider failed to process the recording', NON_RETRYABLE.providerGaveUp);
      // Still recording or processing at the provider: retried with backoff until it is ready.
      if (remote.status !== 'ready' || !remote.url) throw new Error(`the provider's recording is ${remote.status}, not ready yet`);
      return {
        url: remote.url,
        contentType: remote.contentType ?? 'application/octet-stream',
        durationSeconds: remote.durationSeconds ?? null,
        sizeBytes: remote.sizeBytes ?? null,
      };
    },

    /**
     * Streams the file from the temporary URL into the primary bucket under a key derived from the recording, so a
     * retry overwrites the same object (never a second one). Heartbeats as bytes flow: a worker that dies mid-way is
     * noticed within the heartbeat timeout and the download starts over on another worker.
     */
    async storeRecordingFile({ recordingId, source }: { recordingId: string; source: RecordingSource }): Promise<StoredRecording> {
      const { recording } = await load(recordingId);
      const key = objectKeyFor(recording.tenant.id, recording.id, source.contentType);
      await store.abortIncompleteUploads(key);
      const context = Context.current();
      const signal = context.cancellationSignal;
      const response = await fetch(source.url, { signal, redirect: 'follow' });
      if (!response.ok || !response.body) {
        await response.body?.cancel().catch(() => {});
        const refused = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
        const message = `download of the recording answered HTTP ${response.status}`;
        if (refused) throw ApplicationFailure.nonRetryable(message, NON_RETRYABLE.sourceRefused);
        throw new Error(message);
      }
      const announced = Number(response.headers.get('content-length') ?? Number.NaN);
      let received = 0;
      const counted = Readable.from(
        (async function* () {
          for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
            received += (chunk as Buffer).length;
            context.heartbeat({ bytes: received });
            yield chunk;
          }
        })(),
      );
      const contentType = response.headers.get('content-type')?.split(';')[0]?.trim() || source.contentType;
      const stored = await store.upload({ key, body: counted, contentType, signal });
      if (Number.isFinite(announced) && stored.sizeBytes !== announced) {
        // A cut-off download must not become a short "ready" file.
        await store.delete({ bucket: stored.bucket, key });
        throw new Error(`download ended after ${stored.sizeBytes} of ${announced} bytes`);
      }
      return { bucket: stored.bucket, key, sizeBytes: stored.sizeBytes, contentType };
    },

    /** `ready` with size and duration. A recording already ready, archived or purged is left as it is. */
    async markRecordingReady(input: {
      recordingId: string;
      stored: StoredRecording;
      durationSeconds: number | null;
    }): Promise<{ changed: boolean; tenantId: string }> {
      const { em, recording } = await load(input.recordingId);
      const tenantId = recording.tenant.id;
      if (recording.purgedAt || recording.status === 'ready' || recording.status === 'archived') return { changed: false, tenantId };
      recording.status = 'ready';
      recording.storageTier = 'primary';
      recording.storageBucket = input.stored.bucket;
      recording.objectKey = input.stored.key;
      recording.contentType = input.stored.contentType;
      recording.sizeBytes = input.stored.sizeBytes;
      recording.durationSeconds = input.durationSeconds ?? recording.durationSeconds ?? null;
      recording.readyAt = new Date();
      recording.failureReason = null;
      await em.flush();
      return { changed: true, tenantId };
    },

    /** `failed`, after the ingestion's retries are spent. Only a recording still waiting for its file changes. */
    async markRecordingFailed({ recordingId, reason }: { recordingId: string; reason: string }): Promise<{ changed: boolean }> {
      const em = orm.em.fork();
      const changed = await em.nativeUpdate(
        RecordingSchema,
        { id: recordingId, status: { $in: ['processing', 'recording', 'failed'] } },
        { status: 'failed', failureReason: reason.slice(0, 2000), updatedAt: new Date() },
      );
      return { changed: changed > 0 };
    },

    /** The auto-stop timer fired: stop the recording if it is still recording. */
    async autoStopRecording({ recordingId }: { recordingId: string }): Promise<{ stopped: boolean }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: recordingId });
      if (!recording || recording.status !== 'recording') return { stopped: false };
      // A provider that is down throws: retried by the activity's policy.
      await stopRecording(em, deps, recording);
      return { stopped: true };
    },

    /** When the recording's retention ends (created_at + the tenant's recording_retention_days); null: nothing to purge. */
    async retentionDeadline({ recordingId, tenantId }: { recordingId: string; tenantId?: string }): Promise<{ purgeAt: number | null }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: recordingId });
      // Row gone with its room: nothing keeps the files any more, they go now (found by their key prefix).
      if (!recording) return { purgeAt: tenantId ? 0 : null };
      if (recording.purgedAt) return { purgeAt: null };
      const tenant = await em.findOne(TenantSchema, { id: recording.tenant.id });
      if (!tenant) return { purgeAt: null };
      const days = withDefaults(tenant.config).recording_retention_days;
      return { purgeAt: recording.createdAt.getTime() + days * DAY_MS };
    },

    /** Retention ended: the stored file is removed (both tiers) and the recording marked deleted. Repeatable. */
    async purgeRecording({ recordingId, tenantId }: { recordingId: string; tenantId?: string }): Promise<{ purged: boolean }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: recordingId });
      if (!recording) {
        if (!tenantId) return { purged: false };
        return { purged: (await store.deletePrefix(objectKeyPrefix(tenantId, recordingId))) > 0 };
      }
      if (recording.purgedAt) return { purged: false };
      if (recording.objectKey) {
        for (const bucket of [store.bucket, store.archiveBucket]) await store.delete({ bucket, key: recording.objectKey });
      }
      const now = new Date();
      recording.deleted = true;
      recording.deletedAt ??= now;
      recording.purgedAt = now;
      await em.flush();
      return { purged: true };
    },
  };
}

export type RecordingActivities = ReturnType<typeof createRecordingActivities>;

const EXTENSIONS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/webm': 'webm',
  'video/webm': 'webm',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'video/mp4': 'mp4',
};

/** recordings/<tenant>/<recording>.<ext>: one key per recording, whatever the number of attempts. */
export function objectKeyFor(tenantId: string, recordingId: string, contentType: string): string {
  const ext = EXTENSIONS[contentType.toLowerCase()] ?? 'bin';
  return `${objectKeyPrefix(tenantId, recordingId)}${ext}`;
}

/** The part of a recording's key that does not depend on its type; `recordings/<tenant>/` holds a tenant's files. */
export function objectKeyPrefix(tenantId: string, recordingId: string): string {
  return `${tenantKeyPrefix(tenantId)}${recordingId}.`;
}

/** Every stored file of a tenant lives under this prefix (what deleting the tenant purges). */
export function tenantKeyPrefix(tenantId: string): string {
  return `recordings/${tenantId}/`;
}

// Activities of the recording workflows: everything that touches the database, the media provider or S3.
// Each is idempotent (a retry after a crash repeats it harmlessly) and throws a non-retryable ApplicationFailure
// only for what no retry can fix.
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { DomainEventPublisher } from '../events/domain-events.ts';
import type { Logger } from '../logger.ts';
import { stopClosedRoomRecording, stopRecording } from '../modules/recordings/recording-stop.ts';
import { linkExpired, openNotifiedSource } from '../modules/recordings/recording-source.ts';
import { RecordingSchema, type Recording } from '../modules/recordings/recording.entity.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { recordingKeyPrefix, recordingObjectKey } from '../storage/keys.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { UpstreamError, type MediaProvider } from '../upstream/media-provider.ts';
import { formatWindow, NON_RETRYABLE, type RecordingSource } from '../../workflows/shared.ts';
import { withSafeFailures } from './safe-failure.ts';

export interface RecordingActivityDeps {
  orm: MikroORM;
  store: ObjectStore;
  provider: MediaProvider;
  events: DomainEventPublisher;
  logger: Logger;
  /** The tenant's effective config (retention days): the same function every service and activity reads it through. */
  tenants: Pick<TenantService, 'effectiveConfig'>;
  /** Opens the notification's download link kept sealed with the recording (docs/decisions.md §7). */
  secretBox: SecretBox;
}

export interface StoredRecording {
  bucket: string;
  key: string;
  sizeBytes: number;
  contentType: string;
}

const DAY_MS = 86_400_000;
/** How long the link may take to answer when the activity has no heartbeat timeout (the workflow sets 15 s). */
const DEFAULT_ANSWER_WITHIN_MS = 7_500;
/** What the notification's link may answer when it is no longer good: then the provider is asked (docs/decisions.md §7). */
const LINK_GONE_STATUSES = new Set([401, 403, 404, 410]);

/** The notification's link answered one of LINK_GONE_STATUSES: not a failure yet, the provider gets asked. */
class NotifiedLinkRefused extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`the notification's link answered HTTP ${status}`);
    this.status = status;
  }
}

export function createRecordingActivities(deps: RecordingActivityDeps) {
  const { orm, store, provider } = deps;

  const load = async (recordingId: string): Promise<{ em: ReturnType<MikroORM['em']['fork']>; recording: Recording }> => {
    const em = orm.em.fork();
    const recording = await em.findOne(RecordingSchema, { id: recordingId });
    if (!recording) throw ApplicationFailure.nonRetryable(`recording ${recordingId} no longer exists`, NON_RETRYABLE.recordingGone);
    return { em, recording };
  };

  /**
   * A fresh signed link from the provider (docs/decisions.md §13: it is a secret, so it is asked for here, at each attempt, and
   * never passed through the workflow). 404/410 and other refusals are permanent; 5xx, 429, timeouts and connection
   * errors are retried within the ingestion's window (docs/decisions.md §7).
   */
  const freshSource = async (upstreamRecordingId: string): Promise<RecordingSource> => {
    let remote;
    try {
      remote = await provider.getRecording(upstreamRecordingId);
    } catch (err) {
      if (err instanceof UpstreamError && !err.retryable) throw permanent(`the provider answered HTTP ${err.status} for the recording (${err.message})`);
      throw err;
    }
    if (remote.status === 'failed') throw permanent('the provider failed to process the recording');
    // Still recording or processing at the provider: retried with backoff until it is ready.
    if (remote.status !== 'ready' || !remote.url) throw new Error(`the provider's recording is ${remote.status}, not ready yet`);
    return {
      url: remote.url,
      contentType: remote.contentType ?? 'application/octet-stream',
      durationSeconds: remote.durationSeconds ?? null,
      sizeBytes: remote.sizeBytes ?? null,
    };
  };

  /**
   * GET the link, waiting for its answer (status and headers) at most half the heartbeat timeout: a link that never
   * answers then fails this attempt with an error of ours, which storeRecordingFile's window check sees (docs/decisions.md §7),
   * instead of ending it in a heartbeat timeout the activity never sees (retried for ever). The bytes that follow are
   * watched by the heartbeats (and the transfer as a whole by the workflow's scheduleToCloseTimeout).
   */
  const fetchAnswering = async (url: string, signal: AbortSignal, bytesTotal: number | null): Promise<Response> => {
    const context = Context.current();
    const answerWithinMs = context.info.heartbeatTimeoutMs ? context.info.heartbeatTimeoutMs / 2 : DEFAULT_ANSWER_WITHIN_MS;
    const unanswered = new AbortController();
    const timer = setTimeout(() => unanswered.abort(), answerWithinMs);
    // The heartbeat timeout now counts from here, so the bound above ends the wait first.
    context.heartbeat({ bytesDone: 0, bytesTotal });
    try {
      return await fetch(url, { signal: AbortSignal.any([signal, unanswered.signal]), redirect: 'follow' });
    } catch (err) {
      if (unanswered.signal.aborted && !signal.aborted) throw new Error(`the recording's link did not answer within ${answerWithinMs} ms`);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };

  /**
   * One attempt of the transfer (docs/decisions.md §7): the notification's link when the recording has one (sealed in its
   * row, never in the workflow) and it has not expired; when it has, or it answers 401/403/404/410, a fresh link from
   * the provider. A recording neither knows fails with both reasons.
   */
  const transferOnce = async (recordingId: string): Promise<StoredRecording & { durationSeconds: number | null }> => {
    const { recording } = await load(recordingId);
    const notified = openNotifiedSource(deps.secretBox, recording.id, recording.sourceSealed);
    let linkFailure: string | null = null;
    if (notified && linkExpired(notified.url, new Date())) linkFailure = "the notification's link has expired";
    else if (notified) {
      const source: RecordingSource = {
        url: notified.url,
        contentType: notified.contentType ?? 'application/octet-stream',
        durationSeconds: recording.durationSeconds ?? null,
        sizeBytes: notified.sizeBytes,
      };
      try {
        return await transferFrom(recording, source, { notified: true });
      } catch (err) {
        if (!(err instanceof NotifiedLinkRefused)) throw err;
        linkFailure = err.message;
      }
    }
    if (!recording.upstreamRecordingId) throw permanent(linkFailure ?? 'the recording has no upstream recording id');
    let source: RecordingSource;
    try {
      source = await freshSource(recording.upstreamRecordingId);
    } catch (err) {
      if (linkFailure && err instanceof ApplicationFailure && err.nonRetryable) throw permanent(`${linkFailure}, and ${err.message}`);
      throw err;
    }
    return transferFrom(recording, source, { notified: false });
  };

  /** The bytes from `source` into S3 under the recording's key (see storeRecordingFile). */
  const transferFrom = async (
    recording: Recording,
    source: RecordingSource,
    { notified }: { notified: boolean },
  ): Promise<StoredRecording & { durationSeconds: number | null }> => {
    checkMediaType(source.contentType);
    checkSize(source.sizeBytes);
    const key = recordingObjectKey(recording.tenant.id, recording.id, source.contentType);
    await store.abortIncompleteUploads(key);
    const context = Context.current();
    const signal = context.cancellationSignal;
    const response = await fetchAnswering(source.url, signal, source.sizeBytes);
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => {});
      if (notified && LINK_GONE_STATUSES.has(response.status)) throw new NotifiedLinkRefused(response.status);
      const message = `download of the recording answered HTTP ${response.status}`;
      if (!isTransientStatus(response.status)) throw permanent(message);
      throw new Error(message);
    }
    const contentType = response.headers.get('content-type')?.split(';')[0]?.trim() || source.contentType;
    checkMediaType(contentType);
    const announced = Number(response.headers.get('content-length') ?? Number.NaN);
    const bytesTotal = Number.isFinite(announced) ? announced : source.sizeBytes;
    checkSize(bytesTotal);
    let bytesDone = 0;
    const counted = Readable.from(
      (async function* () {
        for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
          bytesDone += (chunk as Buffer).length;
          checkSize(bytesDone);
          context.heartbeat({ bytesDone, bytesTotal });
          yield chunk;
        }
      })(),
    );
    const stored = await store.upload({ key, body: counted, contentType, signal });
    if (Number.isFinite(announced) && stored.sizeBytes !== announced) {
      // A cut-off download must not become a short "ready" file.
      await store.delete({ bucket: stored.bucket, key });
      throw new Error(`download ended after ${stored.sizeBytes} of ${announced} bytes`);
    }
    return { bucket: stored.bucket, key, sizeBytes: stored.sizeBytes, contentType, durationSeconds: source.durationSeconds };
  };

  return withSafeFailures({
    /**
     * Downloads from the notification's link (else a fresh one from the provider, see transferOnce), then streams the
     * file into the primary bucket under a key derived from the recording, so a retry overwrites the same object. Heartbeats `{ bytesDone, bytesTotal }` as
     * bytes flow: a worker that dies mid-way is noticed within the heartbeat timeout and the transfer starts over.
     * Input and result carry ids, keys of our bucket and sizes only (docs/decisions.md §13).
     */
    async storeRecordingFile(input: {
      recordingId: string;
      /** docs/decisions.md §7: transient failures are retried (by the activity's retry policy) until this has passed. */
      retryWindowSeconds: number;
    }): Promise<StoredRecording & { durationSeconds: number | null }> {
      try {
        return await transferOnce(input.recordingId);
      } catch (err) {
        if (err instanceof ApplicationFailure && err.nonRetryable) throw err;
        // Both instants are the Temporal server's, so the window is measured in workflow time (skipped in tests).
        const { scheduledTimestampMs, currentAttemptScheduledTimestampMs } = Context.current().info;
        if (currentAttemptScheduledTimestampMs - scheduledTimestampMs < input.retryWindowSeconds * 1000) throw err;
        const last = err instanceof Error ? err.message : String(err);
        throw permanent(`still failing when the retry window of ${formatWindow(input.retryWindowSeconds)} ended; last failure: ${last}`);
      }
    },

    /** `ready` with size and duration. A recording already ready, archived or purged is left as it is. */
    async markRecordingReady(input: {
      recordingId: string;
      stored: StoredRecording;
      durationSeconds: number | null;
    }): Promise<{ changed: boolean; tenantId: string }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: input.recordingId });
      if (!recording) {
        // docs/decisions.md §15: the recording was deleted (its room or tenant) while its file was being stored. The file is
        // removed, not orphaned; then the run ends as for any vanished recording.
        await store.delete({ bucket: input.stored.bucket, key: input.stored.key });
        throw ApplicationFailure.nonRetryable(`recording ${input.recordingId} no longer exists; its stored file was removed`, NON_RETRYABLE.recordingGone);
      }
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
      recording.sourceSealed = null; // the link is a secret no longer needed (docs/decisions.md §7)
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

    /** A room ended or was deleted (workflows/room-recording-stop.ts): stop what still records it. Repeatable. */
    async stopClosedRoomRecording({ roomId }: { roomId: string }): Promise<{ stoppedRecordingId: string | null }> {
      // A provider that is down throws (an UpstreamError, never an HTTP error): retried by the activity's policy.
      const stopped = await stopClosedRoomRecording(orm.em.fork(), deps, roomId);
      return { stoppedRecordingId: stopped?.id ?? null };
    },

    /** When the recording's retention ends (created_at + the tenant's recording_retention_days); null: nothing to purge. */
    async retentionDeadline({ recordingId, tenantId }: { recordingId: string; tenantId?: string }): Promise<{ purgeAt: string | null }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: recordingId });
      // Row gone with its room: nothing keeps the files any more, they go now (found by their key prefix).
      if (!recording) return { purgeAt: tenantId ? new Date(0).toISOString() : null };
      if (recording.purgedAt) return { purgeAt: null };
      const tenant = await em.findOne(TenantSchema, { id: recording.tenant.id });
      if (!tenant) return { purgeAt: null };
      const days = deps.tenants.effectiveConfig(tenant).recording_retention_days;
      return { purgeAt: new Date(recording.createdAt.getTime() + days * DAY_MS).toISOString() };
    },

    /** Retention ended: the stored file is removed (both tiers) and the recording marked deleted. Repeatable. */
    async purgeRecording({ recordingId, tenantId }: { recordingId: string; tenantId?: string }): Promise<{ purged: boolean }> {
      const em = orm.em.fork();
      const recording = await em.findOne(RecordingSchema, { id: recordingId });
      if (!recording) {
        if (!tenantId) return { purged: false };
        return { purged: (await store.deletePrefix(recordingKeyPrefix(tenantId, recordingId))) > 0 };
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
  });
}

export type RecordingActivities = ReturnType<typeof createRecordingActivities>;

/** Over this, a recording is refused rather than stored (docs/decisions.md §7: "over the size limit" fails at once). */
export const MAX_RECORDING_BYTES = 20 * 1024 ** 3;

/** 5xx, 408 and 429 may pass; any other answer to a freshly issued link will not change by retrying. */
function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

function permanent(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(reason, NON_RETRYABLE.permanentIngestFailure);
}

function checkMediaType(contentType: string): void {
  const type = contentType.toLowerCase();
  if (!type.startsWith('audio/') && !type.startsWith('video/') && type !== 'application/octet-stream') {
    throw permanent(`the file is not a media file (content type ${contentType.slice(0, 100)})`);
  }
}

function checkSize(bytes: number | null): void {
  if (bytes !== null && bytes > MAX_RECORDING_BYTES) throw permanent(`the file is over the size limit of ${MAX_RECORDING_BYTES} bytes`);
}

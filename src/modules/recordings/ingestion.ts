// The state changes that end a recording's ingestion (docs/decisions.md §7), as stages with explicit dependencies; the
// transfer itself is ingestion-transfer.ts. Each is repeatable (an activity may run twice) and takes the entity
// manager its activity forked.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ObjectStore } from '../../storage/object-store.ts';
import { RecordingGone } from './ingestion-failures.ts';
import type { StoredRecording } from './ingestion-transfer.ts';
import { RecordingSchema } from './recording.entity.ts';

/**
 * `ready` with where the file is, its size and duration. A recording already ready, archived or purged is left as it
 * is (`changed: false`). A recording deleted (its room or tenant) while its file was being stored: the file is removed,
 * not orphaned (docs/decisions.md §15), then RecordingGone.
 */
export async function markReady(
  em: EntityManager,
  store: Pick<ObjectStore, 'delete'>,
  input: { recordingId: string; stored: StoredRecording; durationSeconds: number | null },
  now: Date = new Date(),
): Promise<{ changed: boolean; tenantId: string }> {
  const recording = await em.findOne(RecordingSchema, { id: input.recordingId });
  if (!recording) {
    await store.delete({ bucket: input.stored.bucket, key: input.stored.key });
    throw new RecordingGone(input.recordingId, '; its stored file was removed');
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
  recording.readyAt = now;
  recording.failureReason = null;
  recording.sourceSealed = null; // the link is a secret no longer needed (docs/decisions.md §7)
  await em.flush();
  return { changed: true, tenantId };
}

/** Stored failure reasons are cut to this many characters. */
export const MAX_FAILURE_REASON_CHARS = 2000;

/** `failed` with its reason, after the ingestion's retries are spent. Only a recording still waiting for its file changes. */
export async function markFailed(em: EntityManager, recordingId: string, reason: string, now: Date = new Date()): Promise<{ changed: boolean }> {
  const changed = await em.nativeUpdate(
    RecordingSchema,
    { id: recordingId, status: { $in: ['processing', 'recording', 'failed'] } },
    { status: 'failed', failureReason: reason.slice(0, MAX_FAILURE_REASON_CHARS), updatedAt: now },
  );
  return { changed: changed > 0 };
}

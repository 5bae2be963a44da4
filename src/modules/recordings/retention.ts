// A stored recording's retention (docs/decisions.md §7: the tenant's recording_retention_days): when it ends, and the purge then.
// Stages with explicit dependencies, called by the retention workflow's activities (src/activities/recordings.ts).
// `tenantId` is the workflow's own copy: with it, the files of a recording whose row went with its room are still found.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordingKeyPrefix } from '../../storage/keys.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { RecordingSchema } from './recording.entity.ts';

const DAY_MS = 86_400_000;

/** When the recording's retention ends (created_at + the tenant's recording_retention_days); null: nothing to purge. */
export async function retentionDeadline(
  em: EntityManager,
  tenants: Pick<TenantService, 'effectiveConfig'>,
  { recordingId, tenantId }: { recordingId: string; tenantId?: string },
): Promise<Date | null> {
  const recording = await em.findOne(RecordingSchema, { id: recordingId });
  // Row gone with its room: nothing keeps the files any more, they go now (found by their key prefix).
  if (!recording) return tenantId ? new Date(0) : null;
  if (recording.purgedAt) return null;
  const tenant = await em.findOne(TenantSchema, { id: recording.tenant.id });
  if (!tenant) return null;
  const days = tenants.effectiveConfig(tenant).recording_retention_days;
  return new Date(recording.createdAt.getTime() + days * DAY_MS);
}

/** Retention ended: the stored file is removed (both tiers) and the recording marked deleted. Repeatable. */
export async function purgeRecording(
  em: EntityManager,
  store: Pick<ObjectStore, 'bucket' | 'archiveBucket' | 'delete' | 'deletePrefix'>,
  { recordingId, tenantId }: { recordingId: string; tenantId?: string },
  now: Date = new Date(),
): Promise<{ purged: boolean }> {
  const recording = await em.findOne(RecordingSchema, { id: recordingId });
  if (!recording) {
    if (!tenantId) return { purged: false };
    return { purged: (await store.deletePrefix(recordingKeyPrefix(tenantId, recordingId))) > 0 };
  }
  if (recording.purgedAt) return { purged: false };
  if (recording.objectKey) {
    for (const bucket of [store.bucket, store.archiveBucket]) await store.delete({ bucket, key: recording.objectKey });
  }
  recording.deleted = true;
  recording.deletedAt ??= now;
  recording.purgedAt = now;
  await em.flush();
  return { purged: true };
}

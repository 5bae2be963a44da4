// Where a recording's stored file is, for those that read it (transcription, post-meeting).
import type { ObjectStore } from '../../storage/object-store.ts';
import type { Recording } from './recording.entity.ts';

/** The primary or the archive bucket, per its storage tier; null when no file is stored (purged, never ingested). */
export function storedLocation(recording: Recording, store: Pick<ObjectStore, 'bucket' | 'archiveBucket'>) {
  if (!recording.objectKey || recording.purgedAt || (recording.status !== 'ready' && recording.status !== 'archived')) return null;
  const bucket = recording.storageTier === 'archive' ? store.archiveBucket : store.bucket;
  return { bucket, key: recording.objectKey };
}

// The object key layout, in one place: every key the service writes, lists or deletes is built here.
//
//   recordings/<tenant id>/<recording id>.<ext>
//
// One key per recording whatever the number of ingestion attempts (a retry overwrites, never duplicates), and every
// file of a tenant under one prefix, so deleting the tenant (tenant-purge) or a recording whose row is gone
// (retention) finds the files by prefix alone. The same key is used in the primary and the archive bucket.

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

/** Every stored file of a tenant lives under this prefix (what deleting the tenant purges). */
export function tenantKeyPrefix(tenantId: string): string {
  return `recordings/${tenantId}/`;
}

/** The part of a recording's key that does not depend on its type (what retention purges when the row is gone). */
export function recordingKeyPrefix(tenantId: string, recordingId: string): string {
  return `${tenantKeyPrefix(tenantId)}${recordingId}.`;
}

/** recordings/<tenant>/<recording>.<ext>, the extension from the content type (`bin` when unknown). */
export function recordingObjectKey(tenantId: string, recordingId: string, contentType: string): string {
  const ext = EXTENSIONS[contentType.toLowerCase()] ?? 'bin';
  return `${recordingKeyPrefix(tenantId, recordingId)}${ext}`;
}

/** The file name a download offers: the key's last segment (`<recording id>.<ext>`). */
export function downloadFileName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

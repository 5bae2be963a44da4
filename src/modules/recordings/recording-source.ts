// The notification's temporary link, kept with the recording (docs/decisions.md §7: the notification's `url` is where the
// recording is downloaded from). The link is a secret (a signed URL), so it is sealed with SECRETS_KEY in the
// recordings row, bound to that recording as every sealed value is to its row (SecretBox, sealedContext), and
// opened only by the transfer activity: it never enters a workflow history (docs/decisions.md §13).
import { sealedContext, type SecretBox } from '../../security/secret-box.ts';
import type { RecordingReadyNotification } from '../../upstream/protocol.ts';

export interface NotifiedSource {
  url: string;
  contentType: string | null;
  sizeBytes: number | null;
}

/** Binds the sealed value to its recording: copied to another row, it does not open. */
const context = (recordingId: string) => sealedContext('recording', recordingId, 'source');

export function sealNotifiedSource(box: SecretBox, recordingId: string, notification: RecordingReadyNotification): string {
  const source: NotifiedSource = { url: notification.url, contentType: notification.content_type ?? null, sizeBytes: notification.size_bytes ?? null };
  return box.seal(JSON.stringify(source), context(recordingId));
}

/** The same link sealed with the newest SECRETS_KEY key (the reseal command); throws when it does not open. */
export const resealNotifiedSource = (box: SecretBox, recordingId: string, sealed: string): string => box.reseal(sealed, context(recordingId));

/** The sealed source, or null when there is none or it does not open (another key: the provider is asked instead). */
export function openNotifiedSource(box: SecretBox, recordingId: string, sealed: string | null | undefined): NotifiedSource | null {
  if (!sealed) return null;
  try {
    const source = JSON.parse(box.open(sealed, context(recordingId))) as NotifiedSource;
    return typeof source.url === 'string' ? source : null;
  } catch {
    return null;
  }
}

/**
 * Whether the link says it has expired: an `expires` query parameter (Unix seconds, as the development media server
 * and many CDNs sign) or S3's `X-Amz-Date` + `X-Amz-Expires` in the past. A link that says nothing is tried.
 */
export function linkExpired(url: string, now: Date): boolean {
  let query: URLSearchParams;
  try {
    query = new URL(url).searchParams;
  } catch {
    return true; // not a URL at all: nothing to try
  }
  const expires = query.get('expires') ?? query.get('Expires');
  if (expires && /^\d{1,12}$/.test(expires)) return Number(expires) * 1000 <= now.getTime();
  const amzDate = query.get('X-Amz-Date');
  const amzExpires = query.get('X-Amz-Expires');
  const m = amzDate ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate) : null;
  if (m && amzExpires && /^\d{1,9}$/.test(amzExpires)) {
    const signedAt = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    return signedAt + Number(amzExpires) * 1000 <= now.getTime();
  }
  return false;
}

// One attempt of a recording's transfer into S3 (docs/decisions.md §7), as a stage with explicit dependencies: the
// activity (src/activities/recordings.ts storeRecordingFile) forks the entity manager, supplies the cancellation
// signal and the heartbeat, and turns what this throws into Temporal failures. The link is read here, at each attempt,
// and never passed through a workflow (it is a secret, docs/decisions.md §13).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Readable } from 'node:stream';
import { guardedGet, type GuardedResponse } from '../../security/guarded-download.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { UnresolvableHostError, UnsafeUrlError, type SsrfPolicy } from '../../security/ssrf-guard.ts';
import { recordingObjectKey } from '../../storage/keys.ts';
import { SpanKind, withSpan } from '../../tracing/spans.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { UpstreamError, type MediaProvider } from '../../upstream/media-provider.ts';
import { PermanentIngestFailure, RecordingGone } from './ingestion-failures.ts';
import { linkExpired, openNotifiedSource } from './recording-source.ts';
import { RecordingSchema, type Recording } from './recording.entity.ts';

/** Over this, a recording is refused rather than stored (docs/decisions.md §7: "over the size limit" fails at once). */
export const MAX_RECORDING_BYTES = 20 * 1024 ** 3;
/** What the notification's link may answer when it is no longer good: then the provider is asked (docs/decisions.md §7). */
const LINK_GONE_STATUSES = new Set([401, 403, 404, 410]);

export interface TransferDeps {
  store: ObjectStore;
  provider: MediaProvider;
  /** Opens the notification's download link kept sealed with the recording (docs/decisions.md §7). */
  secretBox: SecretBox;
  /** What both links may reach: the address guard of outgoing webhooks (docs/decisions.md §7, ssrfPolicy(config)). */
  ssrfPolicy: SsrfPolicy;
}

/** What the caller watches the transfer with (the activity: its cancellation signal and its heartbeat). */
export interface TransferWatch {
  /** Aborts the download and the upload. */
  signal: AbortSignal;
  /** How long the link may take to answer (status and headers) before this attempt fails with an error of ours. */
  answerWithinMs: number;
  /** Called before the request and as bytes flow. */
  progress(bytes: { bytesDone: number; bytesTotal: number | null }): void;
}

/** Where the file was stored: ids, keys of our bucket and sizes only (docs/decisions.md §13). */
export interface StoredRecording {
  bucket: string;
  key: string;
  sizeBytes: number;
  contentType: string;
}

export type TransferredRecording = StoredRecording & { durationSeconds: number | null };

/** Where the bytes come from at this attempt: the notification's link or a fresh one from the provider. */
interface TransferSource {
  url: string;
  contentType: string;
  durationSeconds: number | null;
  sizeBytes: number | null;
}

/** The notification's link answered one of LINK_GONE_STATUSES: not a failure yet, the provider gets asked. */
class NotifiedLinkRefused extends Error {
  constructor(status: number) {
    super(`the notification's link answered HTTP ${status}`);
  }
}

/**
 * One attempt: the notification's link when the recording has one (sealed in its row) and it has not expired; when it
 * has, or it answers 401/403/404/410, a fresh link from the provider. A recording neither knows fails with both
 * reasons. The file goes under a key derived from the recording, so a retry overwrites the same object.
 * Throws RecordingGone, PermanentIngestFailure, or anything else for a transient failure.
 */
export async function transferRecording(
  em: EntityManager,
  deps: TransferDeps,
  recordingId: string,
  watch: TransferWatch,
  now: Date = new Date(),
): Promise<TransferredRecording> {
  const recording = await em.findOne(RecordingSchema, { id: recordingId });
  if (!recording) throw new RecordingGone(recordingId);
  const notified = openNotifiedSource(deps.secretBox, recording.id, recording.sourceSealed);
  let linkFailure: string | null = null;
  if (notified && linkExpired(notified.url, now)) linkFailure = "the notification's link has expired";
  else if (notified) {
    const source: TransferSource = {
      url: notified.url,
      contentType: notified.contentType ?? 'application/octet-stream',
      durationSeconds: recording.durationSeconds ?? null,
      sizeBytes: notified.sizeBytes,
    };
    try {
      return await transferFrom(deps, recording, source, watch, { notified: true });
    } catch (err) {
      if (!(err instanceof NotifiedLinkRefused)) throw err;
      linkFailure = err.message;
    }
  }
  if (!recording.upstreamRecordingId) throw new PermanentIngestFailure(linkFailure ?? 'the recording has no upstream recording id');
  let source: TransferSource;
  try {
    source = await freshSource(deps.provider, recording.upstreamRecordingId);
  } catch (err) {
    if (linkFailure && err instanceof PermanentIngestFailure) throw new PermanentIngestFailure(`${linkFailure}, and ${err.message}`);
    throw err;
  }
  return transferFrom(deps, recording, source, watch, { notified: false });
}

/**
 * A fresh signed link from the provider (asked for at each attempt, never passed through the workflow). 404/410 and
 * other refusals are permanent; 5xx, 429, timeouts and connection errors are retried within the ingestion's window.
 */
async function freshSource(provider: MediaProvider, upstreamRecordingId: string): Promise<TransferSource> {
  let remote;
  try {
    remote = await provider.getRecording(upstreamRecordingId);
  } catch (err) {
    if (err instanceof UpstreamError && !err.retryable) {
      throw new PermanentIngestFailure(`the provider answered HTTP ${err.status} for the recording (${err.message})`);
    }
    throw err;
  }
  if (remote.status === 'failed') throw new PermanentIngestFailure('the provider failed to process the recording');
  // Still recording or processing at the provider: retried with backoff until it is ready.
  if (remote.status !== 'ready' || !remote.url) throw new Error(`the provider's recording is ${remote.status}, not ready yet`);
  return {
    url: remote.url,
    contentType: remote.contentType ?? 'application/octet-stream',
    durationSeconds: remote.durationSeconds ?? null,
    sizeBytes: remote.sizeBytes ?? null,
  };
}

/** The bytes from `source` into S3 under the recording's key; a cut-off download is removed, never stored short. */
async function transferFrom(
  { store, ssrfPolicy }: Pick<TransferDeps, 'store' | 'ssrfPolicy'>,
  recording: Recording,
  source: TransferSource,
  watch: TransferWatch,
  { notified }: { notified: boolean },
): Promise<TransferredRecording> {
  checkMediaType(source.contentType);
  checkSize(source.sizeBytes);
  const key = recordingObjectKey(recording.tenant.id, recording.id, source.contentType);
  await store.abortIncompleteUploads(key);
  const response = await fetchAnswering(source.url, ssrfPolicy, watch, source.sizeBytes);
  if (response.status < 200 || response.status > 299) {
    response.body.destroy();
    if (notified && LINK_GONE_STATUSES.has(response.status)) throw new NotifiedLinkRefused(response.status);
    const message = `download of the recording answered HTTP ${response.status}`;
    if (!isTransientStatus(response.status)) throw new PermanentIngestFailure(message);
    throw new Error(message);
  }
  const contentType = response.headers['content-type']?.split(';')[0]?.trim() || source.contentType;
  checkMediaType(contentType);
  const announced = Number(response.headers['content-length'] ?? Number.NaN);
  const bytesTotal = Number.isFinite(announced) ? announced : source.sizeBytes;
  checkSize(bytesTotal);
  let bytesDone = 0;
  const counted = Readable.from(
    (async function* () {
      for await (const chunk of response.body) {
        bytesDone += (chunk as Buffer).length;
        checkSize(bytesDone);
        watch.progress({ bytesDone, bytesTotal });
        yield chunk;
      }
    })(),
  );
  const stored = await store.upload({ key, body: counted, contentType, signal: watch.signal });
  if (Number.isFinite(announced) && stored.sizeBytes !== announced) {
    // A cut-off download must not become a short "ready" file.
    await store.delete({ bucket: stored.bucket, key });
    throw new Error(`download ended after ${stored.sizeBytes} of ${announced} bytes`);
  }
  return { bucket: stored.bucket, key, sizeBytes: stored.sizeBytes, contentType, durationSeconds: source.durationSeconds };
}

/**
 * GET the link through the address guard (redirects too), waiting for its answer (status and headers) at most
 * `watch.answerWithinMs`: a link that never answers then fails this attempt with an error of ours, which the activity's
 * window check sees (docs/decisions.md §7), instead of ending it in a heartbeat timeout the activity never sees
 * (retried for ever). The bytes that follow are watched by the progress calls (the activity's heartbeats). A link or
 * redirect the guard refuses fails the recording at once: no retry makes a forbidden address allowed. A name with no
 * DNS answer is a network failure like any other, retried within the window.
 */
async function fetchAnswering(url: string, policy: SsrfPolicy, watch: TransferWatch, bytesTotal: number | null): Promise<GuardedResponse> {
  const unanswered = new AbortController();
  const timer = setTimeout(() => unanswered.abort(), watch.answerWithinMs);
  // The heartbeat timeout now counts from here, so the bound above ends the wait first.
  watch.progress({ bytesDone: 0, bytesTotal });
  try {
    // The recording's trace shows the provider's answer (docs/decisions.md §12); the span names the host only, never the
    // link, which carries the provider's credentials.
    const attributes = { 'http.request.method': 'GET', 'server.address': hostOf(url) };
    return await withSpan('GET recording link', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const answer = await guardedGet(url, policy, AbortSignal.any([watch.signal, unanswered.signal]));
      span.setAttribute('http.response.status_code', answer.status);
      return answer;
    });
  } catch (err) {
    if (unanswered.signal.aborted && !watch.signal.aborted) throw new Error(`the recording's link did not answer within ${watch.answerWithinMs} ms`);
    if (err instanceof UnsafeUrlError && !(err instanceof UnresolvableHostError)) {
      throw new PermanentIngestFailure(`the download was refused by the address guard: ${err.message}`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** 5xx, 408 and 429 may pass; any other answer to a freshly issued link will not change by retrying. */
function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

function checkMediaType(contentType: string): void {
  const type = contentType.toLowerCase();
  if (!type.startsWith('audio/') && !type.startsWith('video/') && type !== 'application/octet-stream') {
    throw new PermanentIngestFailure(`the file is not a media file (content type ${contentType.slice(0, 100)})`);
  }
}

function checkSize(bytes: number | null): void {
  if (bytes !== null && bytes > MAX_RECORDING_BYTES) throw new PermanentIngestFailure(`the file is over the size limit of ${MAX_RECORDING_BYTES} bytes`);
}

/** The host of a link, for a span; empty when it is not a URL (the guard refuses it anyway). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

// The transfer stage of ingestion (docs/decisions.md §7) with real HTTP links on a local server and the real sealed
// link: which link is used, when the provider is asked, and which failures are permanent (the recording fails at
// once) rather than transient (retried within INGEST_RETRY_WINDOW). The database row, the provider and the bucket
// are small stand-ins here; test/integration/recordings and test/workflows/ingest-outages run the same stage for real.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { createRecordingActivities, type RecordingActivityDeps } from '../../../src/activities/recordings.ts';
import { PermanentIngestFailure, RecordingGone } from '../../../src/modules/recordings/ingestion-failures.ts';
import { MAX_RECORDING_BYTES, transferRecording, type TransferDeps } from '../../../src/modules/recordings/ingestion-transfer.ts';
import { sealNotifiedSource } from '../../../src/modules/recordings/recording-source.ts';
import { generateSecretsKey, SecretBox } from '../../../src/security/secret-box.ts';
import type { SsrfPolicy } from '../../../src/security/ssrf-guard.ts';
import { UpstreamError, type MediaProvider, type UpstreamRecording } from '../../../src/upstream/media-provider.ts';

const FILE = Buffer.alloc(64 * 1024, 7);
const box = new SecretBox(generateSecretsKey());
let server: http.Server;
let base: string;
/** Paths the local server was asked for, in order. */
let served: string[] = [];
/** The tests' links are on loopback, as SSRF_ALLOW_LOOPBACK allows outside production (docs/decisions.md §7). */
const LOCAL: SsrfPolicy = { production: false, allowLoopback: true };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    served.push(path);
    // /hops/N redirects N times (relative Locations), then serves the file; /to/<url> redirects there.
    const hops = /^\/hops\/(\d+)$/.exec(path);
    if (hops) return void res.writeHead(302, { Location: Number(hops[1]) > 1 ? `/hops/${Number(hops[1]) - 1}` : '/file.wav' }).end();
    if (path.startsWith('/to/')) return void res.writeHead(307, { Location: decodeURIComponent(path.slice('/to/'.length)) }).end();
    if (path.startsWith('/status/')) return void res.writeHead(Number(path.slice('/status/'.length))).end();
    if (path === '/page.html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>');
    if (path === '/silent') return; // never answers
    res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': String(FILE.length) }).end(FILE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const future = () => Math.floor(Date.now() / 1000) + 3600;
const past = () => Math.floor(Date.now() / 1000) - 60;

/** A recording row as the stage reads it, with the notification's link sealed in it (or none). */
function recordingWith(link: string | null, upstreamRecordingId: string | null = 'up-1') {
  const sourceSealed = link
    ? sealNotifiedSource(box, 'rec-1', { type: 'recording.ready', recording_id: 'up-1', meeting_id: 'room-1', url: link, duration_seconds: 30, content_type: 'audio/wav', size_bytes: FILE.length })
    : null;
  return { id: 'rec-1', tenant: { id: 'tenant-1' }, sourceSealed, durationSeconds: 30, upstreamRecordingId };
}

function harness(recording: ReturnType<typeof recordingWith> | null, fresh: () => Promise<UpstreamRecording>, ssrfPolicy: SsrfPolicy = LOCAL) {
  const asked: string[] = [];
  const uploads: { key: string; bytes: number; contentType: string }[] = [];
  const progress: { bytesDone: number; bytesTotal: number | null }[] = [];
  const provider = { getRecording: async (id: string) => (asked.push(id), fresh()) } as unknown as MediaProvider;
  const store = {
    bucket: 'primary',
    abortIncompleteUploads: async () => 0,
    delete: async () => {},
    async upload({ key, body, contentType }: { key: string; body: Readable; contentType: string }) {
      let bytes = 0;
      for await (const chunk of body) bytes += (chunk as Buffer).length;
      uploads.push({ key, bytes, contentType });
      return { bucket: 'primary', key, sizeBytes: bytes };
    },
  };
  const em = { findOne: async () => recording } as unknown as EntityManager;
  const deps = { store, provider, secretBox: box, ssrfPolicy } as unknown as TransferDeps;
  const run = (answerWithinMs = 5000) =>
    transferRecording(em, deps, 'rec-1', { signal: new AbortController().signal, answerWithinMs, progress: (p) => progress.push(p) });
  /** The activity around the stage, as the worker registers it, in a mock activity context (attempt times, heartbeats). */
  const activity = (info: { scheduledTimestampMs: number; currentAttemptScheduledTimestampMs: number; heartbeatTimeoutMs?: number }) => {
    const activities = createRecordingActivities({ ...deps, orm: { em: { fork: () => em } } } as unknown as RecordingActivityDeps);
    const env = new MockActivityEnvironment(info);
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const store = (retryWindowSeconds: number) => env.run(activities.storeRecordingFile, { recordingId: 'rec-1', retryWindowSeconds });
    return { store, heartbeats };
  };
  return { run, activity, asked, uploads, progress };
}

const ready = (url: string, extra: Partial<UpstreamRecording> = {}): UpstreamRecording => ({
  id: 'up-1',
  meetingId: 'room-1',
  status: 'ready',
  startedAt: '2026-11-25T10:00:00Z',
  url,
  contentType: 'audio/wav',
  sizeBytes: FILE.length,
  durationSeconds: 31,
  ...extra,
});
const providerRefuses = (status: number) => async (): Promise<UpstreamRecording> => {
  throw new UpstreamError(status, 'not_found', `recording up-1: HTTP ${status}`);
};

test("the notification's link, when it is good: the provider is not asked; bytes are reported as they flow", async () => {
  const h = harness(recordingWith(`${base}/file.wav?expires=${future()}&sig=abc`), providerRefuses(500));
  const stored = await h.run();
  expect(stored).toEqual({ bucket: 'primary', key: 'recordings/tenant-1/rec-1.wav', sizeBytes: FILE.length, contentType: 'audio/wav', durationSeconds: 30 });
  expect(h.asked).toEqual([]);
  expect(h.progress[0]).toEqual({ bytesDone: 0, bytesTotal: FILE.length });
  expect(h.progress.at(-1)).toEqual({ bytesDone: FILE.length, bytesTotal: FILE.length });
});

test('an expired link is not tried: a fresh one from the provider is', async () => {
  const h = harness(recordingWith(`${base}/status/500?expires=${past()}`), async () => ready(`${base}/fresh.wav`));
  expect(await h.run()).toMatchObject({ sizeBytes: FILE.length, durationSeconds: 31 });
  expect(h.asked).toEqual(['up-1']);
});

test.each([401, 403, 404, 410])('a link answering %i: the provider is asked', async (status) => {
  const h = harness(recordingWith(`${base}/status/${status}`), async () => ready(`${base}/fresh.wav`));
  expect(await h.run()).toMatchObject({ sizeBytes: FILE.length });
  expect(h.asked).toEqual(['up-1']);
});

test('a link refused and a provider that does not know the recording: permanent, with both reasons', async () => {
  const h = harness(recordingWith(`${base}/status/410`), providerRefuses(404));
  const failure = await h.run().catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(PermanentIngestFailure);
  expect((failure as Error).message).toBe("the notification's link answered HTTP 410, and the provider answered HTTP 404 for the recording (recording up-1: HTTP 404)");
});

test('transient answers stay transient (retried within the window): the link or the fresh link at 5xx/408/429, the provider down or not ready', async () => {
  for (const status of [500, 503, 408, 429]) {
    const fromLink = await harness(recordingWith(`${base}/status/${status}`), providerRefuses(404)).run().catch((err: unknown) => err);
    expect([status, fromLink instanceof PermanentIngestFailure, (fromLink as Error).message]).toEqual([status, false, `download of the recording answered HTTP ${status}`]);
    const fromFresh = await harness(recordingWith(null), async () => ready(`${base}/status/${status}`)).run().catch((err: unknown) => err);
    expect([status, fromFresh instanceof PermanentIngestFailure]).toEqual([status, false]);
  }
  const down = await harness(recordingWith(null), providerRefuses(503)).run().catch((err: unknown) => err);
  expect([down instanceof UpstreamError, down instanceof PermanentIngestFailure]).toEqual([true, false]);
  const processing = await harness(recordingWith(null), async () => ready('', { status: 'processing', url: undefined })).run().catch((err: unknown) => err);
  expect([processing instanceof PermanentIngestFailure, (processing as Error).message]).toEqual([false, "the provider's recording is processing, not ready yet"]);
});

test('permanent at once: a fresh link answering 400, a provider that failed the recording, not a media file, over the size limit, no source at all', async () => {
  const cases: [string, ReturnType<typeof harness>, string][] = [
    ['fresh 400', harness(recordingWith(null), async () => ready(`${base}/status/400`)), 'download of the recording answered HTTP 400'],
    ['provider failed', harness(recordingWith(null), async () => ready('', { status: 'failed' })), 'the provider failed to process the recording'],
    ['html', harness(recordingWith(`${base}/page.html`), providerRefuses(500)), 'the file is not a media file (content type text/html)'],
    ['too large', harness(recordingWith(null), async () => ready(`${base}/fresh.wav`, { sizeBytes: MAX_RECORDING_BYTES + 1 })), `the file is over the size limit of ${MAX_RECORDING_BYTES} bytes`],
    ['no source', harness(recordingWith(null, null), providerRefuses(500)), 'the recording has no upstream recording id'],
  ];
  for (const [name, h, message] of cases) {
    const failure = await h.run().catch((err: unknown) => err);
    expect([name, failure instanceof PermanentIngestFailure, (failure as Error).message]).toEqual([name, true, message]);
    expect([name, h.uploads]).toEqual([name, []]);
  }
});

test('a link that never answers fails the attempt with an error of ours, in time for the window check', async () => {
  const h = harness(recordingWith(`${base}/silent`), providerRefuses(500));
  const failure = await h.run(100).catch((err: unknown) => err);
  expect([failure instanceof PermanentIngestFailure, (failure as Error).message]).toEqual([false, "the recording's link did not answer within 100 ms"]);
});

describe('the address guard (docs/decisions.md §7): both links and every redirect target', () => {
  const refusal = async (h: ReturnType<typeof harness>) => {
    const failure = await h.run().catch((err: unknown) => err);
    return [failure instanceof PermanentIngestFailure, (failure as Error).message, h.uploads.length];
  };

  test('redirects are followed, at most 5: the sixth is refused and the recording fails at once', async () => {
    expect(await harness(recordingWith(`${base}/hops/5`), providerRefuses(500)).run()).toMatchObject({ sizeBytes: FILE.length });
    const h = harness(recordingWith(`${base}/hops/6`), providerRefuses(500));
    expect(await refusal(h)).toEqual([true, 'the download was refused by the address guard: more than 5 redirects', 0]);
    expect(h.asked).toEqual([]); // a refused link is not a gone link: the provider is not asked for another
  });

  test('a redirect to a forbidden address is refused before it is requested', async () => {
    served = [];
    const metadata = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    const h = harness(recordingWith(`${base}/to/${metadata}`), providerRefuses(500));
    expect(await refusal(h)).toEqual([true, expect.stringMatching(/^the download was refused by the address guard: URL host 169\.254\.169\.254 is a link-local/), 0]);
    expect(served).toEqual([`/to/${metadata}`]);
  });

  test('without SSRF_ALLOW_LOOPBACK, a loopback link fails the recording with the reason, the fresh link too', async () => {
    const off: SsrfPolicy = { production: false, allowLoopback: false };
    const notified = harness(recordingWith(`${base}/file.wav`), async () => ready(`${base}/fresh.wav`), off);
    expect(await refusal(notified)).toEqual([true, 'the download was refused by the address guard: URL host 127.0.0.1 is a loopback address', 0]);
    const fresh = harness(recordingWith(null), async () => ready(`${base}/fresh.wav`), off);
    expect(await refusal(fresh)).toEqual([true, 'the download was refused by the address guard: URL host 127.0.0.1 is a loopback address', 0]);
  });

  test('in production: https only, and loopback never, whatever allowLoopback says', async () => {
    const production = harness(recordingWith(`${base}/file.wav`), providerRefuses(500), { production: true, allowLoopback: true });
    expect(await refusal(production)).toEqual([true, 'the download was refused by the address guard: URL must use https in production', 0]);
    const secure = harness(recordingWith(`${base.replace('http:', 'https:')}/file.wav`), providerRefuses(500), { production: true, allowLoopback: true });
    expect(await refusal(secure)).toEqual([true, 'the download was refused by the address guard: URL host 127.0.0.1 is a loopback address', 0]);
  });
});

test('a recording whose row is gone: RecordingGone', async () => {
  await expect(harness(null, providerRefuses(500)).run()).rejects.toBeInstanceOf(RecordingGone);
});

describe('storeRecordingFile, the activity around the stage', () => {
  const HOUR_MS = 3600_000;
  const failureOf = (promise: Promise<unknown>) => promise.then(() => null, (err: unknown) => err as ApplicationFailure);

  test('stores and heartbeats { bytesDone, bytesTotal } as the bytes flow', async () => {
    const { store, heartbeats } = harness(recordingWith(`${base}/file.wav`), providerRefuses(500)).activity({ scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: 0 });
    expect(await store(3600)).toMatchObject({ sizeBytes: FILE.length });
    expect(heartbeats.at(-1)).toEqual({ bytesDone: FILE.length, bytesTotal: FILE.length });
  });

  test('permanent failures and a vanished recording become non-retryable failures of the workflow’s types', async () => {
    const times = { scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: 0 };
    const permanent = await failureOf(harness(recordingWith(`${base}/page.html`), providerRefuses(500)).activity(times).store(3600));
    expect(permanent).toBeInstanceOf(ApplicationFailure);
    expect(permanent).toMatchObject({ type: 'PermanentIngestFailure', nonRetryable: true, message: 'the file is not a media file (content type text/html)' });
    const gone = await failureOf(harness(null, providerRefuses(500)).activity(times).store(3600));
    expect(gone).toMatchObject({ type: 'RecordingGone', nonRetryable: true, message: 'recording rec-1 no longer exists' });
  });

  test('a transient failure is retried while the window lasts, and made permanent once it has ended', async () => {
    const busy = () => harness(recordingWith(null), async () => ready(`${base}/status/503`));
    const inside = await failureOf(busy().activity({ scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: HOUR_MS - 1 }).store(3600));
    expect(inside).toMatchObject({ nonRetryable: false, message: 'download of the recording answered HTTP 503' });
    const after = await failureOf(busy().activity({ scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: HOUR_MS }).store(3600));
    expect(after).toMatchObject({
      type: 'PermanentIngestFailure',
      nonRetryable: true,
      message: 'still failing when the retry window of 1 h ended; last failure: download of the recording answered HTTP 503',
    });
  });

  test('a link that never answers fails within half the heartbeat timeout', async () => {
    const h = harness(recordingWith(`${base}/silent`), providerRefuses(500));
    const failure = await failureOf(h.activity({ scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: 0, heartbeatTimeoutMs: 300 }).store(3600));
    expect(failure).toMatchObject({ nonRetryable: false, message: "the recording's link did not answer within 150 ms" });
  });
});

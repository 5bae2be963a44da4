// The development media server (docs/decisions.md §8): a real HTTP service that plays the media provider for `npm run dev`
// and the tests. It speaks the protocol of docs/media-provider.md: recordings that start, stop, "process" and
// become ready with a generated WAV at an expiring URL, signed `recording.ready` notifications, and an
// OpenAI-compatible transcription endpoint that knows what was "said" in the recordings it generated, and an
// OpenAI-compatible chat completions endpoint answering a deterministic summary and action items.
//
// Run alone: `node dev/media-server/server.ts` (environment in docs/media-provider.md).

import { timingSafeEqual, createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { RecordingReadyNotification, WireRecording } from '../../src/upstream/protocol.ts';
import { HttpError, readJsonObject, sendError, sendJson } from './http.ts';
import { MediaUrlSigner } from './media-url.ts';
import { deliverNotification, notificationRequest, type NotificationAttempt } from './notifier.ts';
import { MAX_DURATION_SECONDS, RecordingBook, type DevRecording, type NewRecording } from './recordings.ts';
import { scriptedTranscript, type ScriptedTranscript } from './script.ts';
import { handleChatCompletion } from './chat.ts';
import { handleTranscription, type TranscriptionRequestLog } from './transcriptions.ts';
import { WAV_CONTENT_TYPE, wavSize, wavStream, type SampleRate, type WavSpec } from './wav.ts';

export interface DevMediaServerOptions {
  /** 0 (default) lets the OS pick a free port. */
  port?: number;
  /** Interface to listen on, default 127.0.0.1. */
  host?: string;
  /** Where `recording.ready` notifications go; without it none are sent. */
  notifyUrl?: string;
  /** Shared secret signing notifications (`X-Upstream-Signature`) and, derived, the media URLs. */
  webhookSecret: string;
  /** Base URL of the media links handed out, default `http://<host>:<port>`. */
  publicUrl?: string;
  /** When set, every `/v1/*` request must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Every recording lasts this many seconds instead of its wall-clock time (a start body may override it). */
  recordingSeconds?: number;
  /** Time spent in `processing` after a stop, default 200 ms. */
  processingDelayMs?: number;
  /** Send `recording.ready` when processing ends, default true. */
  autoNotify?: boolean;
  /** Lifetime of media links, default 3600 s. */
  mediaUrlTtlSeconds?: number;
  /** Sample rate of generated audio, default 8000. */
  sampleRate?: SampleRate;
  /** Waits before each notification attempt (its length is the number of attempts), default 0, 0.5, 1, 2, 4, 8 s. */
  notifyRetryDelaysMs?: number[];
  /** Per notification attempt, default 10 s. */
  notifyTimeoutMs?: number;
  /** Keep recordings in this JSON file across restarts. */
  stateFile?: string;
  /** Largest transcription upload, default 1 GiB (read as a stream, never held in memory). */
  maxUploadBytes?: number;
  /** Transcription `response_format`s answered 422 (FastAPI `{detail}`), as a self-hosted Whisper server does. */
  refuseResponseFormats?: string[];
  /**
   * A WAV file to serve as a meeting's recordings instead of generated tones (the meeting id is Convene's room id): to
   * send real speech through the whole pipeline (bench/spoken-pipeline.ts). Its size is the file's.
   */
  audioFile?: (meetingId: string) => string | undefined;
  log?: (line: string) => void;
}

export interface SeedRecordingInput {
  meetingId: string;
  meetingName?: string;
  durationSeconds?: number;
  /** Default `ready`. */
  status?: 'recording' | 'processing' | 'ready' | 'failed';
  /** Send `recording.ready` for a seeded ready recording, default false (a notification the API never got). */
  notify?: boolean;
  /**
   * Known only to its notification (docs/decisions.md §7: imports, other regions, webhook-only integrations): the REST API
   * answers 404 for it and does not list it, its media link works. Default false.
   */
  unlisted?: boolean;
}

export interface DevMediaServer {
  readonly url: string;
  readonly port: number;
  /** Closes the server and cancels pending processing and notifications. */
  stop(): Promise<void>;
  /** A recording the provider made on its own (e.g. auto-recording), unknown to Convene: for Sync and import. */
  seedRecording(input: SeedRecordingInput): WireRecording;
  getRecording(id: string): WireRecording | undefined;
  listRecordings(meetingId?: string): WireRecording[];
  /** A media link for a recording, expiring at `expiresAt` (default: the configured lifetime from now). */
  mediaUrl(id: string, expiresAt?: Date): string;
  /**
   * The notification for a ready recording, exactly as sent: raw body and `X-Upstream-Signature` value. `urlExpiresAt`
   * dates its media link (an expired link, to exercise the fallback to the REST API).
   */
  notificationFor(id: string, options?: { urlExpiresAt?: Date }): { body: string; signature: string };
  /** Delivers the notification of a ready recording now (with retries); true when a receiver answered 2xx. */
  sendNotification(id: string, url?: string): Promise<boolean>;
  /** The scripted transcript the transcription endpoint returns for a stopped recording's file. */
  transcriptFor(id: string): ScriptedTranscript;
  /** Every transcription request so far (the latest 1000): fields and bytes received. */
  readonly transcriptionRequests: readonly TranscriptionRequestLog[];
  /** Every notification attempt so far (the latest 1000). */
  readonly notifications: readonly NotificationAttempt[];
  /** Resolves once no processing or notification is pending. */
  settled(): Promise<void>;
}

const JSON_BODY_LIMIT = 64 * 1024;
const MAX_ID_LENGTH = 200;
const START_FIELDS = new Set(['meeting_id', 'meeting_name', 'duration_seconds', 'auto', 'fail_processing']);

export async function startDevMediaServer(options: DevMediaServerOptions): Promise<DevMediaServer> {
  if (!options.webhookSecret) throw new Error('startDevMediaServer: webhookSecret is required');
  const host = options.host ?? '127.0.0.1';
  const sampleRate = options.sampleRate ?? 8000;
  const processingDelayMs = options.processingDelayMs ?? 200;
  const autoNotify = options.autoNotify ?? true;
  const ttlSeconds = options.mediaUrlTtlSeconds ?? 3600;
  const retryDelaysMs = options.notifyRetryDelaysMs ?? [0, 500, 1000, 2000, 4000, 8000];
  const log = options.log ?? (() => {});
  const book = new RecordingBook(options.stateFile);
  const signer = new MediaUrlSigner(options.webhookSecret);
  const shutdown = new AbortController();
  /** Processing timers, with what settles their pending entry if shutdown cancels them. */
  const timers = new Map<NodeJS.Timeout, () => void>();
  const pending = new Set<Promise<unknown>>();
  const attempts: NotificationAttempt[] = [];
  const transcriptionRequests: TranscriptionRequestLog[] = [];
  let publicUrl = options.publicUrl ?? '';

  const wavSpec = (recording: DevRecording): WavSpec => ({
    recordingId: recording.id,
    title: recording.meetingName ?? `Recording ${recording.id}`,
    durationSeconds: recording.durationSeconds ?? 1,
    sampleRate,
  });

  const fileOf = (recording: DevRecording) => options.audioFile?.(recording.meetingId);
  const mediaSize = (recording: DevRecording) => {
    const file = fileOf(recording);
    return file ? statSync(file).size : wavSize(wavSpec(recording));
  };

  const toWire = (recording: DevRecording): WireRecording => {
    const ready = recording.status === 'ready';
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    return {
      id: recording.id,
      meeting_id: recording.meetingId,
      meeting_name: recording.meetingName,
      status: recording.status,
      origin: recording.origin,
      started_at: recording.startedAt,
      stopped_at: recording.stoppedAt,
      duration_seconds: recording.durationSeconds,
      size_bytes: ready ? mediaSize(recording) : null,
      content_type: ready ? WAV_CONTENT_TYPE : null,
      url: ready ? signer.sign(publicUrl, recording.id, expiresAt) : null,
      url_expires_at: ready ? expiresAt.toISOString() : null,
    };
  };

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };

  const notification = (recording: DevRecording, urlExpiresAt?: Date): RecordingReadyNotification => {
    if (recording.status !== 'ready') {
      throw new HttpError(409, 'not_ready', `recording ${recording.id} is ${recording.status}, not ready`);
    }
    const wire = toWire(recording);
    return {
      type: 'recording.ready',
      recording_id: wire.id,
      meeting_id: wire.meeting_id,
      url: urlExpiresAt ? signer.sign(publicUrl, recording.id, urlExpiresAt) : (wire.url as string),
      duration_seconds: wire.duration_seconds as number,
      size_bytes: wire.size_bytes as number,
      content_type: wire.content_type as string,
    };
  };

  const notify = (recording: DevRecording, url = options.notifyUrl): Promise<boolean> => {
    if (!url) return Promise.resolve(false);
    const body = notification(recording);
    return track(
      deliverNotification(body, {
        url,
        secret: options.webhookSecret,
        retryDelaysMs,
        timeoutMs: options.notifyTimeoutMs ?? 10_000,
        signal: shutdown.signal,
        onAttempt(attempt) {
          attempts.push(attempt);
          if (attempts.length > 1000) attempts.shift();
          log(`notify ${attempt.recordingId} attempt ${attempt.attempt}: ${attempt.status ?? attempt.error}`);
        },
      }),
    );
  };

  const scheduleFinish = (recording: DevRecording) => {
    // Not awaited here on purpose (the request that started the recording answers at once); settled() awaits it.
    void track(
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          const finished = book.finish(recording.id);
          log(`recording ${finished.id} is ${finished.status}`);
          if (finished.status === 'ready' && autoNotify) {
            void notify(finished).finally(resolve);
          } else {
            resolve();
          }
        }, processingDelayMs);
        timers.set(timer, resolve);
      }),
    );
  };

  const stopRecording = (id: string): DevRecording => {
    const before = book.require(id).status;
    const recording = book.stop(id, new Date());
    if (before === 'recording') scheduleFinish(recording);
    return recording;
  };

  const parseStart = (body: Record<string, unknown>): NewRecording => {
    const unknown = Object.keys(body).filter((key) => !START_FIELDS.has(key));
    if (unknown.length > 0) throw new HttpError(400, 'invalid_body', `unknown fields: ${unknown.join(', ')}`);
    const meetingId = body.meeting_id;
    if (typeof meetingId !== 'string' || meetingId.length === 0 || meetingId.length > MAX_ID_LENGTH) {
      throw new HttpError(400, 'invalid_body', `meeting_id must be a string of 1-${MAX_ID_LENGTH} characters`);
    }
    const meetingName = body.meeting_name ?? null;
    if (meetingName !== null && (typeof meetingName !== 'string' || meetingName.length > MAX_ID_LENGTH)) {
      throw new HttpError(400, 'invalid_body', `meeting_name must be a string of at most ${MAX_ID_LENGTH} characters`);
    }
    const duration = body.duration_seconds ?? options.recordingSeconds ?? null;
    if (duration !== null && !isDuration(duration)) {
      throw new HttpError(400, 'invalid_body', `duration_seconds must be an integer from 1 to ${MAX_DURATION_SECONDS}`);
    }
    for (const flag of ['auto', 'fail_processing']) {
      if (body[flag] !== undefined && typeof body[flag] !== 'boolean') {
        throw new HttpError(400, 'invalid_body', `${flag} must be a boolean`);
      }
    }
    return {
      meetingId,
      meetingName: meetingName as string | null,
      origin: body.auto === true ? 'auto' : 'api',
      fixedDurationSeconds: duration,
      failProcessing: body.fail_processing === true,
    };
  };

  const requireApiKey = (req: IncomingMessage) => {
    if (!options.apiKey) return;
    const presented = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const digest = (value: string) => createHash('sha256').update(value).digest();
    if (!timingSafeEqual(digest(presented), digest(options.apiKey))) {
      throw new HttpError(401, 'unauthorized', 'missing or invalid API key');
    }
  };

  const serveMedia = async (req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams) => {
    const verdict = signer.check(id, query.get('expires'), query.get('sig'), new Date());
    if (verdict !== 'ok') {
      throw new HttpError(403, verdict === 'expired' ? 'url_expired' : 'bad_signature', `media link ${verdict.replace('-', ' ')}`);
    }
    const recording = book.get(id);
    if (!recording || recording.status !== 'ready') throw new HttpError(404, 'not_found', `no media for ${id}`);
    const file = fileOf(recording);
    res.writeHead(200, {
      'content-type': WAV_CONTENT_TYPE,
      'content-length': mediaSize(recording),
      'content-disposition': `attachment; filename="${id}.wav"`,
      'cache-control': 'private, no-store',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // A client hanging up mid-download is its business; the pipeline just ends.
    await pipeline(file ? createReadStream(file) : wavStream(wavSpec(recording)), res).catch(() => {});
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://dev-media');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    let match: RegExpExecArray | null;

    if (path === '/healthz' && method === 'GET') return sendJson(res, 200, { status: 'ok' });
    if ((match = /^\/media\/([^/]+)\.wav$/.exec(path)) && (method === 'GET' || method === 'HEAD')) {
      return serveMedia(req, res, decodeURIComponent(match[1]), url.searchParams);
    }
    if (path.startsWith('/v1/')) requireApiKey(req);
    if (path === '/v1/recordings' && method === 'POST') {
      const start = parseStart(await readJsonObject(req, JSON_BODY_LIMIT));
      return sendJson(res, 201, toWire(book.create(start, new Date())));
    }
    if (path === '/v1/recordings' && method === 'GET') {
      const meetingId = url.searchParams.get('meeting_id') ?? undefined;
      return sendJson(res, 200, { recordings: book.list(meetingId).filter((r) => !r.unlisted).map(toWire) });
    }
    if ((match = /^\/v1\/recordings\/([^/]+)\/stop$/.exec(path)) && method === 'POST') {
      await readJsonObject(req, JSON_BODY_LIMIT);
      book.requireListed(decodeURIComponent(match[1]));
      return sendJson(res, 200, toWire(stopRecording(decodeURIComponent(match[1]))));
    }
    if ((match = /^\/v1\/recordings\/([^/]+)$/.exec(path)) && method === 'GET') {
      return sendJson(res, 200, toWire(book.requireListed(decodeURIComponent(match[1]))));
    }
    if (path === '/v1/audio/transcriptions' && method === 'POST') {
      return handleTranscription(req, res, {
        maxUploadBytes: options.maxUploadBytes ?? 1024 ** 3,
        lookup: (id) => book.get(id),
        refuseFormats: options.refuseResponseFormats,
        onRequest(request) {
          transcriptionRequests.push(request);
          if (transcriptionRequests.length > 1000) transcriptionRequests.shift();
        },
      });
    }
    if (path === '/v1/chat/completions' && method === 'POST') return handleChatCompletion(req, res);
    throw new HttpError(404, 'not_found', `no route ${method} ${path}`);
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return sendError(res, error);
      log(`internal error: ${(error as Error).stack ?? String(error)}`);
      sendError(res, new HttpError(500, 'internal_error', 'internal error'));
    });
  });
  server.requestTimeout = 0; // long uploads and downloads are legitimate here
  server.headersTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  publicUrl ||= url;

  // Recordings that were processing when a previous run stopped finish now.
  for (const recording of book.list()) if (recording.status === 'processing') scheduleFinish(recording);

  return {
    url,
    port,
    notifications: attempts,
    transcriptionRequests,
    async stop() {
      shutdown.abort();
      for (const [timer, settle] of timers) {
        clearTimeout(timer);
        settle();
      }
      timers.clear();
      server.closeIdleConnections();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
    },
    seedRecording(input) {
      const durationSeconds = input.durationSeconds ?? options.recordingSeconds ?? 60;
      const start = parseStart({
        meeting_id: input.meetingId,
        meeting_name: input.meetingName ?? null,
        duration_seconds: durationSeconds,
        auto: true,
        fail_processing: input.status === 'failed',
      });
      const recording = book.create(start, new Date(Date.now() - durationSeconds * 1000));
      const status = input.status ?? 'ready';
      if (status !== 'recording') book.stop(recording.id, new Date());
      if (status === 'ready' || status === 'failed') book.finish(recording.id);
      if (status === 'processing') scheduleFinish(recording);
      if (input.unlisted) book.unlist(recording.id);
      if (status === 'ready' && input.notify) void notify(recording);
      return toWire(recording);
    },
    getRecording(id) {
      const recording = book.get(id);
      return recording && toWire(recording);
    },
    listRecordings(meetingId) {
      return book.list(meetingId).map(toWire);
    },
    mediaUrl(id, expiresAt = new Date(Date.now() + ttlSeconds * 1000)) {
      return signer.sign(publicUrl, book.require(id).id, expiresAt);
    },
    notificationFor(id, notificationOptions) {
      return notificationRequest(notification(book.require(id), notificationOptions?.urlExpiresAt), options.webhookSecret);
    },
    sendNotification(id, target) {
      return notify(book.require(id), target ?? options.notifyUrl);
    },
    transcriptFor(id) {
      const recording = book.require(id);
      if (recording.durationSeconds === null) throw new Error(`recording ${id} is still recording`);
      return scriptedTranscript({
        recordingId: recording.id,
        meetingName: recording.meetingName,
        durationSeconds: recording.durationSeconds,
      });
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_DURATION_SECONDS;
}

/** Defaults matching src/config.ts (`UPSTREAM_API_URL` http://127.0.0.1:4010, the development webhook secret). */
export const DEV_MEDIA_PORT = 4010;
const DEV_WEBHOOK_SECRET = 'dev-upstream-webhook-secret';

/** Options for a stand-alone run, from the environment; throws naming the variable that is wrong. */
export function devMediaOptionsFromEnv(env: NodeJS.ProcessEnv): DevMediaServerOptions {
  // The same defaults as src/config.ts, so `npm run dev` pairs the API and this server without any setting.
  const secret =
    env.UPSTREAM_WEBHOOK_SECRET || (env.NODE_ENV === 'production' ? undefined : DEV_WEBHOOK_SECRET);
  if (!secret) throw new Error('UPSTREAM_WEBHOOK_SECRET must be set (the API verifies notifications with it)');
  const integer = (name: string, fallback: number | undefined, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    }
    return value;
  };
  const url = (name: string, fallback?: string) => {
    const raw = env[name] || fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new Error(`${name} must be an http(s) URL, got ${JSON.stringify(raw)}`);
    }
    return raw.replace(/\/+$/, '');
  };
  const apiPort = integer('PORT', 3000, 1, 65535);
  const publicBaseUrl = url('PUBLIC_BASE_URL', `http://127.0.0.1:${apiPort}`);
  const sampleRate = integer('DEV_MEDIA_SAMPLE_RATE', 8000, 8000, 16000);
  if (sampleRate !== 8000 && sampleRate !== 16000) throw new Error('DEV_MEDIA_SAMPLE_RATE must be 8000 or 16000');
  const autoNotify = env.DEV_MEDIA_AUTO_NOTIFY ?? 'true';
  if (autoNotify !== 'true' && autoNotify !== 'false') throw new Error('DEV_MEDIA_AUTO_NOTIFY must be true or false');
  return {
    port: integer('DEV_MEDIA_PORT', DEV_MEDIA_PORT, 0, 65535),
    host: env.DEV_MEDIA_HOST || '127.0.0.1',
    notifyUrl: url('NOTIFY_URL', `${publicBaseUrl}/api/v1/webhooks/upstream/recording-ready`),
    webhookSecret: secret,
    publicUrl: url('DEV_MEDIA_PUBLIC_URL'),
    apiKey: env.UPSTREAM_API_KEY || undefined,
    recordingSeconds: integer('DEV_MEDIA_RECORDING_SECONDS', undefined, 1, MAX_DURATION_SECONDS),
    processingDelayMs: integer('DEV_MEDIA_PROCESSING_DELAY_MS', 200, 0, 3_600_000),
    autoNotify: autoNotify === 'true',
    sampleRate,
    stateFile: env.DEV_MEDIA_STATE_FILE || undefined,
  };
}

async function main(): Promise<void> {
  let options: DevMediaServerOptions;
  try {
    options = devMediaOptionsFromEnv(process.env);
  } catch (error) {
    console.error(`dev media server: ${(error as Error).message}`);
    process.exit(1);
  }
  const server = await startDevMediaServer({ ...options, log: (line) => console.log(`[dev-media] ${line}`) });
  console.log(`[dev-media] listening on ${server.url}; notifications to ${options.notifyUrl}`);
  const close = (signal: string) => {
    console.log(`[dev-media] ${signal}: stopping`);
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => close('SIGINT'));
  process.once('SIGTERM', () => close('SIGTERM'));
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error('[dev-media] failed to start:', error);
    process.exit(1);
  });
}

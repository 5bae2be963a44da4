// The generic `upstream` adapter: speaks the media-provider protocol of docs/media-provider.md over HTTP.

import {
  UPSTREAM_RECORDING_STATUSES,
  UpstreamError,
  type MediaProvider,
  type StartRecordingInput,
  type StartedRecording,
  type StoppedRecording,
  type UpstreamRecording,
} from './media-provider.ts';
import type { WireRecording } from './protocol.ts';

export interface HttpUpstreamAdapterOptions {
  /** `UPSTREAM_API_URL`, e.g. `http://127.0.0.1:4100`; paths are resolved under it. */
  baseUrl: string;
  /** `UPSTREAM_API_KEY`; sent as `Authorization: Bearer` when set. */
  apiKey?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  /** Answers larger than this are refused, default 4 MiB. */
  maxResponseBytes?: number;
}

export const UPSTREAM_ADAPTER_NAME = 'upstream';

export class HttpUpstreamAdapter implements MediaProvider {
  readonly name = UPSTREAM_ADAPTER_NAME;
  private readonly baseUrl: string;
  // `#`, not `private`: it holds the provider's API key, kept out of every log line, inspection and JSON of this
  // object (docs/architecture.md habit 17).
  readonly #apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(options: HttpUpstreamAdapterOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error(`upstream base URL must be http(s): ${options.baseUrl}`);
    }
    this.baseUrl = base.href.endsWith('/') ? base.href : `${base.href}/`;
    this.#apiKey = options.apiKey || undefined;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
  }

  async startRecording(input: StartRecordingInput): Promise<StartedRecording> {
    const body: Record<string, string> = { meeting_id: input.roomId };
    if (input.roomName !== undefined) body.meeting_name = input.roomName;
    const wire = parseRecording(await this.call('POST', 'v1/recordings', body));
    return { upstreamRecordingId: wire.id, startedAt: wire.startedAt };
  }

  async stopRecording(upstreamRecordingId: string): Promise<StoppedRecording> {
    const path = `v1/recordings/${encodeURIComponent(upstreamRecordingId)}/stop`;
    const recording = parseRecording(await this.call('POST', path, {}));
    if (!recording.stoppedAt) throw malformed('stopped recording has no stopped_at');
    return { stoppedAt: recording.stoppedAt, status: recording.status };
  }

  async listRecordings(roomId: string): Promise<UpstreamRecording[]> {
    const answer = await this.call('GET', `v1/recordings?meeting_id=${encodeURIComponent(roomId)}`);
    const list = (answer as { recordings?: unknown } | null)?.recordings;
    if (!Array.isArray(list)) throw malformed('list has no recordings array');
    return list.map(parseRecording);
  }

  async getRecording(upstreamRecordingId: string): Promise<UpstreamRecording> {
    return parseRecording(await this.call('GET', `v1/recordings/${encodeURIComponent(upstreamRecordingId)}`));
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const signal = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        redirect: 'error',
      });
      text = await readBounded(response, this.maxResponseBytes);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      if (signal.aborted) {
        throw new UpstreamError(504, 'timeout', `media provider did not answer ${method} /${path} within ${this.timeoutMs} ms`);
      }
      throw new UpstreamError(502, 'unreachable', `media provider unreachable: ${(error as Error).message}`);
    }
    const json = parseJson(text);
    if (!response.ok) {
      const error = (json as { error?: { message?: unknown; code?: unknown; details?: unknown } } | undefined)?.error;
      throw new UpstreamError(
        response.status,
        typeof error?.code === 'string' ? error.code : 'upstream_error',
        typeof error?.message === 'string' ? error.message : `media provider answered HTTP ${response.status}`,
        isObject(error?.details) ? error.details : undefined,
      );
    }
    if (json === undefined) throw malformed(`${method} /${path} answered without a JSON body`);
    return json;
  }
}

export function createHttpUpstreamAdapter(options: HttpUpstreamAdapterOptions): MediaProvider {
  return new HttpUpstreamAdapter(options);
}

async function readBounded(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) {
      await response.body.cancel().catch(() => {});
      throw malformed(`answer larger than ${limit} bytes`);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseRecording(value: unknown): UpstreamRecording {
  if (!isObject(value)) throw malformed('recording is not an object');
  const wire = value as Partial<Record<keyof WireRecording, unknown>>;
  if (typeof wire.id !== 'string' || wire.id === '') throw malformed('recording has no id');
  if (typeof wire.meeting_id !== 'string') throw malformed(`recording ${wire.id} has no meeting_id`);
  if (!UPSTREAM_RECORDING_STATUSES.includes(wire.status as UpstreamRecording['status'])) {
    throw malformed(`recording ${wire.id} has an unknown status ${String(wire.status)}`);
  }
  const startedAt = timestamp(wire.started_at);
  if (!startedAt) throw malformed(`recording ${wire.id} has no valid started_at`);
  const recording: UpstreamRecording = {
    id: wire.id,
    meetingId: wire.meeting_id,
    status: wire.status as UpstreamRecording['status'],
    startedAt,
  };
  const stoppedAt = timestamp(wire.stopped_at);
  if (stoppedAt) recording.stoppedAt = stoppedAt;
  if (isCount(wire.duration_seconds)) recording.durationSeconds = wire.duration_seconds;
  if (isCount(wire.size_bytes)) recording.sizeBytes = wire.size_bytes;
  if (typeof wire.content_type === 'string' && wire.content_type) recording.contentType = wire.content_type;
  if (typeof wire.url === 'string' && wire.url) recording.url = wire.url;
  const urlExpiresAt = timestamp(wire.url_expires_at);
  if (urlExpiresAt) recording.urlExpiresAt = urlExpiresAt;
  if (recording.status === 'ready' && !recording.url) throw malformed(`ready recording ${wire.id} has no url`);
  return recording;
}

function timestamp(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(message: string): UpstreamError {
  return new UpstreamError(502, 'bad_response', `malformed answer from the media provider: ${message}`);
}

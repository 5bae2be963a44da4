// Test helper: a TranscriptionRequest over bytes in memory (the activity's version reads S3; the adapters only see
// `open(range)`), recording every range opened so tests can check that splitting reads ranges, not the whole file.
import { Readable } from 'node:stream';
import type { TranscriptionVendorConfig } from '../../../src/config.ts';
import type { TranscriptionRequest } from '../../../src/providers/types.ts';
import type { DevMediaServer } from '../../../dev/media-server/server.ts';

export interface BufferRequest extends TranscriptionRequest {
  opened: Array<{ start: number; end: number } | undefined>;
}

/** The `openai` adapter's settings for a server at `baseUrl` (the development media server, or one standing in for Whisper). */
export function openAiSettings(baseUrl: string, overrides: Partial<TranscriptionVendorConfig> = {}): TranscriptionVendorConfig {
  return {
    baseUrl: `${baseUrl}/v1`,
    apiKey: undefined,
    model: 'whisper-1',
    maxConcurrency: 2,
    maxUploadBytes: 25 * 1024 * 1024,
    timeoutMs: 10_000,
    ...overrides,
  };
}

/** The bytes as a stream of 16 KiB chunks, like a network stream (or the store's). */
export function chunkedStream(bytes: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += 16 * 1024) yield bytes.subarray(offset, offset + 16 * 1024);
    })(),
    { objectMode: false },
  );
}

export function requestFor(bytes: Buffer, overrides: Partial<TranscriptionRequest> = {}): BufferRequest {
  const opened: BufferRequest['opened'] = [];
  return {
    opened,
    async open(range) {
      opened.push(range);
      return chunkedStream(range ? bytes.subarray(range.start, range.end) : bytes);
    },
    contentType: 'audio/wav',
    sizeBytes: bytes.length,
    language: 'en-US',
    keywords: [],
    profanityFilter: false,
    ...overrides,
  };
}

/** A recording of the development media server and its WAV file. */
export async function devRecording(media: DevMediaServer, meetingId: string, durationSeconds: number) {
  const recording = media.seedRecording({ meetingId, meetingName: `Meeting ${meetingId}`, durationSeconds });
  const bytes = Buffer.from(await (await fetch(recording.url!)).arrayBuffer());
  return { recording, bytes, script: media.transcriptFor(recording.id) };
}

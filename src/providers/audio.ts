// Audio handling shared by the transcription adapters: splitting a PCM WAV that is over a provider's upload limit
// into parts that each carry their own header (docs/decisions.md §9), re-timing the parts' segments, and the rules applied
// by us where a vendor lacks the option (profanity filter).

import { Readable } from 'node:stream';
import { readWavHeader } from './wav-header.ts';
import { framed } from './provider-http.ts';
import { ProviderError, type TranscriptionRequest, type TranscriptionResult, type TranscriptSegmentOut } from './types.ts';

/** One upload: the whole file, or a part of a split WAV. */
export interface AudioPart {
  open(): Promise<Readable>;
  sizeBytes: number;
  contentType: string;
  /** Where the part starts in the recording, in seconds (added to its segments' times). */
  offsetSeconds: number;
}

/** The WAV header must sit in the first bytes (ours has the data chunk within 200 bytes; 64 KiB allows metadata). */
const HEADER_PROBE_BYTES = 64 * 1024;
const PCM_HEADER_BYTES = 44;
const WAV_PCM = 1;

/**
 * The uploads a request needs so that each request's body stays within `limit.bodyBytes`: the file as it is when it
 * fits; else the sample data of a PCM WAV cut on sample boundaries, each part prefixed with its own 44-byte header
 * and read as a byte range. `limit.envelopeBytes` is what the request adds around the file (a multipart body's
 * fields and boundaries): a provider's limit is on the whole body (OpenAI: 25 MiB), not the file part (docs/decisions.md §9
 * "Limits of real providers"). Any other format over the limit is a final failure naming the limit.
 */
export async function audioParts(
  request: TranscriptionRequest,
  limit: { bodyBytes: number; envelopeBytes?: number },
  provider: string,
): Promise<AudioPart[]> {
  const maxBytes = limit.bodyBytes - (limit.envelopeBytes ?? 0);
  if (request.sizeBytes <= maxBytes) {
    return [{ open: () => request.open(), sizeBytes: request.sizeBytes, contentType: request.contentType, offsetSeconds: 0 }];
  }
  const tooLarge = (why: string) =>
    new ProviderError(
      `recording is ${request.sizeBytes} bytes, over ${provider}'s upload limit of ${limit.bodyBytes} bytes, and cannot be split: ${why}`,
      { retryable: false },
    );
  const probe = await readPrefix(await request.open({ start: 0, end: Math.min(request.sizeBytes, HEADER_PROBE_BYTES) }));
  const wav = readWavHeader(probe);
  if (!wav) throw tooLarge('only PCM WAV files are split, and this is not one');
  const blockAlign = wav.channels * (wav.bitsPerSample / 8);
  if (wav.audioFormat !== WAV_PCM || !Number.isInteger(blockAlign) || blockAlign <= 0) {
    throw tooLarge(`only PCM WAV files are split (WAV format ${wav.audioFormat}, ${wav.bitsPerSample} bits)`);
  }
  const byteRate = wav.sampleRate * blockAlign;
  // A header written before the length was known declares 0 or 0xFFFFFFFF bytes: the file's end is the data's end.
  const declaredEnd = wav.dataBytes > 0 ? wav.dataOffset + wav.dataBytes : request.sizeBytes;
  const dataEnd = Math.min(request.sizeBytes, declaredEnd);
  const perPart = Math.floor((maxBytes - PCM_HEADER_BYTES) / blockAlign) * blockAlign;
  if (perPart <= 0) throw tooLarge(`the limit is smaller than one sample`);
  const parts: AudioPart[] = [];
  for (let start = wav.dataOffset; start < dataEnd; start += perPart) {
    const end = Math.min(dataEnd, start + perPart);
    const header = pcmHeader(wav, end - start);
    parts.push({
      open: async () => framed(await request.open({ start, end }), { head: header }),
      sizeBytes: header.length + (end - start),
      contentType: 'audio/wav',
      offsetSeconds: (start - wav.dataOffset) / byteRate,
    });
  }
  return parts;
}

/**
 * Transcribes each part in turn and joins the results, each part's segments moved by its offset. Speaker labels are
 * the provider's per part (a provider cannot match voices across separate requests).
 */
export async function transcribeParts(
  request: TranscriptionRequest,
  parts: AudioPart[],
  transcribeOne: (part: AudioPart, onBytes: (bytes: number) => void) => Promise<TranscriptionResult>,
): Promise<TranscriptionResult> {
  const total = parts.reduce((sum, part) => sum + part.sizeBytes, 0);
  let done = 0;
  const onBytes = (bytes: number) => {
    done += bytes;
    request.progress?.(Math.min(done, total), total);
  };
  const segments: TranscriptSegmentOut[] = [];
  let language: string | null = null;
  for (const part of parts) {
    const before = done;
    const result = await transcribeOne(part, onBytes);
    done = before + part.sizeBytes;
    language ??= result.language;
    for (const segment of result.segments) {
      segments.push({
        ...segment,
        start: round3(segment.start + part.offsetSeconds),
        end: round3(segment.end + part.offsetSeconds),
      });
    }
  }
  return { language, segments };
}

function pcmHeader(wav: { channels: number; sampleRate: number; bitsPerSample: number }, dataBytes: number): Buffer {
  const blockAlign = wav.channels * (wav.bitsPerSample / 8);
  const header = Buffer.alloc(PCM_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(WAV_PCM, 20);
  header.writeUInt16LE(wav.channels, 22);
  header.writeUInt32LE(wav.sampleRate, 24);
  header.writeUInt32LE(wav.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(wav.bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

async function readPrefix(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

// Words masked when the tenant asks for the profanity filter and the vendor has none (OpenAI). Deepgram masks
// itself (`profanity_filter=true`) in the same style: first letter kept, the rest asterisks.
const PROFANITY = /\b(?:fuck\w*|motherfuck\w*|shit\w*|bullshit|bitch\w*|bastard\w*|asshole\w*|cunt\w*|dick(?:head)?s?|piss(?:ed)?|crap|damn\w*|wank\w*|twat\w*)\b/gi;

export function maskProfanity(text: string): string {
  return text.replace(PROFANITY, (word) => word[0] + '*'.repeat(word.length - 1));
}

/** ISO 639-1, what OpenAI's `language` takes: `en-US` → `en`. */
export function iso639_1(tag: string): string {
  return tag.split('-')[0].toLowerCase();
}

// OpenAI-compatible `POST /v1/audio/transcriptions` for the development media server. It recognises its own
// recordings by the marker in the WAV header and answers with their scripted transcript; any other audio gets a
// placeholder transcript. The upload is streamed: only the first bytes (the header) are kept, the rest is counted.

import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { HttpError, sendError, sendJson } from './http.ts';
import { genericTranscript, scriptedTranscript, type ScriptedTranscript } from './script.ts';
import { readWavHeader, type WavInfo } from '../../src/providers/wav-header.ts';

const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'diarized_json'] as const;
type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
const HEADER_BYTES = 64 * 1024;
/** Duration assumed for audio whose length cannot be read from a WAV header. */
const UNKNOWN_DURATION_SECONDS = 30;

export interface TranscriptionDeps {
  maxUploadBytes: number;
  /** Formats answered 422 in FastAPI's `{detail}` envelope, like a self-hosted Whisper server without diarization. */
  refuseFormats?: readonly string[];
  /** Told of every well-formed request (fields and bytes received), for tests. */
  onRequest?(request: TranscriptionRequestLog): void;
  /** What the server knows of one of its recordings, if anything. */
  lookup(recordingId: string): { meetingName: string | null; durationSeconds: number | null } | undefined;
}

export interface TranscriptionRequestLog {
  fields: Record<string, string[]>;
  fileBytes: number;
  recordingId: string | undefined;
}

interface Upload {
  fields: Map<string, string[]>;
  header: Buffer;
  fileBytes: number;
  hasFile: boolean;
}

export async function handleTranscription(req: IncomingMessage, res: ServerResponse, deps: TranscriptionDeps) {
  let upload: Upload;
  try {
    upload = await readUpload(req, deps.maxUploadBytes);
  } catch (error) {
    res.setHeader('connection', 'close');
    sendError(res, error instanceof HttpError ? error : new HttpError(400, 'invalid_multipart', String(error)));
    return;
  }
  const field = (name: string) => upload.fields.get(name)?.[0];
  const model = field('model');
  if (!model) return sendError(res, new HttpError(400, 'missing_model', "'model' is required"));
  if (!upload.hasFile) return sendError(res, new HttpError(400, 'missing_file', "'file' is required"));
  const format = (field('response_format') ?? 'json') as ResponseFormat;
  deps.onRequest?.({
    fields: Object.fromEntries(upload.fields),
    fileBytes: upload.fileBytes,
    recordingId: readWavHeader(upload.header)?.recordingId,
  });
  if (deps.refuseFormats?.includes(format)) {
    // faster-whisper-server's answer to a format it lacks (docs/decisions.md §9).
    return sendJson(res, 422, { detail: `Unsupported response_format: '${format}'` });
  }
  if (!RESPONSE_FORMATS.includes(format)) {
    return sendError(
      res,
      new HttpError(400, 'unsupported_response_format', `response_format must be one of ${RESPONSE_FORMATS.join(', ')}`),
    );
  }
  const transcript = transcriptOf(upload, deps);
  const language = field('language') ?? transcript.language;
  const knownSpeakers = upload.fields.get('known_speaker_names[]') ?? upload.fields.get('known_speaker_names') ?? [];
  respond(res, format, transcript, language, knownSpeakers);
}

function transcriptOf(upload: Upload, deps: TranscriptionDeps): ScriptedTranscript {
  const wav = readWavHeader(upload.header);
  const durationSeconds = wav ? audioSeconds(wav, upload.fileBytes) : UNKNOWN_DURATION_SECONDS;
  if (!wav?.recordingId) return genericTranscript(durationSeconds);
  const known = deps.lookup(wav.recordingId);
  return scriptedTranscript({
    recordingId: wav.recordingId,
    meetingName: known ? known.meetingName : (wav.title ?? null),
    durationSeconds,
  });
}

/** Duration of the samples actually uploaded (a truncated file is shorter than its header claims). */
function audioSeconds(wav: WavInfo, fileBytes: number): number {
  const bytesPerSecond = wav.sampleRate * wav.channels * (wav.bitsPerSample / 8);
  if (bytesPerSecond <= 0) return UNKNOWN_DURATION_SECONDS;
  const samples = Math.max(0, Math.min(wav.dataBytes, fileBytes - wav.dataOffset));
  return Math.round((samples / bytesPerSecond) * 100) / 100;
}

function respond(
  res: ServerResponse,
  format: ResponseFormat,
  transcript: ScriptedTranscript,
  language: string,
  knownSpeakers: string[],
): void {
  const usage = { type: 'duration', seconds: Math.ceil(transcript.durationSeconds) };
  switch (format) {
    case 'text': {
      const text = `${transcript.text}\n`;
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case 'json':
      return sendJson(res, 200, { text: transcript.text, usage });
    case 'verbose_json':
      return sendJson(res, 200, {
        task: 'transcribe',
        language: language === 'en' ? 'english' : language,
        duration: transcript.durationSeconds,
        text: transcript.text,
        segments: transcript.segments.map((segment) => ({
          id: segment.id,
          seek: 0,
          start: segment.start,
          end: segment.end,
          text: ` ${segment.text}`,
          tokens: [],
          temperature: 0,
          avg_logprob: -0.2,
          compression_ratio: 1.3,
          no_speech_prob: 0.01,
        })),
        usage,
      });
    case 'diarized_json': {
      // Like OpenAI: speakers labelled A, B, … in order of appearance, or by the names given in known_speaker_names[].
      const labels = new Map(
        transcript.speakers.map((speaker, i) => [speaker, knownSpeakers[i] ?? String.fromCharCode(65 + i)]),
      );
      return sendJson(res, 200, {
        task: 'transcribe',
        duration: transcript.durationSeconds,
        text: transcript.text,
        segments: transcript.segments.map((segment) => ({
          type: 'transcript.text.segment',
          id: `seg_${segment.id}`,
          start: segment.start,
          end: segment.end,
          text: segment.text,
          speaker: labels.get(segment.speaker),
        })),
        usage,
      });
    }
  }
}

function readUpload(req: IncomingMessage, maxUploadBytes: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy flags a file that *reaches* fileSize; a file of exactly the limit is allowed.
        limits: { fileSize: maxUploadBytes + 1, files: 1, fields: 20, fieldSize: 4096, parts: 24, headerPairs: 20 },
      });
    } catch {
      reject(new HttpError(400, 'invalid_content_type', 'body must be multipart/form-data'));
      return;
    }
    const upload: Upload = { fields: new Map(), header: Buffer.alloc(0), fileBytes: 0, hasFile: false };
    const headerChunks: Buffer[] = [];
    let headerSize = 0;
    let failure: HttpError | undefined;
    const fail = (error: HttpError) => {
      failure ??= error;
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new HttpError(400, 'field_too_large', `field '${name}' is too large`));
      const values = upload.fields.get(name) ?? [];
      values.push(value);
      upload.fields.set(name, values);
    });
    parser.on('file', (name, stream) => {
      if (name !== 'file') {
        stream.resume();
        return;
      }
      upload.hasFile = true;
      stream.on('data', (chunk: Buffer) => {
        upload.fileBytes += chunk.length;
        if (headerSize < HEADER_BYTES) {
          const kept = chunk.subarray(0, HEADER_BYTES - headerSize);
          headerChunks.push(Buffer.from(kept));
          headerSize += kept.length;
        }
      });
      stream.on('limit', () =>
        fail(new HttpError(413, 'file_too_large', `file larger than ${maxUploadBytes} bytes`)),
      );
    });
    parser.on('filesLimit', () => fail(new HttpError(400, 'too_many_files', 'only one file is accepted')));
    parser.on('fieldsLimit', () => fail(new HttpError(400, 'too_many_fields', 'too many fields')));
    parser.on('partsLimit', () => fail(new HttpError(400, 'too_many_parts', 'too many parts')));
    parser.on('error', (error: Error) => reject(new HttpError(400, 'invalid_multipart', error.message)));
    parser.on('close', () => {
      if (failure) return reject(failure);
      upload.header = Buffer.concat(headerChunks);
      resolve(upload);
    });
    req.on('error', (error) => reject(new HttpError(400, 'aborted', error.message)));
    req.pipe(parser);
  });
}

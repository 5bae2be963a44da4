// A local server speaking Deepgram's pre-recorded API (`POST /v1/listen`), the stand-in for Deepgram in tests
// (docs/decisions.md §9). Real HTTP: it streams the body (counts the bytes, keeps the first 64 KiB), recognises the
// development media server's WAVs by their header and answers their scripted transcript in Deepgram's response
// shape (field names as Deepgram documents them: `metadata`, `results.channels[].alternatives[]` with `transcript`,
// `words`, `paragraphs`, and `results.utterances[]` with `start`, `end`, `transcript`, `speaker`). It can be
// scripted to fail: 401/403, 429, 500, a slow answer, garbage JSON, a result without utterances, or one without
// speakers (as a model that cannot diarize answers).

import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { genericTranscript, scriptedTranscript, type ScriptedTranscript } from '../../dev/media-server/script.ts';
import { readWavHeader } from '../../src/providers/wav-header.ts';

export type DeepgramFailure =
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'server_error'
  | 'slow'
  | 'garbage'
  | 'no_utterances'
  | 'words_only'
  | 'undiarized';

export interface DeepgramRequest {
  query: URLSearchParams;
  authorization: string | undefined;
  contentType: string | undefined;
  contentLength: number | undefined;
  /** Bytes actually received. */
  bytes: number;
  /** From the WAV header, when the audio is one of the development media server's. */
  recordingId: string | undefined;
  /** Largest number of requests in flight at once, as seen when this one arrived. */
  inFlight: number;
}

export interface DeepgramServer {
  url: string;
  readonly requests: DeepgramRequest[];
  /** The next `count` requests fail this way (in order of arrival). */
  failNext(failure: DeepgramFailure, count?: number): void;
  /** How long a `slow` answer waits, default 5 s. */
  slowMs: number;
  /** Largest number of requests seen in flight at once. */
  readonly maxInFlight: number;
  stop(): Promise<void>;
}

const HEADER_BYTES = 64 * 1024;

export async function startDeepgramServer(options: { apiKey?: string } = {}): Promise<DeepgramServer> {
  const requests: DeepgramRequest[] = [];
  const failures: DeepgramFailure[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const timers = new Set<NodeJS.Timeout>();
  const state = { slowMs: 5000 };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://deepgram');
    if (req.method !== 'POST' || url.pathname !== '/v1/listen') {
      req.resume();
      return error(res, 404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
    }
    // A request counts as in flight until it is answered or its client hangs up (e.g. after a timeout).
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = () => {
      if (counted) inFlight--;
      counted = false;
    };
    res.once('close', done);
    try {
      const failure = failures.shift();
      const header: Buffer[] = [];
      let kept = 0;
      let bytes = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (kept < HEADER_BYTES) {
          const part = chunk.subarray(0, HEADER_BYTES - kept);
          header.push(Buffer.from(part));
          kept += part.length;
        }
      }
      const wav = readWavHeader(Buffer.concat(header));
      const declared = req.headers['content-length'];
      requests.push({
        query: url.searchParams,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        contentLength: declared === undefined ? undefined : Number(declared),
        bytes,
        recordingId: wav?.recordingId,
        inFlight,
      });
      if (options.apiKey && !tokenMatches(req.headers.authorization, options.apiKey)) {
        return error(res, 401, 'INVALID_AUTH', 'Invalid credentials.');
      }
      switch (failure) {
        case 'unauthorized':
          return error(res, 401, 'INVALID_AUTH', 'Invalid credentials.');
        case 'forbidden':
          return error(res, 403, 'INSUFFICIENT_PERMISSIONS', 'Project does not have access to the requested model.');
        case 'rate_limited':
          return error(res, 429, 'TOO_MANY_REQUESTS', 'Too many requests. Please try again later.');
        case 'server_error':
          return error(res, 500, 'INTERNAL_SERVER_ERROR', 'Internal server error.');
        case 'garbage':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('{"metadata": {"request_id": "x"}, "results": {"channels": [');
        case 'slow':
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              resolve();
            }, state.slowMs);
            timers.add(timer);
            res.once('close', () => {
              clearTimeout(timer);
              timers.delete(timer);
              resolve();
            });
          });
          break;
      }
      const durationSeconds = wav ? samplesSeconds(wav, bytes) : 30;
      const transcript = wav?.recordingId
        ? scriptedTranscript({ recordingId: wav.recordingId, meetingName: wav.title ?? null, durationSeconds })
        : genericTranscript(durationSeconds);
      const body = listenResponse(transcript, url.searchParams, failure);
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json', 'dg-request-id': body.metadata.request_id });
      res.end(JSON.stringify(body));
    } finally {
      done();
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    get slowMs() {
      return state.slowMs;
    },
    set slowMs(value: number) {
      state.slowMs = value;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function tokenMatches(header: string | undefined, key: string): boolean {
  const presented = /^Token (.+)$/.exec(header ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(key));
}

function error(res: ServerResponse, status: number, code: string, message: string) {
  const body = JSON.stringify({ err_code: code, err_msg: message, request_id: randomUUID() });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

function samplesSeconds(wav: NonNullable<ReturnType<typeof readWavHeader>>, bytes: number): number {
  const bytesPerSecond = wav.sampleRate * wav.channels * (wav.bitsPerSample / 8);
  const samples = Math.max(0, Math.min(wav.dataBytes || Infinity, bytes - wav.dataOffset));
  return Math.round((samples / bytesPerSecond) * 100) / 100;
}

/** Deepgram's pre-recorded response for a scripted transcript, shaped by the request's options. */
function listenResponse(transcript: ScriptedTranscript, query: URLSearchParams, failure: DeepgramFailure | undefined) {
  const speakerIndex = new Map(transcript.speakers.map((speaker, i) => [speaker, i]));
  const diarize = query.get('diarize') === 'true' && failure !== 'undiarized';
  const segments = transcript.segments.map((segment) => ({
    ...segment,
    speakerNumber: speakerIndex.get(segment.speaker) ?? 0,
    words: wordsOf(segment.text, segment.start, segment.end),
  }));
  const words = segments.flatMap((segment) =>
    segment.words.map((word) => ({ ...word, ...(diarize ? { speaker: segment.speakerNumber, speaker_confidence: 0.9 } : {}) })),
  );
  const paragraphs = segments.map((segment) => ({
    sentences: [{ text: segment.text, start: segment.start, end: segment.end }],
    ...(diarize ? { speaker: segment.speakerNumber } : {}),
    num_words: segment.words.length,
    start: segment.start,
    end: segment.end,
  }));
  const alternative: Record<string, unknown> = { transcript: transcript.text, confidence: 0.98, words };
  if (query.get('paragraphs') === 'true' && failure !== 'words_only') {
    alternative.paragraphs = { transcript: transcript.text, paragraphs };
  }
  const results: Record<string, unknown> = { channels: [{ alternatives: [alternative] }] };
  if (query.get('utterances') === 'true' && failure !== 'no_utterances' && failure !== 'words_only') {
    results.utterances = segments.map((segment) => ({
      start: segment.start,
      end: segment.end,
      confidence: 0.97,
      channel: 0,
      transcript: segment.text,
      words: segment.words,
      ...(diarize ? { speaker: segment.speakerNumber } : {}),
      id: randomUUID(),
    }));
  }
  return {
    metadata: {
      transaction_key: 'deprecated',
      request_id: randomUUID(),
      sha256: createHash('sha256').update(transcript.text).digest('hex'),
      created: new Date().toISOString(),
      duration: transcript.durationSeconds,
      channels: 1,
      models: [randomUUID()],
      model_info: {},
    },
    results,
  };
}

function wordsOf(text: string, start: number, end: number) {
  const tokens = text.split(/\s+/).filter(Boolean);
  const step = tokens.length === 0 ? 0 : (end - start) / tokens.length;
  return tokens.map((token, i) => ({
    word: token.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
    start: Math.round((start + i * step) * 100) / 100,
    end: Math.round((start + (i + 1) * step) * 100) / 100,
    confidence: 0.95,
    punctuated_word: token,
  }));
}

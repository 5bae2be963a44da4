// What every provider adapter shares: one HTTP request with a streamed body and a timeout, a bound on requests in
// flight, and the one classification of failures into retryable or not (docs/decisions.md §9).

import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ProviderError } from './types.ts';
import { SpanKind, SpanStatusCode, withSpan, withTraceHeaders } from '../tracing/spans.ts';

/** Vendors' own services (and their regional hosts), which refuse requests without a key. */
const KEYED_DOMAINS = ['openai.com', 'deepgram.com'];

/** Whether a base URL is a vendor's own service; a self-hosted or development server may need no key. */
export function needsKey(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return KEYED_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** Largest answer we read from a provider: a transcript of many hours is a few MB. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface ProviderResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SendOptions {
  /** Names the provider in every error message. */
  provider: string;
  method?: 'POST' | 'GET';
  url: string;
  headers: Record<string, string | number>;
  /** Streamed as it is produced; `contentLength` set means no chunked encoding (some servers insist). */
  body?: Readable | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One HTTP request. Resolves with any status (the caller classifies it with `failureOf`); rejects only with a
 * ProviderError for a timeout, a cancellation or a connection failure, all retryable except the cancellation.
 * With tracing on, a client span of the recording's trace, and the request carries its `traceparent` (docs/decisions.md §12).
 */
export function send(options: SendOptions): Promise<ProviderResponse> {
  const url = new URL(options.url);
  const method = options.method ?? 'POST';
  const attributes = { 'http.request.method': method, 'server.address': url.hostname, 'url.path': url.pathname, 'convene.provider': options.provider };
  return withSpan(`${method} ${options.provider}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const answer = await sendRequest({ ...options, headers: withTraceHeaders(options.headers) }, url);
    span.setAttribute('http.response.status_code', answer.status);
    if (answer.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${answer.status}` });
    return answer;
  });
}

/**
 * `resendOnStaleConnection`: Node keeps connections alive between requests, and a server closes an idle one after its
 * own timeout (Node's 5 s, llama.cpp's, a proxy's). A request sent on a kept connection just as the server closes it
 * fails with ECONNRESET before the server read it; Node's http docs advise sending it again. Done once, on a new
 * connection, and only for a body we still hold (a streamed upload is gone; the activity's retry sends it again).
 * Without this, one unlucky moment cost a long meeting's whole AI step (seen under load: two of its parts apart by the
 * server's keep-alive timeout).
 */
function sendRequest(options: SendOptions, url: URL, resendOnStaleConnection = true): Promise<ProviderResponse> {
  const requestFn = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<ProviderResponse>((resolve, reject) => {
    let settled = false;
    let answered = false;
    // `value` may be the answer of the request sent again (below).
    const finish = (error: ProviderError | undefined, value?: ProviderResponse | Promise<ProviderResponse>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) {
        req.destroy();
        if (options.body instanceof Readable) options.body.destroy();
        reject(error);
      } else {
        resolve(value!);
      }
    };
    const req = requestFn(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          finish(new ProviderError(`${options.provider}: answer larger than ${MAX_RESPONSE_BYTES} bytes`, { retryable: false }));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () =>
        finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', (error) => finish(connectionError(options.provider, error)));
    });
    const timer = setTimeout(
      () => finish(new ProviderError(`${options.provider}: no answer within ${options.timeoutMs} ms`, { retryable: true })),
      options.timeoutMs,
    );
    const onAbort = () => finish(new ProviderError(`${options.provider}: request cancelled`, { retryable: false }));
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Our own timeout or cancellation destroys the request, which Node reports as a reset too: never resent.
      if (settled) return;
      const stale = req.reusedSocket && error.code === 'ECONNRESET' && !answered && !(options.body instanceof Readable);
      if (stale && resendOnStaleConnection) finish(undefined, sendRequest(options, url, false));
      else finish(connectionError(options.provider, error));
    });
    if (options.body === undefined) {
      req.end();
    } else if (Buffer.isBuffer(options.body)) {
      req.end(options.body);
    } else {
      // A server may answer (e.g. 401, 413) before it has read the body; the answer counts, not the broken upload.
      pipeline(options.body, req).catch((error: Error) => {
        if (!settled) setTimeout(() => finish(connectionError(options.provider, error)), 1000).unref();
      });
    }
  });
}

function connectionError(provider: string, error: Error & { code?: string }): ProviderError {
  const why = error.code ?? error.message;
  return new ProviderError(`${provider}: connection failed (${why})`, { retryable: true, cause: error });
}

/**
 * The failure a non-2xx answer means. 401/403 (bad key) and other 4xx are final; 408, 429 and 5xx are retried. The
 * reason is the vendor's message from whichever envelope it uses (OpenAI's `{error:{message}}`, FastAPI's
 * `{detail}`, Deepgram's `{err_msg}`), else the first 200 characters of the body; the key sent is masked in it.
 */
export function failureOf(provider: string, response: ProviderResponse, key?: string): ProviderError {
  const { status } = response;
  // A vendor may echo the key it refused; the reason is stored and shown, the key must not be (docs/decisions.md §13).
  const reason = key ? reasonOf(response.body).replaceAll(key, '***') : reasonOf(response.body);
  const retryable = status === 408 || status === 429 || status >= 500;
  const message =
    status === 401 || status === 403
      ? `${provider} refused the API key (HTTP ${status}): ${reason}`
      : `${provider} answered HTTP ${status}: ${reason}`;
  return new ProviderError(message, { retryable, status });
}

export function reasonOf(body: string): string {
  let reason: unknown;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed.error as Record<string, unknown> | string | undefined;
    reason =
      (typeof error === 'object' && error ? error.message : error) ??
      (Array.isArray(parsed.detail) ? JSON.stringify(parsed.detail) : parsed.detail) ??
      parsed.err_msg ??
      parsed.message;
  } catch {
    // Not JSON: plain text.
  }
  const text = (typeof reason === 'string' && reason ? reason : body).replace(/\s+/g, ' ').trim();
  return text.slice(0, 200) || '(empty body)';
}

/** Parses a 2xx body as JSON; an unusable answer is final (asking again gets the same). */
export function parseJson(provider: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new ProviderError(`${provider} answered with invalid JSON: ${body.slice(0, 200)}`, { retryable: false });
  }
}

/** At most `max` calls of `run` in flight per limiter; the rest wait in order. */
export type Limiter = <T>(run: () => Promise<T>) => Promise<T>;
export function limiter(max: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (run) => {
    // A finished call hands its slot straight to the next waiter, so `active` never exceeds `max`.
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/**
 * The source stream, optionally framed by `head` and `tail` bytes (a multipart part, a WAV header), with `onBytes`
 * told of every source chunk (activity heartbeats). Joined by `pipeline`, so destroying the result (a timeout, a
 * refused upload) destroys the source too, e.g. the S3 download, instead of leaving it open.
 */
export function framed(source: Readable, options: { head?: Buffer; tail?: Buffer; onBytes?: (bytes: number) => void }): Readable {
  let started = false;
  const start = (stream: Transform) => {
    if (!started && options.head) stream.push(options.head);
    started = true;
  };
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      start(this);
      options.onBytes?.(chunk.length);
      done(null, chunk);
    },
    flush(done) {
      start(this);
      if (options.tail) this.push(options.tail);
      done();
    },
  });
  pipeline(source, through).catch(() => {
    // The failure reaches the reader through `through` itself.
  });
  return through;
}

/** The caller's key (a tenant's own) before the operator's. */
export function authKey(tenantKey: string | undefined, operatorKey: string | undefined): string | undefined {
  return tenantKey || operatorKey || undefined;
}

// One POST of a signed webhook and what it means (docs/decisions.md §10). node:http rather than fetch: redirects are never
// followed (a 3xx is a failure), the timeout covers the whole exchange, and the connection goes through the SSRF
// guard's lookup, so the address connected to is the address checked (no DNS rebinding). With tracing on, the POST is a
// span of the recording's trace and carries its W3C `traceparent` (docs/decisions.md §10, §12).
import http from 'node:http';
import https from 'node:https';
import type { WebhookAttemptOutcome } from '../../metrics/metrics.ts';
import { signWebhook } from '../../security/signatures.ts';
import { assertSafeWebhookUrl, createSafeLookup, UnresolvableHostError, UnsafeUrlError } from '../../security/ssrf-guard.ts';
import { SpanKind, withSpan, withTraceHeaders } from '../../tracing/spans.ts';

/** Stored receiver answers are cut to this (docs/decisions.md §10). */
export const MAX_STORED_RESPONSE_BYTES = 1024;
/** A `Retry-After` longer than the scheduled delay is honoured up to this bound (docs/webhooks.md). */
export const MAX_RETRY_AFTER_SECONDS = 6 * 3600;
export const USER_AGENT = 'Convene-Webhook/1.0';

export interface SendRequest {
  url: string;
  secret: string;
  deliveryId: string;
  event: string;
  body: string;
  timeoutMs: number;
  /** Production: https only, public addresses only (checked after DNS resolution and again at connect). */
  production: boolean;
}

export type SendOutcome =
  | { kind: 'succeeded'; statusCode: number; durationMs: number; responseBody: string | null }
  | {
      kind: 'retry' | 'final';
      statusCode: number | null;
      durationMs: number;
      error: string;
      responseBody: string | null;
      /** 429's Retry-After in seconds (bounded), when the receiver sent one. */
      retryAfterSeconds?: number;
      /** The receiver did not answer within WEBHOOK_TIMEOUT_MS (statusCode is null). */
      timedOut?: true;
    };

/** The headers of one attempt: signed afresh, with the current time (receivers refuse stale timestamps). */
export function signedHeaders(req: Pick<SendRequest, 'secret' | 'deliveryId' | 'event' | 'body'>, nowSeconds = Math.floor(Date.now() / 1000)) {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Convene-Event': req.event,
    'X-Convene-Delivery': req.deliveryId,
    'X-Convene-Timestamp': String(nowSeconds),
    'X-Convene-Signature': signWebhook(req.secret, nowSeconds, req.body),
    'Content-Length': String(Buffer.byteLength(req.body)),
  };
}

/**
 * A URL the address guard refuses (before connecting, or at the lookup of the address connected to) is refused for
 * good: no retry schedule runs against a forbidden address (docs/decisions.md §10). A host with no DNS answer is not a
 * refusal: the answer may change, so it is retried like any network error.
 */
function refusedByGuard(err: unknown): boolean {
  return err instanceof UnsafeUrlError && !(err instanceof UnresolvableHostError);
}

export async function sendWebhook(req: SendRequest, onProgress?: () => void): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = await assertSafeWebhookUrl(req.url, { production: req.production });
  } catch (err) {
    return { kind: refusedByGuard(err) ? 'final' : 'retry', statusCode: null, durationMs: elapsed(), error: describeNetworkError(err), responseBody: null };
  }
  const client = target.protocol === 'https:' ? https : http;
  const ticker = onProgress ? setInterval(onProgress, 2000) : undefined;
  // The receiver's host only: a tenant's URL may carry a token in its path or query.
  const attributes = { 'http.request.method': 'POST', 'server.address': target.hostname, 'convene.delivery_id': req.deliveryId, 'convene.event': req.event };
  try {
    const answer = await withSpan('POST webhook', { kind: SpanKind.CLIENT, attributes }, (span) => new Promise<{ statusCode: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const request = client.request(target, {
        method: 'POST',
        headers: withTraceHeaders(signedHeaders(req)),
        lookup: createSafeLookup({ production: req.production }),
        timeout: req.timeoutMs,
      });
      const deadline = setTimeout(() => request.destroy(new TimeoutError(req.timeoutMs)), req.timeoutMs);
      request.on('timeout', () => request.destroy(new TimeoutError(req.timeoutMs)));
      request.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      request.on('response', (response) => {
        span.setAttribute('http.response.status_code', response.statusCode ?? 0);
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          // Keep only what is stored; the rest is read and dropped so the connection ends cleanly.
          if (kept < MAX_STORED_RESPONSE_BYTES) {
            chunks.push(chunk.subarray(0, MAX_STORED_RESPONSE_BYTES - kept));
            kept += Math.min(chunk.length, MAX_STORED_RESPONSE_BYTES - kept);
          }
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', (err) => {
          clearTimeout(deadline);
          reject(err);
        });
      });
      request.end(req.body);
    }));
    return classify(answer.statusCode, answer.headers, answer.body || null, elapsed());
  } catch (err) {
    const timedOut = err instanceof TimeoutError ? { timedOut: true as const } : {};
    const kind = refusedByGuard(err) ? 'final' : 'retry';
    return { kind, statusCode: null, durationMs: elapsed(), error: describeNetworkError(err), responseBody: null, ...timedOut };
  } finally {
    if (ticker) clearInterval(ticker);
  }
}

/** How an attempt ended, as convene_webhook_attempts_total counts it (docs/decisions.md §12). */
export function attemptOutcome(outcome: SendOutcome): WebhookAttemptOutcome {
  if (outcome.kind === 'succeeded') return 'succeeded';
  if (outcome.statusCode !== null) return 'http_error';
  return outcome.timedOut ? 'timeout' : 'network_error';
}

/** The response rules of docs/decisions.md §10, in one place. */
export function classify(statusCode: number, headers: http.IncomingHttpHeaders, responseBody: string | null, durationMs: number): SendOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'succeeded', statusCode, durationMs, responseBody };
  const base = { statusCode, durationMs, responseBody };
  if (statusCode >= 300 && statusCode < 400) {
    const location = typeof headers.location === 'string' ? ' (redirects are not followed)' : '';
    return { kind: 'final', ...base, error: `Receiver answered ${statusCode}${location}` };
  }
  if (statusCode === 429) {
    const retryAfterSeconds = parseRetryAfter(headers['retry-after']);
    return { kind: 'retry', ...base, error: 'Receiver answered 429', ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  }
  if (statusCode === 408 || statusCode >= 500) return { kind: 'retry', ...base, error: `Receiver answered ${statusCode}` };
  return { kind: 'final', ...base, error: `Receiver answered ${statusCode}` };
}

/** Seconds or an HTTP date; bounded by MAX_RETRY_AFTER_SECONDS. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Math.ceil((Date.parse(value) - now) / 1000);
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`No response within ${ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`}`);
    this.name = 'TimeoutError';
  }
}

function describeNetworkError(err: unknown): string {
  if (err instanceof TimeoutError) return err.message;
  // Before the general SSRF case: an unresolvable host is a DNS failure, not an address the guard refused.
  if (err instanceof UnresolvableHostError) return `DNS lookup failed: ${err.message}`;
  if (err instanceof UnsafeUrlError) return `Refused by the SSRF guard: ${err.message}`;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ECONNRESET':
      return 'Connection reset by the receiver';
    case 'ECONNREFUSED':
      return 'Connection refused by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DNS lookup failed (${code})`;
    default:
      return `Network error${code ? ` (${code})` : ''}: ${(err as Error)?.message ?? String(err)}`.slice(0, 1000);
  }
}

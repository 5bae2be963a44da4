// The response rules of docs/decisions.md §10 as the sender applies them (classify, parseRetryAfter), and how an attempt that
// never reaches a receiver is reported: a host with no DNS answer, a host the SSRF guard refuses.
import {
  attemptOutcome,
  classify,
  MAX_RETRY_AFTER_SECONDS,
  parseRetryAfter,
  sendWebhook,
  type SendRequest,
} from '../../../src/modules/deliveries/delivery-sender.ts';

const kindOf = (status: number, headers: Record<string, string> = {}) => classify(status, headers, null, 5).kind;

describe('classify', () => {
  test('2xx succeeds', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(kindOf(status)).toBe('succeeded');
  });

  test('408 and 429 are retried, unlike other 4xx', () => {
    expect(classify(408, {}, 'slow', 5)).toEqual({ kind: 'retry', statusCode: 408, durationMs: 5, responseBody: 'slow', error: 'Receiver answered 408' });
    const limited = classify(429, {}, null, 5);
    expect(limited).toEqual({ kind: 'retry', statusCode: 429, durationMs: 5, responseBody: null, error: 'Receiver answered 429' });
    expect(limited).not.toHaveProperty('retryAfterSeconds'); // no Retry-After: the schedule decides
  });

  test("429's Retry-After: delta-seconds, an HTTP date, and both capped at the upper bound", () => {
    expect(classify(429, { 'retry-after': '120' }, null, 5)).toMatchObject({ kind: 'retry', retryAfterSeconds: 120 });
    // An HTTP date has whole seconds: two minutes ahead reads as 119 or 120 seconds from now.
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const dated = classify(429, { 'retry-after': inTwoMinutes }, null, 5);
    expect(dated.kind).toBe('retry');
    expect(dated).toHaveProperty('retryAfterSeconds', expect.any(Number));
    const seconds = (dated as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(seconds).toBeGreaterThanOrEqual(119);
    expect(seconds).toBeLessThanOrEqual(120);
    expect(classify(429, { 'retry-after': String(MAX_RETRY_AFTER_SECONDS + 1) }, null, 5)).toMatchObject({
      retryAfterSeconds: MAX_RETRY_AFTER_SECONDS,
    });
    const nextWeek = new Date(Date.now() + 7 * 24 * 3600 * 1000).toUTCString();
    expect(classify(429, { 'retry-after': nextWeek }, null, 5)).toMatchObject({ retryAfterSeconds: MAX_RETRY_AFTER_SECONDS });
  });

  test('3xx is final and never followed; the error says so when there is a Location', () => {
    expect(classify(301, { location: 'https://elsewhere.example/' }, null, 5)).toMatchObject({
      kind: 'final',
      statusCode: 301,
      error: 'Receiver answered 301 (redirects are not followed)',
    });
    for (const status of [302, 303, 304, 307, 308]) expect(kindOf(status)).toBe('final');
  });

  test('other 4xx are final at once', () => {
    for (const status of [400, 401, 403, 404, 405, 409, 410, 413, 422, 451]) expect([status, kindOf(status)]).toEqual([status, 'final']);
  });

  test('5xx are retried', () => {
    for (const status of [500, 501, 502, 503, 504, 599]) expect([status, kindOf(status)]).toEqual([status, 'retry']);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  test('delta-seconds and HTTP dates, relative to now', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 90 ', now)).toBe(90);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:05:00 GMT', now)).toBe(300);
  });

  test('capped at MAX_RETRY_AFTER_SECONDS', () => {
    expect(MAX_RETRY_AFTER_SECONDS).toBe(6 * 3600);
    expect(parseRetryAfter(String(MAX_RETRY_AFTER_SECONDS), now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('86400', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('Fri, 01 Jan 2027 00:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  test('absent, unreadable or past values are ignored', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter(['10', '20'], now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBeUndefined();
  });
});

describe('an attempt that reaches no receiver', () => {
  const request = (url: string, production: boolean): SendRequest => ({
    url,
    secret: 'whsec_test_0123456789abcdef0123456789',
    deliveryId: '01931c70-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
    event: 'meeting.recording_ready',
    body: '{}',
    timeoutMs: 5_000,
    production,
  });

  // `.invalid` never resolves (RFC 6761): the resolver answers at once, no network needed.
  test.each([
    ['development', 'http://convene-no-such-host.invalid/hook', false],
    ['production', 'https://convene-no-such-host.invalid/hook', true],
  ])('a host with no DNS answer (%s) is a retried DNS failure, not an SSRF refusal', async (_, url, production) => {
    const outcome = await sendWebhook(request(url, production));
    expect(outcome).toMatchObject({ kind: 'retry', statusCode: null, responseBody: null });
    if (outcome.kind === 'succeeded') throw new Error('unreachable');
    expect(outcome.error).toMatch(/^DNS lookup failed: host convene-no-such-host\.invalid could not be resolved \((ENOTFOUND|EAI_AGAIN)\)$/);
    expect(outcome.timedOut).toBeUndefined();
    expect(attemptOutcome(outcome)).toBe('network_error');
  });

  test('the SSRF guard refuses a loopback receiver in production for good (no retry schedule), and says so', async () => {
    const outcome = await sendWebhook(request('https://127.0.0.1:9/hook', true));
    expect(outcome).toMatchObject({ kind: 'final', statusCode: null, error: 'Refused by the SSRF guard: URL host 127.0.0.1 is a loopback address' });
  });
});

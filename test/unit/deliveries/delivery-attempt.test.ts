// The decide stage of a delivery attempt (docs/decisions.md §10): every branch, against outcomes the sender's own rules
// produce (classify, and real POSTs to a local receiver), and the schedule's boundaries. What decide returns is what the
// run sleeps on and what the attempt row records, so a recorded attempt must answer a repeated activity alike.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../src/config.ts';
import {
  decide,
  replyOf,
  replyOfRecorded,
  sendAttempt,
  statusAfter,
  WEBHOOK_NO_LONGER_ENABLED,
  type AttemptDecision,
} from '../../../src/modules/deliveries/delivery-attempt.ts';
import { configuredSchedule, delayAfter } from '../../../src/modules/deliveries/delivery-schedule.ts';
import { classify, MAX_RETRY_AFTER_SECONDS, type SendOutcome } from '../../../src/modules/deliveries/delivery-sender.ts';
import { webhookSettings } from '../../../src/modules/deliveries/webhook-settings.ts';

const DEFAULT_SCHEDULE = [0, 60, 300, 900, 3600, 14400];
const attemptedAt = new Date('2026-11-25T12:00:00.000Z');
const at = (iso: string) => new Date(iso);
/** The receiver's answer after `durationMs`, as the sender classifies it. */
const answered = (status: number, headers: Record<string, string> = {}, durationMs = 1500) => classify(status, headers, null, durationMs);
const refused: SendOutcome = { kind: 'final', statusCode: null, durationMs: 0, error: WEBHOOK_NO_LONGER_ENABLED, responseBody: null };
const timedOut: SendOutcome = { kind: 'retry', statusCode: null, durationMs: 30_000, error: 'No response within 30 seconds', responseBody: null, timedOut: true };

describe('decide', () => {
  test('a 2xx succeeds, whatever the schedule has left, and ends when the attempt did', () => {
    for (const next of [60, null]) {
      expect(decide(answered(204), { attemptedAt, nextDelaySeconds: next })).toEqual({ kind: 'succeeded', finishedAt: at('2026-11-25T12:00:01.500Z') });
    }
  });

  test('a final answer (3xx, other 4xx) fails at once, even with attempts left', () => {
    for (const status of [301, 400, 404, 410]) {
      expect([status, decide(answered(status), { attemptedAt, nextDelaySeconds: 60 })]).toEqual([
        status,
        { kind: 'failed', finishedAt: at('2026-11-25T12:00:01.500Z') },
      ]);
    }
  });

  test('a webhook disabled since: failed, not retried', () => {
    expect(decide(refused, { attemptedAt, nextDelaySeconds: 300 })).toEqual({ kind: 'failed', finishedAt: attemptedAt });
  });

  test('a retryable answer (5xx, 408, 429, timeout) retries after the schedule’s delay, counted from the end of the attempt', () => {
    for (const outcome of [answered(500), answered(503), answered(408), answered(429)]) {
      expect(decide(outcome, { attemptedAt, nextDelaySeconds: 300 })).toEqual({
        kind: 'retry',
        finishedAt: at('2026-11-25T12:00:01.500Z'),
        delaySeconds: 300,
        at: at('2026-11-25T12:05:01.500Z'),
      });
    }
    expect(decide(timedOut, { attemptedAt, nextDelaySeconds: 60 })).toEqual({
      kind: 'retry',
      finishedAt: at('2026-11-25T12:00:30.000Z'),
      delaySeconds: 60,
      at: at('2026-11-25T12:01:30.000Z'),
    });
  });

  test('a retryable answer on the last attempt fails', () => {
    for (const outcome of [answered(503), answered(429, { 'retry-after': '60' }), timedOut]) {
      expect(decide(outcome, { attemptedAt, nextDelaySeconds: null }).kind).toBe('failed');
    }
  });

  test("429's Retry-After lengthens the delay, never shortens it; equal is the schedule's", () => {
    const longer = decide(answered(429, { 'retry-after': '600' }), { attemptedAt, nextDelaySeconds: 60 });
    expect(longer).toMatchObject({ kind: 'retry', delaySeconds: 600, at: at('2026-11-25T12:10:01.500Z') });
    expect(decide(answered(429, { 'retry-after': '5' }), { attemptedAt, nextDelaySeconds: 60 })).toMatchObject({ delaySeconds: 60 });
    expect(decide(answered(429, { 'retry-after': '60' }), { attemptedAt, nextDelaySeconds: 60 })).toMatchObject({ delaySeconds: 60 });
    // Bounded by the sender: a week becomes MAX_RETRY_AFTER_SECONDS.
    expect(decide(answered(429, { 'retry-after': String(7 * 86400) }), { attemptedAt, nextDelaySeconds: 60 })).toMatchObject({
      delaySeconds: MAX_RETRY_AFTER_SECONDS,
    });
  });

  test('a zero delay in the schedule retries at once (still a retry, not a failure)', () => {
    expect(decide(answered(502, {}, 0), { attemptedAt, nextDelaySeconds: 0 })).toEqual({ kind: 'retry', finishedAt: attemptedAt, delaySeconds: 0, at: attemptedAt });
  });
});

describe('what the run and the rows get', () => {
  test('statuses: succeeded, retrying, failed', () => {
    const finishedAt = attemptedAt;
    const decisions: AttemptDecision[] = [
      { kind: 'succeeded', finishedAt },
      { kind: 'retry', finishedAt, delaySeconds: 60, at: finishedAt },
      { kind: 'failed', finishedAt },
    ];
    expect(decisions.map(statusAfter)).toEqual(['succeeded', 'retrying', 'failed']);
  });

  test('the reply carries the delay to sleep and the receiver’s status only', () => {
    const outcome = answered(503);
    expect(replyOf(outcome, decide(outcome, { attemptedAt, nextDelaySeconds: 900 }))).toEqual({ status: 'retrying', nextDelaySeconds: 900, responseStatusCode: 503 });
    expect(replyOf(timedOut, decide(timedOut, { attemptedAt, nextDelaySeconds: null }))).toEqual({ status: 'failed', nextDelaySeconds: null, responseStatusCode: null });
    expect(replyOf(answered(200), decide(answered(200), { attemptedAt, nextDelaySeconds: 60 }))).toEqual({ status: 'succeeded', nextDelaySeconds: null, responseStatusCode: 200 });
  });

  test('an attempt recorded before answers a repeated activity as it answered the first time', () => {
    for (const [outcome, next] of [
      [answered(503, {}, 1234), 300],
      [answered(429, { 'retry-after': '600' }, 2600), 60],
      [timedOut, 14400],
      [answered(503), null],
      [answered(200), 60],
    ] as const) {
      const decision = decide(outcome, { attemptedAt, nextDelaySeconds: next });
      // The row as recordAttempt writes it.
      const row = { responseStatusCode: outcome.statusCode, attemptedAt, durationMs: outcome.durationMs, nextAttemptAt: decision.kind === 'retry' ? decision.at : null };
      expect(replyOfRecorded(statusAfter(decision), row)).toEqual(replyOf(outcome, decision));
    }
  });
});

describe('the schedule', () => {
  test('delayAfter: the delay between attempt n and n+1; none after the last', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => delayAfter(DEFAULT_SCHEDULE, n))).toEqual([60, 300, 900, 3600, 14400, null]);
    expect(delayAfter(DEFAULT_SCHEDULE, 7)).toBeNull();
    expect(delayAfter([0], 1)).toBeNull(); // a single attempt
    expect(delayAfter([30, 0], 1)).toBe(0);
  });

  test('the configured schedule is WEBHOOK_RETRY_DELAYS, read in one place for the API and the worker', () => {
    expect(configuredSchedule(loadConfig({}))).toEqual(DEFAULT_SCHEDULE);
    const config = loadConfig({ WEBHOOK_RETRY_DELAYS: '0,30s,2m', WEBHOOK_TIMEOUT_MS: '1500' });
    expect(configuredSchedule(config)).toEqual([0, 30, 120]);
    expect(webhookSettings(config)).toEqual({ retryDelaysSeconds: [0, 30, 120], timeoutMs: 1500, production: false });
  });
});

describe('send, then decide, against a real receiver', () => {
  let server: http.Server;
  let url: string;
  let answer: { status: number; headers?: Record<string, string> };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer.status, answer.headers ?? {}).end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const attempt = async (nextDelaySeconds: number | null) => {
    const request = { url, secret: 'whsec_unit_0123456789abcdef', deliveryId: 'd-1', event: 'meeting.recording_ready', body: '{}', timeoutMs: 5000, production: false };
    const outcome = await sendAttempt(request);
    return { outcome, decision: decide(outcome, { attemptedAt, nextDelaySeconds }) };
  };

  test('429 with a Retry-After of 10 minutes: retried at the end of the attempt + 600 s', async () => {
    answer = { status: 429, headers: { 'Retry-After': '600' } };
    const { outcome, decision } = await attempt(60);
    expect(decision).toMatchObject({ kind: 'retry', delaySeconds: 600 });
    if (decision.kind !== 'retry') throw new Error('unreachable');
    expect(decision.at.getTime() - attemptedAt.getTime()).toBe(outcome.durationMs + 600_000);
  });

  test('a 2xx succeeds; a 410 fails; a 503 on the last attempt fails', async () => {
    answer = { status: 200 };
    expect((await attempt(60)).decision.kind).toBe('succeeded');
    answer = { status: 410 };
    expect((await attempt(60)).decision.kind).toBe('failed');
    answer = { status: 503 };
    expect((await attempt(null)).decision.kind).toBe('failed');
    expect((await attempt(900)).decision).toMatchObject({ kind: 'retry', delaySeconds: 900 });
  });
});

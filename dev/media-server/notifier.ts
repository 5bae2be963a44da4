// Sends a signed `recording.ready` notification the way a provider would: the exact raw body, its hex HMAC-SHA256
// in `X-Upstream-Signature`, retried with backoff on a non-2xx answer or a network error.

import { setTimeout as sleep } from 'node:timers/promises';
import { signUpstream } from '../../src/security/signatures.ts';
import { UPSTREAM_SIGNATURE_HEADER, type RecordingReadyNotification } from '../../src/upstream/protocol.ts';

export interface NotificationAttempt {
  recordingId: string;
  url: string;
  attempt: number;
  at: string;
  /** HTTP status of the answer; absent after a network error or timeout. */
  status?: number;
  error?: string;
}

export interface DeliveryOptions {
  url: string;
  secret: string;
  /** Wait before each attempt; its length is the number of attempts. */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  /** Aborts waiting and in-flight attempts (server shutdown). */
  signal: AbortSignal;
  onAttempt(attempt: NotificationAttempt): void;
}

export function notificationRequest(
  notification: RecordingReadyNotification,
  secret: string,
): { body: string; signature: string } {
  const body = JSON.stringify(notification);
  return { body, signature: signUpstream(secret, body) };
}

/** Resolves true once a receiver answered 2xx, false when every attempt failed or the signal aborted. */
export async function deliverNotification(
  notification: RecordingReadyNotification,
  options: DeliveryOptions,
): Promise<boolean> {
  const { body, signature } = notificationRequest(notification, options.secret);
  for (const [index, delay] of options.retryDelaysMs.entries()) {
    try {
      if (delay > 0) await sleep(delay, undefined, { signal: options.signal });
    } catch {
      return false;
    }
    if (options.signal.aborted) return false;
    const attempt: NotificationAttempt = {
      recordingId: notification.recording_id,
      url: options.url,
      attempt: index + 1,
      at: new Date().toISOString(),
    };
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [UPSTREAM_SIGNATURE_HEADER]: signature,
          'user-agent': 'Convene-DevMedia/1.0',
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      await response.body?.cancel();
      attempt.status = response.status;
      options.onAttempt(attempt);
      if (response.ok) return true;
    } catch (error) {
      attempt.error = (error as Error).message;
      options.onAttempt(attempt);
    }
  }
  return false;
}

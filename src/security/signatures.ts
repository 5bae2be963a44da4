import { createHmac, timingSafeEqual } from 'node:crypto';
import { safeEqual } from './api-keys.ts';

// Outgoing webhooks (spec, Events, "Outgoing webhook" Signature):
//   X-Convene-Timestamp: <unix seconds>
//   X-Convene-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the tenant's secret>
// Receivers verify against the raw bytes of the body, in constant time, and refuse timestamps more than
// 300 s away from their clock (replay protection). verifyWebhook below is that receiver, ready to copy.

const WEBHOOK_SIGNATURE = /^sha256=[0-9a-f]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

export function signWebhook(secret: string, timestampSeconds: number | string, rawBody: Buffer | string): string {
  const timestamp = String(timestampSeconds);
  if (!UNIX_SECONDS.test(timestamp)) throw new RangeError('timestamp must be whole Unix seconds');
  // Two updates rather than string concatenation: the body is signed byte for byte, whatever its encoding.
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody);
  return `sha256=${hmac.digest('hex')}`;
}

export interface VerifyWebhookOptions {
  /** Largest allowed distance between the timestamp header and now, either way. */
  toleranceSeconds?: number;
  /** Current time in Unix seconds (defaults to the clock). */
  now?: number;
}

/**
 * A receiver's check of an outgoing webhook: `headerValue` is X-Convene-Signature, `timestampHeader` is
 * X-Convene-Timestamp, `rawBody` the unparsed request body. False (never a throw) for anything wrong.
 */
export function verifyWebhook(
  secret: string,
  headerValue: string | undefined,
  timestampHeader: string | undefined,
  rawBody: Buffer | string,
  { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) }: VerifyWebhookOptions = {},
): boolean {
  // An empty secret would make the signature computable by anyone.
  if (!secret || typeof headerValue !== 'string' || typeof timestampHeader !== 'string') return false;
  if (!WEBHOOK_SIGNATURE.test(headerValue) || !UNIX_SECONDS.test(timestampHeader)) return false;
  if (Math.abs(now - Number(timestampHeader)) > toleranceSeconds) return false;
  return safeEqual(headerValue, signWebhook(secret, timestampHeader, rawBody));
}

/** X-Upstream-Signature as the media provider sends it: hex HMAC-SHA256 of the raw body. */
export function signUpstream(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Checks X-Upstream-Signature before the body is parsed. False on a missing or malformed header; never throws. */
export function verifyUpstreamSignature(secret: string, rawBody: Buffer, headerHex: string | undefined): boolean {
  try {
    if (!secret || typeof headerHex !== 'string' || !HEX_SHA256.test(headerHex)) return false;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    return timingSafeEqual(Buffer.from(headerHex, 'hex'), expected);
  } catch {
    return false;
  }
}

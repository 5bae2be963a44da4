import { createHmac } from 'node:crypto';
import {
  signUpstream,
  signWebhook,
  verifyUpstreamSignature,
  verifyWebhook,
} from '../../../src/security/signatures.ts';

const secret = 'whsec_test_secret';
const body = '{"event":"meeting.recording_ready","meeting":{"id":"7c1a"}}';

describe('outgoing webhook signature', () => {
  test('is sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signWebhook(secret, 1700000000, body)).toBe(`sha256=${expected}`);
    expect(signWebhook(secret, '1700000000', Buffer.from(body))).toBe(`sha256=${expected}`);
  });

  test('matches a fixed vector computed with openssl', () => {
    // printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_abc
    expect(signWebhook('whsec_abc', 1700000000, '{"a":1}')).toBe(
      'sha256=3b843bacfb18cc5554542fdcc84d815b399c52758e508a6fcecf0a2af4efea2b',
    );
  });

  test('signs a binary body byte for byte', () => {
    const raw = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from('5.'), raw])).digest('hex');
    expect(signWebhook(secret, 5, raw)).toBe(`sha256=${expected}`);
  });

  test('refuses a timestamp that is not whole seconds', () => {
    expect(() => signWebhook(secret, 1.5, body)).toThrow(RangeError);
    expect(() => signWebhook(secret, '12a', body)).toThrow(RangeError);
  });
});

describe('verifyWebhook (the receiver side)', () => {
  const now = 1_700_000_000;
  const header = signWebhook(secret, now, body);

  test('accepts a fresh, correctly signed request', () => {
    expect(verifyWebhook(secret, header, String(now), body, { now })).toBe(true);
    expect(verifyWebhook(secret, header, String(now), Buffer.from(body), { now: now + 300 })).toBe(true);
    expect(verifyWebhook(secret, header, String(now), body, { now: now - 300 })).toBe(true);
  });

  test('refuses timestamps outside the tolerance, either way', () => {
    expect(verifyWebhook(secret, header, String(now), body, { now: now + 301 })).toBe(false);
    expect(verifyWebhook(secret, header, String(now), body, { now: now - 301 })).toBe(false);
    expect(verifyWebhook(secret, header, String(now), body, { now: now + 20, toleranceSeconds: 10 })).toBe(false);
  });

  test('refuses a wrong secret, altered body, altered timestamp or malformed header', () => {
    expect(verifyWebhook('other', header, String(now), body, { now })).toBe(false);
    expect(verifyWebhook(secret, header, String(now), `${body} `, { now })).toBe(false);
    expect(verifyWebhook(secret, header, String(now + 1), body, { now })).toBe(false);
    expect(verifyWebhook(secret, header.replace('sha256=', ''), String(now), body, { now })).toBe(false);
    expect(verifyWebhook(secret, header.toUpperCase(), String(now), body, { now })).toBe(false);
    expect(verifyWebhook(secret, undefined, String(now), body, { now })).toBe(false);
    expect(verifyWebhook(secret, header, undefined, body, { now })).toBe(false);
    expect(verifyWebhook(secret, header, 'yesterday', body, { now })).toBe(false);
    expect(verifyWebhook('', signWebhook('', now, body), String(now), body, { now })).toBe(false);
  });

  test('uses the clock when no time is given', () => {
    const ts = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(secret, signWebhook(secret, ts, body), String(ts), body)).toBe(true);
    expect(verifyWebhook(secret, signWebhook(secret, ts - 3600, body), String(ts - 3600), body)).toBe(false);
  });
});

describe('upstream (media provider) signature', () => {
  const raw = Buffer.from('{"type":"recording.ready","recording_id":"r1"}');
  const expectedHex = createHmac('sha256', 'upstream-secret').update(raw).digest('hex');

  test('signUpstream is the hex HMAC-SHA256 of the raw body', () => {
    expect(signUpstream('upstream-secret', raw)).toBe(expectedHex);
    // printf '{"type":"recording.ready"}' | openssl dgst -sha256 -hmac upstream-secret
    expect(signUpstream('upstream-secret', '{"type":"recording.ready"}')).toBe(
      'f20840b90e5847689bb2fe1ef14958d6b7c2732780967af79a10f4f5acfea84e',
    );
  });

  test('verifies a correct header, in either hex case', () => {
    expect(verifyUpstreamSignature('upstream-secret', raw, expectedHex)).toBe(true);
    expect(verifyUpstreamSignature('upstream-secret', raw, expectedHex.toUpperCase())).toBe(true);
  });

  test('is false, never a throw, for anything wrong', () => {
    const flipped = (expectedHex[0] === '0' ? '1' : '0') + expectedHex.slice(1);
    expect(verifyUpstreamSignature('upstream-secret', raw, flipped)).toBe(false);
    expect(verifyUpstreamSignature('other-secret', raw, expectedHex)).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', Buffer.concat([raw, Buffer.from(' ')]), expectedHex)).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', raw, undefined)).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', raw, '')).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', raw, expectedHex.slice(2))).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', raw, `sha256=${expectedHex}`)).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', raw, `${expectedHex.slice(0, -1)}z`)).toBe(false);
    expect(verifyUpstreamSignature('upstream-secret', raw, 'a'.repeat(10_000))).toBe(false);
    expect(verifyUpstreamSignature('', raw, createHmac('sha256', '').update(raw).digest('hex'))).toBe(false);
  });
});

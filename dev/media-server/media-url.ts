// Expiring download links for generated media: `/media/{id}.wav?expires=<unix seconds>&sig=<hex HMAC-SHA256>`.
// The key is derived from the webhook secret, so links survive a restart of the server without a second secret.

import { createHmac, timingSafeEqual } from 'node:crypto';

export class MediaUrlSigner {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = createHmac('sha256', secret).update('convene-dev-media-url').digest();
  }

  sign(baseUrl: string, recordingId: string, expiresAt: Date): string {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const url = new URL(`media/${encodeURIComponent(recordingId)}.wav`, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('sig', this.#signature(recordingId, expires));
    return url.href;
  }

  /** 'ok', or why the link is refused. */
  check(recordingId: string, expires: string | null, sig: string | null, now: Date): 'ok' | 'expired' | 'bad-signature' {
    if (!expires || !/^\d{1,12}$/.test(expires) || !sig || !/^[0-9a-f]{64}$/i.test(sig)) return 'bad-signature';
    const expected = Buffer.from(this.#signature(recordingId, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'bad-signature';
    return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'ok';
  }

  #signature(recordingId: string, expires: number): string {
    return createHmac('sha256', this.#key).update(`${recordingId}\n${expires}`).digest('hex');
  }
}

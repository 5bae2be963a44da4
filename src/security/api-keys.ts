import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Tenant API keys: `cvn_` + base64url of 32 random bytes (43 characters). Shown once, stored only as a hash.
const API_KEY_PREFIX = 'cvn_';
const API_KEY_RANDOM_BYTES = 32;
const API_KEY_PATTERN = /^cvn_[A-Za-z0-9_-]{43}$/;
// Longest string looksLikeApiKey will even look at: garbage of any size is refused in O(1).
const API_KEY_LENGTH = API_KEY_PREFIX.length + 43;

export function generateApiKey(): { key: string; hash: string } {
  const key = API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
  return { key, hash: hashApiKey(key) };
}

/**
 * SHA-256 hex of the key. A fast, unsalted hash is right here (unlike passwords): the key carries 256 bits of
 * randomness, so guessing is hopeless however fast the hash, and a deterministic hash lets us find the tenant by
 * an indexed lookup on the hash instead of comparing against every stored key.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Format check before any database work: refuses anything that could not have come from generateApiKey. */
export function looksLikeApiKey(s: unknown): s is string {
  return typeof s === 'string' && s.length === API_KEY_LENGTH && API_KEY_PATTERN.test(s);
}

/**
 * Constant-time string comparison; every comparison of a secret in Convene goes through here.
 * Pass the untrusted value as `a` and the expected secret as `b`: the time taken depends only on the length of
 * `a`, so neither the content nor the length of the secret leaks. With unequal lengths `a` is compared against
 * itself (a dummy of the same length), keeping the work the same as a real comparison.
 */
export function safeEqual(a: string, b: string): boolean {
  const given = Buffer.from(a, 'utf8');
  const expected = Buffer.from(b, 'utf8');
  if (given.length !== expected.length) {
    timingSafeEqual(given, given);
    return false;
  }
  return timingSafeEqual(given, expected);
}

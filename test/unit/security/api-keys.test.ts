import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, looksLikeApiKey, safeEqual } from '../../../src/security/api-keys.ts';

describe('API keys', () => {
  test('a generated key is cvn_ + 32 random bytes in base64url, returned with its SHA-256 hash', () => {
    const { key, hash } = generateApiKey();
    expect(key).toMatch(/^cvn_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toBe(hash);
  });

  test('two generated keys differ', () => {
    expect(generateApiKey().key).not.toBe(generateApiKey().key);
  });

  test('looksLikeApiKey accepts generated keys and refuses other shapes', () => {
    expect(looksLikeApiKey(generateApiKey().key)).toBe(true);
    const valid = generateApiKey().key;
    for (const bad of [
      '',
      'cvn_',
      valid.slice(0, -1),
      `${valid}A`,
      valid.replace('cvn_', 'xyz_'),
      `${valid.slice(0, -1)}=`,
      `${valid.slice(0, -1)}+`,
      `cvn_${'A'.repeat(100_000)}`,
    ]) {
      expect(looksLikeApiKey(bad)).toBe(false);
    }
    expect(looksLikeApiKey(undefined)).toBe(false);
    expect(looksLikeApiKey(42)).toBe(false);
  });
});

describe('safeEqual', () => {
  test('true only for identical strings', () => {
    expect(safeEqual('secret-value', 'secret-value')).toBe(true);
    expect(safeEqual('secret-value', 'secret-valuE')).toBe(false);
    expect(safeEqual('secret', 'secret-value')).toBe(false);
    expect(safeEqual('secret-value', 'secret')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('', 'x')).toBe(false);
  });

  test('compares bytes, not UTF-16 units', () => {
    expect(safeEqual('é', 'é')).toBe(true);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });
});

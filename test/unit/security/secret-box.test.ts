import { createDecipheriv, randomBytes } from 'node:crypto';
import {
  SecretBox,
  SecretBoxError,
  generateSecretsKey,
  isUnboundSealed,
  maskSecret,
  parseSecretsKey,
} from '../../../src/security/secret-box.ts';

const key = randomBytes(32);
const box = new SecretBox(key.toString('base64'));

describe('SecretBox', () => {
  test('round trip, with a fresh IV every time', () => {
    const a = box.seal('whsec_very_secret ✓');
    const b = box.seal('whsec_very_secret ✓');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('secret');
    expect(box.open(a)).toBe('whsec_very_secret ✓');
    expect(box.open(b)).toBe('whsec_very_secret ✓');
    expect(box.open(box.seal(''))).toBe('');
  });

  test('is standard AES-256-GCM: node:crypto decrypts it with the same key', () => {
    const [, iv, tag, ciphertext] = box.seal('sk-provider-key').split('.').map((p) => Buffer.from(p, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.alloc(0));
    decipher.setAuthTag(tag);
    expect(Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString()).toBe('sk-provider-key');
  });

  test('accepts the key as hex, base64, base64url or raw bytes', () => {
    const sealed = box.seal('x');
    expect(new SecretBox(key.toString('hex')).open(sealed)).toBe('x');
    expect(new SecretBox(key.toString('base64url')).open(sealed)).toBe('x');
    expect(new SecretBox(key).open(sealed)).toBe('x');
    expect(parseSecretsKey(generateSecretsKey())).toHaveLength(32);
  });

  test('refuses keys of the wrong size or format, naming SECRETS_KEY', () => {
    for (const bad of ['', 'abc', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'z'.repeat(64)]) {
      expect(() => new SecretBox(bad)).toThrow(/SECRETS_KEY/);
    }
    expect(() => new SecretBox(randomBytes(16))).toThrow(SecretBoxError);
  });

  test('detects tampering with any part', () => {
    const sealed = box.seal('whsec_very_secret');
    const parts = sealed.split('.');
    for (let i = 1; i < 4; i++) {
      const bytes = Buffer.from(parts[i], 'base64url');
      bytes[0] ^= 1;
      const changed = [...parts];
      changed[i] = bytes.toString('base64url');
      expect(() => box.open(changed.join('.'))).toThrow(SecretBoxError);
    }
  });

  test('refuses a value sealed under another key', () => {
    expect(() => new SecretBox(randomBytes(32)).open(box.seal('x'))).toThrow(SecretBoxError);
  });

  test('binds the context: a value moved to another row or field does not open', () => {
    const sealed = box.seal('sk-123', 'tenant:a:ai_api_key');
    expect(sealed).toMatch(/^v2\./);
    expect(isUnboundSealed(sealed)).toBe(false);
    expect(box.open(sealed, 'tenant:a:ai_api_key')).toBe('sk-123');
    expect(() => box.open(sealed, 'tenant:b:ai_api_key')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'tenant:a:webhook_secret')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
    // Relabelled as the unbound v1 form, it still does not open: the tag covers the context.
    expect(() => box.open(sealed.replace(/^v2/, 'v1'))).toThrow(SecretBoxError);
  });

  test('the unbound v1 form (before the re-sealing migration) opens only without a context', () => {
    const legacy = box.seal('whsec_old');
    expect(isUnboundSealed(legacy)).toBe(true);
    expect(box.open(legacy)).toBe('whsec_old');
    expect(() => box.open(legacy, 'tenant:a:post_meeting_webhook.secret')).toThrow(SecretBoxError);
  });

  test('refuses malformed input', () => {
    const [, iv, tag, ct] = box.seal('x').split('.');
    for (const bad of ['', 'v1', `v3.${iv}.${tag}.${ct}`, `v2.${iv}.${tag}.${ct}`, `v1.${iv}.${tag}`, `v1.${iv}.${tag}.${ct}.x`, `v1.${iv}.AAAA.${ct}`, `v1.${iv}.${tag}.${ct}!`]) {
      expect(() => box.open(bad)).toThrow(SecretBoxError);
    }
  });
});

describe('maskSecret', () => {
  test('shows only the last 4 characters', () => {
    expect(maskSecret('whsec_abcdef1234')).toBe('****1234');
    expect(maskSecret('12345678')).toBe('****5678');
  });

  test('reveals nothing of a secret shorter than 8 characters, not even its length', () => {
    expect(maskSecret('1234567')).toBe('********');
    expect(maskSecret('ab')).toBe('********');
    expect(maskSecret('')).toBe('********');
  });
});

import { createDecipheriv, randomBytes } from 'node:crypto';
import {
  SecretBox,
  SecretBoxError,
  generateSecretsKey,
  isUnboundSealed,
  maskSecret,
  parseSecretsKeys,
} from '../../../src/security/secret-box.ts';
import { sealLegacy } from '../../helpers/legacy-sealed.ts';

const key = randomBytes(32);
const box = new SecretBox(key.toString('base64'));
const CONTEXT = 'tenant:a:post_meeting_webhook.secret';

describe('SecretBox', () => {
  test('round trip, with a fresh IV every time; the value records the key that sealed it', () => {
    const a = box.seal('whsec_very_secret ✓', CONTEXT);
    const b = box.seal('whsec_very_secret ✓', CONTEXT);
    expect(a).toMatch(/^v3\.k0\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('secret');
    expect(box.open(a, CONTEXT)).toBe('whsec_very_secret ✓');
    expect(box.open(b, CONTEXT)).toBe('whsec_very_secret ✓');
    expect(box.open(box.seal('', CONTEXT), CONTEXT)).toBe('');
    expect(() => box.seal('x', '')).toThrow(SecretBoxError);
  });

  test('is standard AES-256-GCM: node:crypto decrypts it with the same key and the context as associated data', () => {
    const [, , iv, tag, ciphertext] = box.seal('sk-provider-key', CONTEXT).split('.').map((p) => Buffer.from(p, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(CONTEXT));
    decipher.setAuthTag(tag);
    expect(Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString()).toBe('sk-provider-key');
  });

  test('accepts the key as hex, base64, base64url or raw bytes', () => {
    const sealed = box.seal('x', CONTEXT);
    expect(new SecretBox(key.toString('hex')).open(sealed, CONTEXT)).toBe('x');
    expect(new SecretBox(key.toString('base64url')).open(sealed, CONTEXT)).toBe('x');
    expect(new SecretBox(key).open(sealed, CONTEXT)).toBe('x');
    expect(parseSecretsKeys(generateSecretsKey())).toEqual([{ id: 'k0', key: expect.any(Buffer) }]);
  });

  test('refuses keys of the wrong size or format, naming SECRETS_KEY and never echoing a key', () => {
    const k = randomBytes(32).toString('base64');
    for (const bad of ['', 'abc', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'z'.repeat(64), `k1:${k},k1:${k}`, `${k}:k1`, `k.1:${k}`, `k1:${k},`]) {
      let message = '';
      try {
        new SecretBox(bad);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/SECRETS_KEY/);
      expect(message).not.toContain(k.slice(0, 12));
    }
    expect(() => new SecretBox(randomBytes(16))).toThrow(SecretBoxError);
  });

  test('detects tampering with any part', () => {
    const sealed = box.seal('whsec_very_secret', CONTEXT);
    const parts = sealed.split('.');
    for (let i = 2; i < 5; i++) {
      const bytes = Buffer.from(parts[i], 'base64url');
      bytes[0] ^= 1;
      const changed = [...parts];
      changed[i] = bytes.toString('base64url');
      expect(() => box.open(changed.join('.'), CONTEXT)).toThrow(SecretBoxError);
    }
  });

  test('refuses a value sealed under another key', () => {
    expect(() => new SecretBox(randomBytes(32)).open(box.seal('x', CONTEXT), CONTEXT)).toThrow(SecretBoxError);
  });

  test('binds the context: a value moved to another row or field does not open', () => {
    const sealed = box.seal('sk-123', 'tenant:a:ai_api_key');
    expect(isUnboundSealed(sealed)).toBe(false);
    expect(box.open(sealed, 'tenant:a:ai_api_key')).toBe('sk-123');
    expect(() => box.open(sealed, 'tenant:b:ai_api_key')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'tenant:a:webhook_secret')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
  });

  test('values stored before key ids (v1 unbound, v2 bound) are the key k0’s: they open while k0 is listed', () => {
    const secretsKey = key.toString('base64');
    const v1 = sealLegacy(secretsKey, 'whsec_old');
    const v2 = sealLegacy(secretsKey, 'whsec_bound', CONTEXT);
    expect(isUnboundSealed(v1)).toBe(true);
    expect(box.open(v1)).toBe('whsec_old');
    expect(() => box.open(v1, CONTEXT)).toThrow(SecretBoxError);
    expect(box.open(v2, CONTEXT)).toBe('whsec_bound');
    expect(() => box.open(v2)).toThrow(SecretBoxError);
    // Relabelled as the unbound v1 form, a bound value still does not open: the tag covers the context.
    expect(() => box.open(v2.replace(/^v2/, 'v1'))).toThrow(SecretBoxError);
    const rotated = new SecretBox(`k1:${generateSecretsKey()},k0:${secretsKey}`);
    expect(rotated.open(v2, CONTEXT)).toBe('whsec_bound');
    expect(() => new SecretBox(`k1:${generateSecretsKey()}`).open(v2, CONTEXT)).toThrow(/key "k0", which SECRETS_KEY does not list/);
  });

  test('refuses malformed input', () => {
    const [, , iv, tag, ct] = box.seal('x', CONTEXT).split('.');
    for (const bad of ['', 'v1', `v4.k0.${iv}.${tag}.${ct}`, `v3.${iv}.${tag}.${ct}`, `v2.k0.${iv}.${tag}.${ct}`, `v3.k0.${iv}.${tag}`, `v3.k0.${iv}.${tag}.${ct}.x`, `v3.k0.${iv}.AAAA.${ct}`, `v3.k0.${iv}.${tag}.${ct}!`, `v3.k!.${iv}.${tag}.${ct}`]) {
      expect(() => box.open(bad, CONTEXT)).toThrow(SecretBoxError);
    }
  });
});

describe('several sealing keys (SECRETS_KEY `<id>:<key>,…`, newest first)', () => {
  const k1 = generateSecretsKey();
  const k2 = generateSecretsKey();

  test('the first key seals; every listed key opens what it sealed; a dropped key’s values do not open', () => {
    const old = new SecretBox(`k1:${k1}`);
    const sealedOld = old.seal('whsec_before_rotation', CONTEXT);
    expect(sealedOld).toMatch(/^v3\.k1\./);
    const both = new SecretBox(` k2:${k2} , k1:${k1} `);
    expect(both.sealingKeyId).toBe('k2');
    expect(both.open(sealedOld, CONTEXT)).toBe('whsec_before_rotation');
    const sealedNew = both.seal('whsec_after_rotation', CONTEXT);
    expect(sealedNew).toMatch(/^v3\.k2\./);
    const onlyNew = new SecretBox(`k2:${k2}`);
    expect(onlyNew.open(sealedNew, CONTEXT)).toBe('whsec_after_rotation');
    expect(() => onlyNew.open(sealedOld, CONTEXT)).toThrow(/key "k1", which SECRETS_KEY does not list/);
  });

  test('reseal rewrites only what another key sealed, keeping the context', () => {
    const both = new SecretBox(`k2:${k2},k1:${k1}`);
    const sealedOld = new SecretBox(`k1:${k1}`).seal('sk-abc', CONTEXT);
    expect(both.needsReseal(sealedOld)).toBe(true);
    const resealed = both.reseal(sealedOld, CONTEXT);
    expect(both.needsReseal(resealed)).toBe(false);
    expect(both.reseal(resealed, CONTEXT)).toBe(resealed);
    expect(new SecretBox(`k2:${k2}`).open(resealed, CONTEXT)).toBe('sk-abc');
    expect(() => both.reseal(sealedOld, 'tenant:b:post_meeting_webhook.secret')).toThrow(SecretBoxError);
  });

  test('an entry without an id is k0, wherever it is listed', () => {
    expect(parseSecretsKeys(`k1:${k1},${k2}`).map((k) => k.id)).toEqual(['k1', 'k0']);
    expect(() => parseSecretsKeys(`${k1},${k2}`)).toThrow(/listed twice/);
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

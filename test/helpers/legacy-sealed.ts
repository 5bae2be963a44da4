import { createCipheriv, randomBytes } from 'node:crypto';
import { parseSecretsKeys } from '../../src/security/secret-box.ts';

/**
 * A value as it was stored before sealed values recorded their key (src/security/secret-box.ts): `v1` without a
 * context, `v2` bound to one; both sealed by the only key there was (`k0` today). For tests that read old data.
 */
export function sealLegacy(secretsKey: string, plaintext: string, context = ''): string {
  const key = parseSecretsKeys(secretsKey).find((k) => k.id === 'k0')!.key;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [context ? 'v2' : 'v1', ...[iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'))].join('.');
}

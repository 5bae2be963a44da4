import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Tenant-provided secrets (webhook secret, provider api_keys) and the JWT signing keys at rest: AES-256-GCM under
// SECRETS_KEY. Sealed form: `<version>.<iv>.<tag>.<ciphertext>`, each part base64url.
//   v2  bound to a context (additional authenticated data, `sealedContext(kind, id, field)`: a tenant's secret
//       `tenant:<id>:post_meeting_webhook.secret`, a signing key's `signing_key:<kid>:private_jwk`, a recording's
//       notification link `recording:<id>:source`): it opens only with that same context, so a value copied to another
//       row or field does not open there.
//   v1  the earlier form, sealed without a context. Migration 20261125-sealed-secrets-ad re-sealed every stored one
//       as v2; code that names a context cannot open a v1 value (its empty context does not match), so a v1 value
//       restored from an old backup into some row does not open either.
//
// SECRETS_KEY format: exactly 32 random bytes, written as 64 hex characters or as base64 / base64url
// (44 characters with padding, 43 without). `generateSecretsKey()` or `openssl rand -base64 32` makes one.

const UNBOUND = 'v1';
const BOUND = 'v2';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export function generateSecretsKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/** Decodes SECRETS_KEY; the error names the variable so start-up can report it as is. */
export function parseSecretsKey(value: string): Buffer {
  const text = value.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) key = Buffer.from(text, 'base64');
  if (!key || key.length !== KEY_BYTES) {
    throw new SecretBoxError('SECRETS_KEY must be 32 bytes written as 64 hex characters or base64 (44 characters)');
  }
  return key;
}

export class SecretBox {
  readonly #key: Buffer;

  /** `key`: the SECRETS_KEY string (hex or base64) or the 32 raw bytes. */
  constructor(key: string | Buffer) {
    if (typeof key === 'string') this.#key = parseSecretsKey(key);
    else if (key.length === KEY_BYTES) this.#key = Buffer.from(key);
    else throw new SecretBoxError('SECRETS_KEY must be 32 bytes');
  }

  /**
   * Encrypts with a fresh random IV. `context` (for example `tenant:<id>:webhook_secret`) is bound as
   * additional authenticated data: a sealed value copied to another row or field will not open there.
   */
  seal(plaintext: string, context = ''): string {
    const version = context ? BOUND : UNBOUND;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return [version, ...parts].join('.');
  }

  /** Decrypts; throws SecretBoxError when the value is malformed, tampered with, or sealed under another key/context. */
  open(sealed: string, context = ''): string {
    const parts = typeof sealed === 'string' ? sealed.split('.') : [];
    if (parts.length !== 4 || (parts[0] !== UNBOUND && parts[0] !== BOUND) || !parts.slice(1).every((p) => BASE64URL.test(p))) {
      throw new SecretBoxError('sealed secret is malformed');
    }
    if (parts[0] === BOUND && !context) throw new SecretBoxError('sealed secret is bound to a context; none was given');
    const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('sealed secret is malformed');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret failed authentication (tampered, sealed under another key, or for another row or field)');
    }
  }
}

/**
 * The one way a sealed value is bound to its row and field: the context `<kind>:<row id>:<field>` every caller passes
 * to `seal` and `open`.
 */
export const sealedContext = (kind: 'tenant' | 'signing_key' | 'recording', id: string, field: string): string => `${kind}:${id}:${field}`;

/** Whether a stored value is still in the unbound v1 form (the re-sealing migration converts those). */
export const isUnboundSealed = (sealed: string): boolean => sealed.startsWith(`${UNBOUND}.`);

/** `****` + the last 4 characters; secrets shorter than 8 characters become `********` (nothing revealed). */
export function maskSecret(secret: string): string {
  const chars = Array.from(secret);
  if (chars.length < 8) return '********';
  return `****${chars.slice(-4).join('')}`;
}

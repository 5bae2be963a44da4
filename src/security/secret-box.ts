import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Tenant-provided secrets (webhook secret, provider api_keys), the JWT signing keys' private halves and the recordings'
// notification links at rest: AES-256-GCM under a key of SECRETS_KEY (docs/decisions.md §4). Sealed form:
// `<version>.<parts>`, each part base64url.
//   v3  `v3.<key id>.<iv>.<tag>.<ciphertext>`: records which SECRETS_KEY key sealed it, and is bound to a context
//       (additional authenticated data, `sealedContext(kind, id, field)`: a tenant's secret
//       `tenant:<id>:post_meeting_webhook.secret`, a signing key's `signing_key:<kid>:private_jwk`, a recording's
//       notification link `recording:<id>:source`): it opens only with that same context, so a value copied to another
//       row or field does not open there. Every value sealed now has this form.
//   v2  `v2.<iv>.<tag>.<ciphertext>`, bound to a context, sealed before keys had ids: by the one key there was, which
//       is the key with the implied id `k0` (a bare SECRETS_KEY). The reseal command rewrites it as v3.
//   v1  the earliest form, sealed by `k0` without a context. Migration 20261125-sealed-secrets-ad re-sealed every stored
//       one; code that names a context cannot open a v1 value (its empty context does not match), so a v1 value
//       restored from an old backup into some row does not open either.
//
// SECRETS_KEY format: one or more keys separated by commas, newest first, each `<id>:<key>`; the first seals, every
// one opens what it sealed. A key is 32 random bytes written as 64 hex characters or as base64 / base64url (44
// characters with padding, 43 without); an id is 1–32 of `A-Z a-z 0-9 _ -`. An entry without `<id>:` has the id `k0`,
// so a single bare key (the original format) keeps working and keeps opening what it sealed before ids existed.
// `generateSecretsKey()` or `openssl rand -base64 32` makes a key.

const LEGACY_UNBOUND = 'v1';
const LEGACY_BOUND = 'v2';
const CURRENT = 'v3';
/** The id of a key written without one, and of the key that sealed every v1 and v2 value. */
export const IMPLIED_KEY_ID = 'k0';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export function generateSecretsKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

export interface SealingKey {
  id: string;
  key: Buffer;
}

/** One key's 32 bytes from hex or base64 / base64url. */
function parseKeyBytes(text: string): Buffer | undefined {
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) key = Buffer.from(text, 'base64');
  return key?.length === KEY_BYTES ? key : undefined;
}

/**
 * Decodes SECRETS_KEY into its keys, newest (the sealing one) first. The errors name the variable and never echo a
 * key, so start-up can report them as they are.
 */
export function parseSecretsKeys(value: string): SealingKey[] {
  const keys: SealingKey[] = [];
  for (const entry of value.split(',').map((e) => e.trim())) {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? IMPLIED_KEY_ID : entry.slice(0, colon);
    // An invalid id is not echoed: it may be a key written in the wrong order.
    if (!KEY_ID.test(id)) throw new SecretBoxError(`SECRETS_KEY: the id of key ${keys.length + 1} must be 1-32 of A-Z a-z 0-9 _ - (format <id>:<key>)`);
    const key = parseKeyBytes(colon < 0 ? entry : entry.slice(colon + 1));
    if (!key) {
      throw new SecretBoxError(
        `SECRETS_KEY: key ${keys.length + 1} ("${id}") must be 32 bytes written as 64 hex characters or base64 (44 characters); the format is <id>:<key>[,<id>:<key>…], newest first`,
      );
    }
    if (keys.some((k) => k.id === id)) throw new SecretBoxError(`SECRETS_KEY: key id "${id}" is listed twice`);
    keys.push({ id, key });
  }
  return keys;
}

export class SecretBox {
  // `#`, not `private`: it holds the raw SECRETS_KEY bytes, kept out of every log line, inspection and JSON of this
  // object (docs/architecture.md habit 17).
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The key that seals: the first of SECRETS_KEY. */
  readonly sealingKeyId: string;

  /** `keys`: the SECRETS_KEY string, or the 32 raw bytes of one key (id `k0`). */
  constructor(keys: string | Buffer) {
    let parsed: SealingKey[];
    if (typeof keys === 'string') parsed = parseSecretsKeys(keys);
    else if (keys.length === KEY_BYTES) parsed = [{ id: IMPLIED_KEY_ID, key: Buffer.from(keys) }];
    else throw new SecretBoxError('SECRETS_KEY must be 32 bytes');
    this.#keys = new Map(parsed.map((k) => [k.id, k.key]));
    this.sealingKeyId = parsed[0].id;
  }

  /**
   * Encrypts with the newest key and a fresh random IV. `context` (for example `tenant:<id>:post_meeting_webhook.secret`,
   * made by `sealedContext`) is bound as additional authenticated data: a sealed value copied to another row or field
   * will not open there.
   */
  seal(plaintext: string, context: string): string {
    if (!context) throw new SecretBoxError('a sealed value is bound to a context; none was given');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.sealingKeyId)!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return [CURRENT, this.sealingKeyId, ...parts].join('.');
  }

  /**
   * Decrypts with the key that sealed it; throws SecretBoxError when the value is malformed, tampered with, sealed
   * under a key SECRETS_KEY does not list, or for another context.
   */
  open(sealed: string, context = ''): string {
    const { keyId, bound, iv, tag, ciphertext } = parseSealed(sealed);
    if (bound && !context) throw new SecretBoxError('sealed secret is bound to a context; none was given');
    const key = this.#keys.get(keyId);
    if (!key) throw new SecretBoxError(`sealed secret was sealed with key "${keyId}", which SECRETS_KEY does not list`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret failed authentication (tampered, sealed under another key, or for another row or field)');
    }
  }

  /** Whether the reseal command has work here: sealed by another key than the newest, or in an older form. */
  needsReseal(sealed: string): boolean {
    return !sealed.startsWith(`${CURRENT}.${this.sealingKeyId}.`);
  }

  /** The same plaintext sealed with the newest key (same context); a value already sealed so is returned as it is. */
  reseal(sealed: string, context: string): string {
    return this.needsReseal(sealed) ? this.seal(this.open(sealed, context), context) : sealed;
  }
}

function parseSealed(sealed: string) {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  const malformed = () => new SecretBoxError('sealed secret is malformed');
  let keyId = IMPLIED_KEY_ID;
  if (parts[0] === CURRENT && parts.length === 5) {
    keyId = parts.splice(1, 1)[0];
    if (!KEY_ID.test(keyId)) throw malformed();
  } else if ((parts[0] !== LEGACY_UNBOUND && parts[0] !== LEGACY_BOUND) || parts.length !== 4) throw malformed();
  if (!parts.slice(1).every((p) => BASE64URL.test(p))) throw malformed();
  const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw malformed();
  return { keyId, bound: parts[0] !== LEGACY_UNBOUND, iv, tag, ciphertext };
}

/**
 * The one way a sealed value is bound to its row and field: the context `<kind>:<row id>:<field>` every caller passes
 * to `seal` and `open`.
 */
export const sealedContext = (kind: 'tenant' | 'signing_key' | 'recording', id: string, field: string): string => `${kind}:${id}:${field}`;

/** Whether a stored value is still in the unbound v1 form (the re-sealing migration converts those). */
export const isUnboundSealed = (sealed: string): boolean => sealed.startsWith(`${LEGACY_UNBOUND}.`);

const MASK_PREFIX = '****';

/** `****` + the last 4 characters; secrets shorter than 8 characters become `********` (nothing revealed). */
export function maskSecret(secret: string): string {
  const chars = Array.from(secret);
  if (chars.length < 8) return `${MASK_PREFIX}****`;
  return `${MASK_PREFIX}${chars.slice(-4).join('')}`;
}

/** Whether a value a client sends for a secret has the shape of a mask (docs/decisions.md §4: never stored as a key). */
export const looksMasked = (value: string): boolean => value.startsWith(MASK_PREFIX);

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { sealedContext, type SecretBox } from '../security/secret-box.ts';
import { generateSigningKey, type SigningKey, type TokenService } from '../security/tokens.ts';
import type { Orm } from './orm.ts';
import { SigningKeySchema, type SigningKey as SigningKeyRow } from './signing-key.entity.ts';

// The JWT signing keys live in the database (private half sealed with SECRETS_KEY, bound to its kid) so every API
// instance signs and verifies with the same set, and tokens survive restarts. They rotate (docs/decisions.md §4, docs/security.md):
//
//   created ──(activation delay: every instance has loaded it)──▶ signs ──(its successor signs)──▶ verifies only
//           ──(the longest token lifetime after that)──▶ retired: gone from JWKS, tokens signed with it are refused.
//
// A new key is published in JWKS and verifies at once, but signs only after the activation delay, so no instance
// issues a token another instance cannot yet verify. Every instance reloads the set every `reloadMs`.

export interface KeyRotationPolicy {
  /** How often every instance reloads the keys. */
  reloadMs: number;
  /** A new key signs this long after it was created (a few reloads: every instance knows it by then). */
  activationDelayMs: number;
  /** The longest token lifetime: a key verifies this long (plus one reload) after its successor started signing. */
  maxTokenLifetimeMs: number;
}

export function keyRotationPolicy(tokens: Config['tokens']): KeyRotationPolicy {
  const reloadMs = 60_000;
  return {
    reloadMs,
    activationDelayMs: 3 * reloadMs,
    maxTokenLifetimeMs: 1000 * Math.max(tokens.tenantAccessTtl, tokens.participantTtl, tokens.refreshTtl),
  };
}

/** Where each stored key stands at `now`: the one that signs, the others that verify, and the retired. */
export function keyStates(rows: readonly SigningKeyRow[], policy: KeyRotationPolicy, now: number) {
  const sorted = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.kid.localeCompare(b.kid));
  const signsFrom = (row: SigningKeyRow) => row.createdAt.getTime() + policy.activationDelayMs;
  // The newest key whose activation delay has passed; the very first key signs at once (nothing else could).
  let signer = 0;
  sorted.forEach((row, i) => {
    if (signsFrom(row) <= now) signer = i;
  });
  const verifiesUntil = (i: number) =>
    i < signer ? signsFrom(sorted[i + 1]) + policy.reloadMs + policy.maxTokenLifetimeMs : Infinity;
  const retired = sorted.filter((_, i) => verifiesUntil(i) <= now);
  const verifying = sorted.filter((_, i) => verifiesUntil(i) > now);
  return {
    signing: sorted[signer],
    /** Newest first, the signer included. */
    verifying: verifying.reverse(),
    retired,
    signsFrom,
    verifiesUntil: (row: SigningKeyRow) => verifiesUntil(sorted.indexOf(row)),
  };
}

/** The associated data a signing key's private half is sealed with. */
const sealContext = (kid: string) => sealedContext('signing_key', kid, 'private_jwk');

async function createKey(em: EntityManager, box: SecretBox): Promise<string> {
  const key = await generateSigningKey();
  em.create(SigningKeySchema, { kid: key.kid, privateJwkSealed: box.seal(JSON.stringify(key.privateJwk), sealContext(key.kid)), publicJwk: key.publicJwk });
  await em.flush();
  return key.kid;
}

/**
 * Serialises key creation and rotation between instances until the transaction ends. Taken through `tx.execute`, which
 * runs on the transaction's connection: `tx.getConnection().execute` without the transaction context takes another
 * pooled connection in autocommit, where the lock is released at once, and each reload then holds two connections;
 * reloads queued while PostgreSQL hung (one a minute) filled the pool with transactions each waiting for one more
 * connection, and the API stayed unready after PostgreSQL came back (the PostgreSQL outage drill, docs/operations.md).
 */
async function lockKeySet(tx: EntityManager): Promise<void> {
  await tx.execute('SELECT pg_advisory_xact_lock(7361002)');
}

/**
 * The keys for a TokenService at `now`: the signer first, then every other key that still verifies. The first instance
 * to start creates one; concurrent starts converge on the same row (a transaction-level advisory lock).
 */
export async function loadSigningKeys(em: EntityManager, box: SecretBox, policy: KeyRotationPolicy, now = Date.now()): Promise<SigningKey[]> {
  await em.transactional(async (tx) => {
    await lockKeySet(tx);
    if ((await tx.count(SigningKeySchema, {})) === 0) await createKey(tx, box);
  });
  const rows = await em.fork().find(SigningKeySchema, {});
  const { signing, verifying } = keyStates(rows, policy, now);
  return [signing, ...verifying.filter((row) => row !== signing)].map((row) => ({
    kid: row.kid,
    privateJwk: row === signing ? JSON.parse(box.open(row.privateJwkSealed, sealContext(row.kid))) : undefined,
    publicJwk: row.publicJwk,
  }));
}

export interface Rotation {
  kid: string;
  signsFrom: string;
  /** Keys that still verify, and until when. */
  verifying: Array<{ kid: string; until: string | null }>;
  /** Keys deleted now: their tokens' longest lifetime has passed. */
  retired: string[];
}

/**
 * The operator's rotation (`node dist/main.js rotate-signing-key`): adds a key that signs after the activation delay,
 * and deletes the keys already retired. Nothing is revoked early: tokens signed by older keys keep working until they
 * expire.
 */
export async function rotateSigningKey(em: EntityManager, box: SecretBox, policy: KeyRotationPolicy, now = Date.now()): Promise<Rotation> {
  return em.transactional(async (tx) => {
    await lockKeySet(tx);
    const kid = await createKey(tx, box);
    const rows = await tx.find(SigningKeySchema, {});
    const state = keyStates(rows, policy, now);
    for (const row of state.retired) tx.remove(row);
    await tx.flush();
    const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);
    const created = rows.find((r) => r.kid === kid)!;
    return {
      kid,
      signsFrom: new Date(state.signsFrom(created)).toISOString(),
      verifying: state.verifying.map((row) => ({ kid: row.kid, until: iso(state.verifiesUntil(row)) })),
      retired: state.retired.map((row) => row.kid),
    };
  });
}

/** Reloads the keys into `tokens` every `policy.reloadMs`; a failed reload keeps the current set. Returns stop(). */
export function refreshSigningKeys(deps: { orm: Orm; box: SecretBox; tokens: TokenService; policy: KeyRotationPolicy; logger: Logger }): () => void {
  const reload = async () => {
    try {
      deps.tokens.useKeys(await loadSigningKeys(deps.orm.em.fork(), deps.box, deps.policy));
    } catch (err) {
      deps.logger.warn({ err }, 'signing keys not reloaded; the current set stays in use');
    }
  };
  const timer = setInterval(() => void reload(), deps.policy.reloadMs);
  timer.unref();
  return () => clearInterval(timer);
}

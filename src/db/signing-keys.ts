import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { onNotify } from './listen.ts';
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
// issues a token another instance cannot yet verify. A leaked key is retired at once instead (`--retire-now`): every
// older key is deleted and the new one signs immediately. Every instance reloads the set when a rotation commits (a
// NOTIFY on KEYS_CHANGED, milliseconds later) and, should that notification be lost, every `reloadMs` anyway.

/** The channel a rotation notifies in its transaction: every API instance reloads its keys when it commits. */
const KEYS_CHANGED = 'convene_signing_keys';

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

/** A key's private half sealed with the newest SECRETS_KEY key (the reseal command); throws when it does not open. */
export const resealSigningKey = (box: SecretBox, kid: string, sealed: string): string => box.reseal(sealed, sealContext(kid));

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
  /** Keys deleted now: their tokens' longest lifetime has passed, or `retireNow` was asked for. */
  retired: string[];
}

/**
 * The operator's rotation (`node dist/main.js rotate-signing-key`): adds a key that signs after the activation delay,
 * and deletes the keys already retired. Nothing is revoked early: tokens signed by older keys keep working until they
 * expire. With `retireNow` (`--retire-now`, for a leaked key) every older key is deleted instead and the new key signs
 * at once: every token signed before is refused as soon as each instance has reloaded (the NOTIFY below).
 */
export async function rotateSigningKey(
  em: EntityManager,
  box: SecretBox,
  policy: KeyRotationPolicy,
  options: { retireNow?: boolean; now?: number } = {},
): Promise<Rotation> {
  const now = options.now ?? Date.now();
  return em.transactional(async (tx) => {
    await lockKeySet(tx);
    const kid = await createKey(tx, box);
    const rows = await tx.find(SigningKeySchema, {});
    const state = keyStates(rows, policy, now);
    const retired = options.retireNow ? rows.filter((row) => row.kid !== kid) : state.retired;
    for (const row of retired) tx.remove(row);
    await tx.flush();
    // Delivered to every instance's listener when this transaction commits (refreshSigningKeys).
    await tx.execute(`select pg_notify('${KEYS_CHANGED}', '')`);
    const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);
    const created = rows.find((r) => r.kid === kid)!;
    if (options.retireNow) return { kid, signsFrom: new Date(now).toISOString(), verifying: [{ kid, until: null }], retired: retired.map((r) => r.kid) };
    return {
      kid,
      signsFrom: new Date(state.signsFrom(created)).toISOString(),
      verifying: state.verifying.map((row) => ({ kid: row.kid, until: iso(state.verifiesUntil(row)) })),
      retired: retired.map((row) => row.kid),
    };
  });
}

/**
 * Keeps `tokens` on the stored key set: reloads when a rotation commits (LISTEN on KEYS_CHANGED, so a key retired at
 * once stops verifying here within milliseconds) and every `policy.reloadMs` in case a notification was lost. Reloads
 * run one after another, so an older read never replaces a newer one. A failed reload keeps the current set.
 * Returns stop().
 */
export function refreshSigningKeys(deps: {
  orm: Orm;
  databaseUrl: string;
  box: SecretBox;
  tokens: TokenService;
  policy: KeyRotationPolicy;
  logger: Logger;
}): () => Promise<void> {
  let queue = Promise.resolve();
  const reload = () => {
    queue = queue.then(async () => {
      try {
        deps.tokens.useKeys(await loadSigningKeys(deps.orm.em.fork(), deps.box, deps.policy));
      } catch (err) {
        deps.logger.warn({ err }, 'signing keys not reloaded; the current set stays in use');
      }
    });
  };
  const timer = setInterval(reload, deps.policy.reloadMs);
  timer.unref();
  const stopListening = onNotify({ databaseUrl: deps.databaseUrl, channel: KEYS_CHANGED, logger: deps.logger, onChange: reload });
  return async () => {
    clearInterval(timer);
    await stopListening();
    await queue;
  };
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../security/secret-box.ts';
import { generateSigningKey, type SigningKey } from '../security/tokens.ts';
import { SigningKeySchema } from './signing-key.entity.ts';

/**
 * The JWT signing keys, newest first. The first instance to start creates one; concurrent starts converge on the
 * same row because the insert ignores a conflict only on an empty table (guarded by a transaction-level advisory lock).
 */
export async function loadSigningKeys(em: EntityManager, box: SecretBox): Promise<SigningKey[]> {
  await em.transactional(async (tx) => {
    await tx.getConnection().execute('SELECT pg_advisory_xact_lock(7361002)');
    if ((await tx.count(SigningKeySchema, {})) > 0) return;
    const key = await generateSigningKey();
    tx.create(SigningKeySchema, { kid: key.kid, privateJwkSealed: box.seal(JSON.stringify(key.privateJwk)), publicJwk: key.publicJwk });
  });
  const rows = await em.fork().find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc' } });
  return rows.map((row) => ({ kid: row.kid, privateJwk: JSON.parse(box.open(row.privateJwkSealed)), publicJwk: row.publicJwk }));
}

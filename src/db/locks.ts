import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Serialises writers that count rows under a parent (rooms under a tenant, participants under a room), so limits hold
 * exactly. `FOR NO KEY UPDATE`, not `FOR UPDATE`: it does not block the `FOR KEY SHARE` locks that foreign-key checks
 * take when other transactions insert children (participants, refresh tokens), which would otherwise deadlock.
 * Call inside a transaction; re-read the row afterwards (`refresh: true`) since an earlier read may be stale.
 */
export async function lockRow(tx: EntityManager, table: 'tenants' | 'rooms', id: string): Promise<void> {
  await tx.execute(`select 1 from "${table}" where id = ? for no key update`, [id]);
}

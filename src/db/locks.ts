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

/**
 * lockRow and the re-read in one statement: locks the row and returns it as it is now (PostgreSQL reads a row it locks
 * at its latest committed version), or undefined when there is none. One round trip fewer while the lock is held, which
 * is what concurrent writers of the same parent wait on.
 */
export async function lockAndReadRow(tx: EntityManager, table: 'tenants' | 'rooms', id: string): Promise<Record<string, unknown> | undefined> {
  const rows: Array<Record<string, unknown>> = await tx.execute(`select * from "${table}" where id = ? for no key update`, [id]);
  return rows[0];
}

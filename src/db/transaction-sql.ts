import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from './sql.ts';

/**
 * A MikroORM transaction seen as the `Sql` the room bus and presence functions run on, so a service writes its change
 * and what the room's sockets must hear of it in one transaction (PostgreSQL delivers a NOTIFY only at commit).
 * Placeholders `$1`… become MikroORM's `?` (values are escaped by MikroORM, as for every raw query it runs); the text
 * must hold no other `?` and no `$n` inside string literals.
 */
export function transactionSql(tx: EntityManager): Sql {
  const ctx = tx.getTransactionContext();
  if (!ctx) throw new Error('transactionSql needs an open transaction (em.transactional)');
  return {
    async query(text: string, params: unknown[] = []) {
      const ordered: unknown[] = [];
      const converted = text.replace(/\$(\d+)/g, (_match, n: string) => {
        ordered.push(params[Number(n) - 1]);
        return '?';
      });
      const res = await tx.getConnection().execute<{ affectedRows: number; rows: never[] }>(converted, ordered, 'run', ctx);
      return { rows: res.rows, rowCount: res.affectedRows };
    },
  };
}

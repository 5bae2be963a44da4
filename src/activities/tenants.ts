import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm.ts';
import { tenantKeyPrefix } from '../storage/keys.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { RETRYABLE_FAILURE } from '../../workflows/failure-types.ts';
import { withSafeFailures } from './safe-failure.ts';

export function createTenantActivities(deps: { store: ObjectStore; orm: Orm }) {
  return withSafeFailures({
    /**
     * Removes every stored file of the tenant, in both buckets. Repeatable: a retry deletes what is left. docs/decisions.md §15:
     * refuses (retryably) while the tenant's row exists, so a purge can never leave a live tenant without its files.
     */
    async purgeTenantObjects({ tenantId }: { tenantId: string }): Promise<{ objectsDeleted: number }> {
      const rows: unknown[] = await deps.orm.em.fork().execute('select 1 from tenants where id = ?', [tenantId]);
      if (rows.length > 0) throw ApplicationFailure.retryable(`tenant ${tenantId} still exists; its files are kept`, RETRYABLE_FAILURE.tenantStillExists);
      return { objectsDeleted: await deps.store.deletePrefix(tenantKeyPrefix(tenantId)) };
    },
  });
}

export type TenantActivities = ReturnType<typeof createTenantActivities>;

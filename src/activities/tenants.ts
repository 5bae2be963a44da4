import { tenantKeyPrefix } from '../storage/keys.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { withSafeFailures } from './safe-failure.ts';

export function createTenantActivities(deps: { store: ObjectStore }) {
  return withSafeFailures({
    /** Removes every stored file of the tenant, in both buckets. Repeatable: a retry deletes what is left. */
    async purgeTenantObjects({ tenantId }: { tenantId: string }): Promise<{ objectsDeleted: number }> {
      return { objectsDeleted: await deps.store.deletePrefix(tenantKeyPrefix(tenantId)) };
    },
  });
}

export type TenantActivities = ReturnType<typeof createTenantActivities>;

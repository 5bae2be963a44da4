// After a tenant is deleted its rows are gone at once (foreign keys cascade); its stored recordings are removed here,
// durably: retried until the object store has let go of every file. Id: tenant-purge-<tenantId>.
import { proxyActivities } from '@temporalio/workflow';
import type { TenantActivities } from '../src/activities/tenants.ts';
import { DATABASE_STEP_RETRY } from './shared.ts';

// Retried until the database and the object store answer and the tenant's row is gone (docs/decisions.md §15): no attempt limit.
const { purgeTenantObjects } = proxyActivities<TenantActivities>({
  summary: "delete the tenant's stored files (both buckets)",
  startToCloseTimeout: '10 minutes',
  retry: { ...DATABASE_STEP_RETRY, initialInterval: '5 seconds', maximumInterval: '30 minutes' },
});

export async function tenantPurgeWorkflow(input: { tenantId: string }): Promise<{ objectsDeleted: number }> {
  return purgeTenantObjects(input);
}

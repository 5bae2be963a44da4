// After a tenant is deleted its rows are gone at once (foreign keys cascade); its stored recordings are removed here,
// durably: retried until the object store has let go of every file. Id: tenant-purge-<tenantId>.
import { proxyActivities } from '@temporalio/workflow';
import type { TenantActivities } from '../src/activities/tenants.ts';

const { purgeTenantObjects } = proxyActivities<TenantActivities>({
  summary: "delete the tenant's stored files (both buckets)",
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes', maximumAttempts: 100 },
});

export async function tenantPurgeWorkflow(input: { tenantId: string }): Promise<{ objectsDeleted: number }> {
  return purgeTenantObjects(input);
}

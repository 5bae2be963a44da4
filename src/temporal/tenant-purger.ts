// The API side of the tenant-purge workflow (DECISIONS §5): Delete Tenant removes the rows at once and starts this
// durable removal of the stored files, id derived from the tenant so a repeated delete finds the first run.
import type { Client } from '@temporalio/client';
import { metrics } from '../metrics/metrics.ts';
import type { tenantPurgeWorkflow } from '../../workflows/tenant-purge.ts';
import { searchAttributesFor, tenantPurgeWorkflowId } from '../../workflows/shared.ts';

/** Starts the durable removal of a deleted tenant's stored files (DECISIONS §5). */
export interface TenantPurger {
  startPurge(tenantId: string): Promise<void>;
}

export class TemporalTenantPurger implements TenantPurger {
  readonly #client: Client;
  readonly #taskQueue: string;

  constructor(client: Client, taskQueue: string) {
    this.#client = client;
    this.#taskQueue = taskQueue;
  }

  async startPurge(tenantId: string): Promise<void> {
    await this.#client.workflow.start<typeof tenantPurgeWorkflow>('tenantPurgeWorkflow', {
      taskQueue: this.#taskQueue,
      workflowId: tenantPurgeWorkflowId(tenantId),
      args: [{ tenantId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: searchAttributesFor({ tenantId }),
      staticSummary: `delete the stored files of deleted tenant ${tenantId}`,
    });
    metrics.workflowStarted('tenantPurgeWorkflow');
  }
}

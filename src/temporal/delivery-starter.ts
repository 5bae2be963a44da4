// A direct start of the delivery workflow, for tests and operators that drive a delivery by hand. The service never uses
// it: a re-send and post-meeting record their start with the delivery row (src/handover/, docs/decisions.md §15).
import type { Client } from '@temporalio/client';
import { metrics } from '../metrics/metrics.ts';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.ts';
import { searchAttributesFor, webhookDeliveryWorkflowId } from '../../workflows/shared.ts';
import type { WebhookDelivery } from '../modules/deliveries/delivery.entity.ts';

export interface DeliveryStarter {
  start(delivery: WebhookDelivery): Promise<void>;
}

export class TemporalDeliveryStarter implements DeliveryStarter {
  readonly #client: Client;
  readonly #taskQueue: string;
  readonly #retryDelaysSeconds: number[];

  constructor(client: Client, taskQueue: string, retryDelaysSeconds: number[]) {
    this.#client = client;
    this.#taskQueue = taskQueue;
    this.#retryDelaysSeconds = retryDelaysSeconds;
  }

  async start(delivery: WebhookDelivery): Promise<void> {
    await this.#client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
      taskQueue: this.#taskQueue,
      workflowId: webhookDeliveryWorkflowId(delivery.id),
      // The schedule is fixed at creation, in the input: a run is deterministic whatever the config becomes.
      args: [{ deliveryId: delivery.id, retryDelaysSeconds: this.#retryDelaysSeconds }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `deliver ${delivery.event} ${delivery.id}${delivery.resentFrom ? ` (re-send of ${delivery.resentFrom})` : ''}`,
      typedSearchAttributes: searchAttributesFor({
        tenantId: delivery.tenant.id,
        roomId: delivery.roomId,
        recordingId: delivery.recordingId,
        deliveryId: delivery.id,
      }),
    });
    metrics.workflowStarted('webhookDeliveryWorkflow');
  }
}

// One outgoing webhook delivery (docs/decisions.md §10): attempt, record, sleep per the schedule, attempt again, until a 2xx,
// a permanent failure or the last scheduled attempt. The id is webhook-delivery-<deliveryId>. Inputs and results are
// ids and numbers only: the activity resolves the URL and the secret and builds the payload (docs/decisions.md §13).
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { DeliveryActivities } from '../src/activities/deliveries.ts';
import { DELIVERY_FAILURE } from './failure-types.ts';
import { OUTSIDE_SERVICE_STEP_RETRY, outsideStepOverrides, type WebhookDeliveryInput } from './shared.ts';

export interface WebhookDeliveryWorkflowInput extends WebhookDeliveryInput {
  /**
   * Seconds before each attempt, fixed when the delivery is created (WEBHOOK_RETRY_DELAYS, or the test event's short
   * schedule; the first is usually 0): every hand-over passes it (deliveryStart, src/modules/deliveries/delivery.service.ts).
   * Runs started before hand-overs fixed it in the input read it through an activity of their own; none is left in
   * flight (a delivery ends with its schedule, hours, and none of the recorded histories has that step), so that
   * activity is gone.
   */
  retryDelaysSeconds: number[];
}

export interface WebhookDeliveryResult {
  status: 'succeeded' | 'failed';
  attempts: number;
}

// An attempt POSTs for at most WEBHOOK_TIMEOUT_MS (30 s) and heartbeats meanwhile: a worker killed mid-attempt is
// noticed within the heartbeat timeout and the attempt runs again elsewhere. Activity retries cover our own failures
// (database down, worker lost), never the receiver's answers, which are outcomes the activity records. The input's
// outsideStepTimings (tests only) shorten the heartbeat timeout and retry delays; absent, these (workflows/shared.ts).
const deliveries = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { ...OUTSIDE_SERVICE_STEP_RETRY, nonRetryableErrorTypes: [DELIVERY_FAILURE.deliveryGone] },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryWorkflowInput): Promise<WebhookDeliveryResult> {
  const { deliveryId, retryDelaysSeconds: delays } = input;
  const timings = outsideStepOverrides(input.outsideStepTimings, { heartbeats: true });
  const total = delays.length;
  if (delays[0] > 0) await sleep(delays[0] * 1000, { summary: `first attempt in ${delays[0]} s` });
  for (let attempt = 1; attempt <= total; attempt++) {
    const nextDelaySeconds = attempt < total ? delays[attempt] : null;
    const decision = await deliveries.attemptWebhookDelivery.executeWithOptions(
      { summary: `POST attempt ${attempt} of ${total}`, ...timings },
      [{ deliveryId, attempt, nextDelaySeconds }],
    );
    if (decision.status === 'succeeded' || decision.status === 'failed') return { status: decision.status, attempts: attempt };
    const wait = decision.nextDelaySeconds ?? 0;
    if (wait > 0) await sleep(wait * 1000, {
      summary: `retry ${attempt + 1} of ${total} in ${wait} s (after ${decision.responseStatusCode ?? 'no response'})`,
    });
  }
  // Not reached: the last attempt always ends the delivery (retrying with no next delay is `failed`).
  return { status: 'failed', attempts: total };
}
